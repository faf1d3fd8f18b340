"""Helpers for the grader's tests: packages made from the reference with small patches."""

import pathlib
import shutil
import subprocess
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


def git(copy: pathlib.Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=copy, capture_output=True, text=True, check=True).stdout


def make_copy(tmp_path: pathlib.Path) -> pathlib.Path:
    """The repository's files (tracked and new, none ignored) in a git repository of their own:
    a course an instructor adapts, run with its own grader (``PYTHONPATH`` set to it)."""
    copy = tmp_path / "course-repo"
    listed = git(ROOT, "ls-files", "-co", "--exclude-standard").splitlines()
    for name in listed:
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "before")
    return copy
