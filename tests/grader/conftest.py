"""Helpers for the grader's tests: packages made from the reference with small patches."""

import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "solutions" / "minitorch"
sys.path.insert(0, str(pathlib.Path(__file__).parent))  # variants.py


def write_package(target: pathlib.Path, patches=(), source: pathlib.Path = REFERENCE) -> pathlib.Path:
    """A copy of ``source`` at ``target`` with ``patches`` (file, old text, new text) applied."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    for file, old, new in patches:
        text = (target / file).read_text()
        assert text.count(old) == 1, f"the patch does not apply to {file}: {old!r}"
        (target / file).write_text(text.replace(old, new))
    return target
