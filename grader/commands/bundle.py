"""``python -m grader bundle``: the zip to hand to learners (refused while the release's
``minitorch/`` or ``notebooks/`` differ from what ``make release`` wrote: it would ship them)."""

from __future__ import annotations

import pathlib
import sys


def main(*, out: pathlib.Path) -> int:
    from grader.release.bundle import build
    from grader.release.guard import WorkWouldBeLost
    try:
        print(f"wrote {build(out.resolve())}")
    except WorkWouldBeLost as refused:
        print(f"error: the bundle was not written: {refused}", file=sys.stderr)
        return 1
    return 0
