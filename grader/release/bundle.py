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

from grader.release.build import ROOT

ENTRIES = ["notebooks", "minitorch", "etc/jupyterlab-overrides.json", "etc/jupyter_server_config.json"]
SKIP = {"__pycache__", ".ipynb_checkpoints"}
LEARNER_LOCK = ROOT / "requirements-learner.lock"

# The learner's own README, Makefile, environment.yml and pyproject.toml: real files in
# learner/, written into the bundle's top folder as they are.
LEARNER_FILES = pathlib.Path(__file__).resolve().parent / "learner"
OWN_FILES = ("README.md", "Makefile", "environment.yml", "pyproject.toml")


def build(target: pathlib.Path, folder: str = "minitorch-course") -> pathlib.Path:
    """Write the bundle to ``target`` (a .zip), everything inside one top folder."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry in ENTRIES:
            path = ROOT / entry
            files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
            for file in files:
                if SKIP.isdisjoint(file.relative_to(ROOT).parts):
                    archive.write(file, f"{folder}/{file.relative_to(ROOT)}")
        archive.write(LEARNER_LOCK, f"{folder}/requirements.lock")
        for name in OWN_FILES:
            archive.write(LEARNER_FILES / name, f"{folder}/{name}")
    return target
