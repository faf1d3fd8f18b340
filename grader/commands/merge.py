"""``python -m grader merge OUT PART...``: collect a class graded in shards (``autograde
--shard I/N``) into one grades.csv, report and feedback folder."""

from __future__ import annotations

import pathlib
import sys

import grader.files as files


def main(*, out: pathlib.Path, parts: list[pathlib.Path], roster: pathlib.Path | None = None) -> int:
    from grader.outputs.lms import read_roster
    from grader.outputs.publish import merge as merge_parts
    try:
        report, missing = merge_parts(out.resolve(), parts, read_roster(roster) if roster else None)
    except (ValueError, OSError, KeyError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for learner in missing:
        print(f"warning: {learner} is not in the roster: left out of {' and '.join(files.EXPORTS)}",
              file=sys.stderr)
    print(f"merged {len(parts)} part(s); open {report}")
    return 0
