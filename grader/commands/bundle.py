"""``python -m grader bundle``: the zip to hand to learners."""

from __future__ import annotations

import pathlib


def main(*, out: pathlib.Path) -> int:
    from grader.release.bundle import build
    print(f"wrote {build(out.resolve())}")
    return 0
