"""``python -m grader prairielearn --image NAME``: write a PrairieLearn grader: its image,
its serverFilesCourse/ and one question per stage (docs/PLATFORMS.md)."""

from __future__ import annotations

import pathlib
import sys


def main(*, out: pathlib.Path, image: str) -> int:
    from grader.platforms.prairielearn import ImageNameError, build
    from grader.platforms.shipping import digest
    out = out.resolve()
    try:
        build(out, image)
    except ImageNameError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {out} (grader version {digest()}, image {image}): see {out / 'minitorch-grader-image' / 'README.md'}")
    return 0
