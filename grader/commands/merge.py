"""``python -m grader merge OUT PART...``: collect a class graded in shards (``autograde
--shard I/N``) into one grades.csv, report and feedback folder, log every change of a score
in OUT's log.jsonl (with the reason each shard gave), and run the copying check once on the
whole class (the submissions folder the parts name)."""

from __future__ import annotations

import pathlib
import sys
import time

import grader.files as files


def main(*, out: pathlib.Path, parts: list[pathlib.Path], roster: pathlib.Path | None = None,
         source: str | None = None) -> int:
    import datetime as dt

    from grader.intake.lms_download import lms_named
    from grader.outputs.lms.registry import read_roster
    from grader.outputs.publish import merge as merge_parts
    from grader.outputs.publish import reasons_of, submissions_of
    from grader.term import log
    from grader.term.faults import point
    from grader.term.lock import Busy, Lock
    lock = Lock(out.resolve(), "merge")
    try:
        lock.acquire()   # one run at a time: refused here, nothing changed
    except (Busy, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        if lock.note():
            print(f"warning: {lock.note()}", file=sys.stderr)
        log.repair(out)
        before = log.rebuild(out)   # a merge killed before it logged leaves its changes to this one
        try:
            learners = (lms_named(source).read_roster(roster, dt.UTC).learners if source and roster else
                        read_roster(roster) if roster else None)   # with --from: the LMS's own roster
            report, missing = merge_parts(out.resolve(), parts, learners)
            folder, why = submissions_of(parts), reasons_of(parts)
        except (ValueError, OSError, KeyError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        point("grades.csv merged, not yet logged")
        run = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        log.append(out, log.changes(before, log.read_grades(out / files.GRADES), why, f"{run} (merged shards)"))
    finally:
        lock.release()
    for learner in missing:
        print(f"warning: {learner} is not in the roster: left out of the LMS exports",
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
