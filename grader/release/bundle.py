"""The learner bundle: the zip an instructor hands out.

It holds the release (``notebooks/``, ``minitorch/``), the learner's own pinned
environment (``requirements-learner.lock`` shipped as ``requirements.lock``, with an
``environment.yml`` and a ``pyproject.toml`` that list only what a learner needs: no
nbgrader, test or browser tooling), a Makefile (``lab``, ``progress``, ``handin``) and a
README for learners; never ``solutions/``, the grader or hidden tests.
"""

from __future__ import annotations

import pathlib
import zipfile

from grader.release import guard
from grader.release.build import ROOT

ENTRIES = ["notebooks", "minitorch", "etc/jupyterlab-overrides.json", "etc/jupyter_server_config.json",
           "etc/jupyterlab-workspace.json"]
SKIP = {"__pycache__", ".ipynb_checkpoints"}
LEARNER_LOCK = ROOT / "requirements-learner.lock"

# The learner's own README, Makefile, environment.yml and pyproject.toml: real files in
# learner/, written into the bundle's top folder as they are.
LEARNER_FILES = pathlib.Path(__file__).resolve().parent / "learner"
OWN_FILES = ("README.md", "Makefile", "environment.yml", "pyproject.toml")


LOCK_HEADER = ("# The packages of the course's environment, pinned: the versions known to work together.\n"
               "# `make lab` (or the README's steps without make) installs them into .venv/.\n")


def learner_lock() -> str:
    """The learner's pinned environment with a header of its own: the repository's says how
    to regenerate it, with a command the bundle does not have."""
    lines = LEARNER_LOCK.read_text(encoding="utf-8").splitlines(keepends=True)
    return LOCK_HEADER + "".join(line for line in lines if not line.startswith("#"))


def build(target: pathlib.Path, folder: str = "minitorch-course") -> pathlib.Path:
    """Write the bundle to ``target`` (a .zip), everything inside one top folder. Refuses
    (``guard.WorkWouldBeLost``, naming the files) when ``minitorch/`` or ``notebooks/``
    differ from what the last release wrote: filled stubs or executed notebooks would ship."""
    guard.check(ROOT)
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry in ENTRIES:
            path = ROOT / entry
            files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
            for file in files:
                if SKIP.isdisjoint(file.relative_to(ROOT).parts):
                    archive.write(file, f"{folder}/{file.relative_to(ROOT)}")
        archive.writestr(f"{folder}/requirements.lock", learner_lock())
        for name in OWN_FILES:
            archive.write(LEARNER_FILES / name, f"{folder}/{name}")
    return target
