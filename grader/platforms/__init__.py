"""The grader on the platforms classes grade on (docs/PLATFORMS.md).

    gradescope.py     the autograder zip (setup.sh, run_autograder) and its results.json
    prairielearn.py   the grading image, serverFilesCourse/ and one question per stage
    container.py      grading one hand-in inside either container, behind the boundary
    shipping.py       what both carry: the grader, the course's data, the grading pins

Both grade with ``read_hand_in`` and ``grade_stages``, the path of ``python -m grader
check``, so parts, points and reasons are check's.
"""

from __future__ import annotations

import argparse
import pathlib
import sys


def build(args: argparse.Namespace) -> int:
    """``python -m grader gradescope`` / ``prairielearn``: write what the platform takes."""
    from grader.platforms.shipping import digest
    out = pathlib.Path(args.out).resolve()
    if args.command == "gradescope":
        from grader.platforms.gradescope import build as build_zip
        print(f"wrote {build_zip(out, args.visibility)} (grader version {digest()}): upload it on the assignment's "
              "Configure Autograder page")
    else:
        from grader.platforms.prairielearn import ImageNameError
        from grader.platforms.prairielearn import build as build_folder
        try:
            build_folder(out, args.image)
        except ImageNameError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        print(f"wrote {out} (grader version {digest()}, image {args.image}): see "
              f"{out / 'minitorch-grader-image' / 'README.md'}")
    return 0
