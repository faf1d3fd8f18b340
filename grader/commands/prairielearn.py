"""``python -m grader prairielearn``: write a PrairieLearn grader: its image, its
serverFilesCourse/ and one question per stage (docs/PLATFORMS.md)."""

from __future__ import annotations

import pathlib


def main(*, out: pathlib.Path, image: str) -> int:
    from grader.platforms.prairielearn import build
    out = out.resolve()
    build(out, image)
    print(f"wrote {out}: see {out / 'minitorch-grader-image' / 'README.md'}")
    return 0
