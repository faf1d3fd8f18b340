"""What the last release wrote, so that no release overwrites anyone's work.

``python -m grader release`` replaces ``minitorch/`` and ``notebooks/`` whole. In the
repository those folders are also where a self-taught learner works: they fill the stubs
of ``minitorch/`` and run and annotate the notebooks. So every release records the hash
of each file it wrote (``RECORD``, committed with the release), and the next one first
compares: a file changed since, or one the release did not write (a helper module of the
learner's own), stops it, named, unless it is told to go on (``--force``). A file the
release wrote and someone deleted is simply written again: nothing is lost there. After a
merge of the kit's later commits into an adapted course (``merged``: the two sides' releases
differ), those folders hold two releases' files combined by git: the message then tells the instructor how to rebuild them
(docs/INSTRUCTOR.md, "Taking a kit update"), before what it says to a learner.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import subprocess

FOLDERS = ("minitorch", "notebooks")
SKIP = {"__pycache__", ".ipynb_checkpoints"}
RECORD = "grader/release/released.json"  # relative to the repository's root


def written(root: pathlib.Path) -> dict[str, str]:
    """Each file of the release folders under ``root`` (a path relative to ``root``, with
    ``/``) and the SHA-256 of its bytes."""
    found = {}
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            relative = path.relative_to(root)
            if path.is_file() and SKIP.isdisjoint(relative.parts):
                found[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def record(root: pathlib.Path) -> None:
    """Write down what is in the release folders now (call it right after a release)."""
    target = root / RECORD
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(written(root), indent=1, sort_keys=True) + "\n", encoding="utf-8")


def changed(root: pathlib.Path) -> list[str]:
    """The files a release would overwrite or delete that differ from what the last release
    wrote, each with why (empty: a release loses nothing)."""
    path = root / RECORD
    recorded = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    found = []
    for name, digest in written(root).items():
        if name not in recorded:
            found.append(f"{name}: not written by the last release")
        elif recorded[name] != digest:
            found.append(f"{name}: changed since the last release wrote it")
    return found


class WorkWouldBeLost(Exception):
    """A release stopped before writing anything, because it would overwrite ``files``."""

    def __init__(self, files: list[str], record_missing: bool = False, merged: bool = False) -> None:
        self.files = files
        lines = [f"the release rewrites minitorch/ and notebooks/ from solutions/, and {len(files)} file(s) "
                 "there differ from what the last release wrote:"]
        if merged:
            lines[:0] = ["This repository has just merged other commits (a kit update into your course?). A merge "
                         "combines two releases' generated files in minitorch/ and notebooks/, so they match neither "
                         "release. If you maintain this course: check that `git status` shows nothing of yours in "
                         "those two folders (edit solutions/ only), resolve any conflict in solutions/ and "
                         "grader/tasks.toml first, then rebuild them with `.venv/bin/python -m grader release "
                         "--force` and commit (docs/INSTRUCTOR.md, \"Taking a kit update\").", ""]
        lines += [f"  {line}" for line in files[:40]]
        if len(files) > 40:
            lines.append(f"  ... and {len(files) - 40} more")
        if record_missing:
            lines.append(f"(there is no record of the last release, {RECORD}, to compare with)")
        lines += ["Nothing was changed.",
                  "If this is your work on the course (filled stubs, notebooks you ran), keep it: check it with "
                  "`make progress` (the visible checks) or `.venv/bin/python -m grader check` (the hidden checks, "
                  "graded).",
                  "If you maintain the course and mean to replace these files with a fresh release, run "
                  "`.venv/bin/python -m grader release --force`."]
        super().__init__("\n".join(lines))


def check(root: pathlib.Path) -> None:
    """Raise ``WorkWouldBeLost`` when a release into ``root`` would lose a file's changes."""
    files = changed(root)
    if files:
        raise WorkWouldBeLost(files, record_missing=not (root / RECORD).is_file(), merged=merged(root))


def merged(root: pathlib.Path) -> bool:
    """Whether ``root`` is a git repository whose merge under way, or whose last commit (a
    merge), brought together two different releases (a kit update taken into a course)."""
    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30)
    try:
        sides = ["HEAD", "MERGE_HEAD"] if git("rev-parse", "-q", "--verify", "MERGE_HEAD").returncode == 0 \
            else git("log", "-1", "--format=%P").stdout.split()
        return len(sides) == 2 and git("diff", "--quiet", *sides, "--", RECORD).returncode == 1
    except (OSError, subprocess.SubprocessError):
        return False
