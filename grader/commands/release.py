"""``python -m grader release [--force]``: rebuild minitorch/ and notebooks/ from solutions/,
refusing to overwrite a file that differs from what the last release wrote (a learner's
work) unless ``force`` (``grader/release/guard.py``). First, the notebooks' table of known
mistakes (``grader/checks/mistakes/table.py``) is evaluated into the package's course room."""

from __future__ import annotations


def main(*, force: bool = False) -> int:
    from grader.checks.mistakes import table
    from grader.release import build as release
    table.write()
    return release.main(force=force)
