"""``python -m grader merge OUT PART...``: collect a class graded in shards (``autograde
--shard I/N``) into one grades.csv, report and feedback folder, and run the copying check
once on the whole class (the submissions folder the parts name)."""

from __future__ import annotations

import pathlib
import sys

import grader.files as files


def main(*, out: pathlib.Path, parts: list[pathlib.Path], roster: pathlib.Path | None = None) -> int:
    from grader.outputs.lms import read_roster
    from grader.outputs.publish import merge as merge_parts
    from grader.outputs.publish import submissions_of
    try:
        report, missing = merge_parts(out.resolve(), parts, read_roster(roster) if roster else None)
        folder = submissions_of(parts)
    except (ValueError, OSError, KeyError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for learner in missing:
        print(f"warning: {learner} is not in the roster: left out of {' and '.join(files.EXPORTS)}",
              file=sys.stderr)
    print(f"merged {len(parts)} part(s); open {report}")
    if folder is None or not folder.is_dir():
        print("warning: the parts name no submissions folder that is here: no similarity files; run "
              "`python -m grader similarity SUBMISSIONS --out OUT`", file=sys.stderr)
        return 0
    from grader.intake.submissions import find_learners
    from grader.similarity import along_with_grading
    for line in along_with_grading(find_learners(folder)[0], out.resolve(), 1, folder):
        print(line)
    return 0
