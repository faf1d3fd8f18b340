"""``python -m grader gradescope``: write the Gradescope autograder zip (docs/PLATFORMS.md)."""

from __future__ import annotations

import pathlib


def main(*, out: pathlib.Path, visibility: str = "visible") -> int:
    from grader.platforms.gradescope import build
    from grader.platforms.shipping import digest
    print(f"wrote {build(out.resolve(), visibility)} (grader version {digest()}): upload it on the assignment's "
          "Configure Autograder page")
    return 0
