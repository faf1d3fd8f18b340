"""``python -m grader release [--force]``: rebuild minitorch/ and notebooks/ from solutions/,
refusing to overwrite a file that differs from what the last release wrote (a learner's
work) unless ``force`` (``grader/release/guard.py``)."""

from __future__ import annotations


def main(*, force: bool = False) -> int:
    from grader.release import build as release
    return release.main(force=force)
