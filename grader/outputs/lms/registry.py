"""The registry of the LMS exports. ``LMS`` lists the LMSs' modules (``canvas.py``,
``moodle.py``, ``blackboard.py``, each holding its ``EXPORTS``); it is the one list every
other place reads: the files written, the stale ones removed, and the guide's table
(docs/INSTRUCTOR.md, "Exports for your LMS", held equal to ``table()`` by
tests/grader/test_lms_exports.py). A new LMS is a module beside this one and its name in
``LMS`` (docs/MAINTAINER.md, "Adding an LMS").

The roster (``--roster``) is a CSV with a ``learner`` column (the id the hand-ins are
named by) and the LMS identities: ``name``, ``canvas_id``, ``sis_user_id``,
``sis_login_id``, ``section`` (Canvas), ``email``, ``idnumber``, ``identifier``
(Moodle), ``username``, ``first_name``, ``last_name``, ``student_id`` (Blackboard);
``autograde --from canvas|moodle`` reads the LMS's own file instead
(``intake/lms_download.py``). An export is written when a learner of the roster has one
of the columns it finds learners by; every such learner gets a row, 0 with no hand-in.
"""

from __future__ import annotations

import csv
import pathlib
from collections.abc import Mapping

import grader.files as files
from grader.outputs.lms import blackboard, canvas, moodle
from grader.outputs.lms.export import Export, Row
from grader.outputs.words import plural
from grader.results import LearnerResult

LMS = (canvas, moodle, blackboard)
EXPORTS: tuple[Export, ...] = tuple(e for module in LMS for e in module.EXPORTS)
FILES = tuple(e.file for e in EXPORTS)


def read_roster(path: pathlib.Path) -> dict[str, dict[str, str]]:
    with path.open(newline="", encoding="utf-8-sig") as file:
        rows = list(csv.DictReader(file))
    if not rows or "learner" not in rows[0]:
        raise ValueError(f"{path}: the roster needs a 'learner' column (the ids the hand-ins are named by)")
    return {row["learner"]: row for row in rows}


def comment(result: LearnerResult) -> str:
    """The grade in a few lines, for an LMS's feedback column: the score, the late
    penalty, the tasks that lost points; the feedback page says why."""
    score, most = result.total
    lines = [f"minitorch: {result.final:g} / {most:g}"
             + (f" ({score:g} less {result.penalty:g}% for {plural(result.late_days, 'day')} late)"
                if result.penalty else "")]
    lost = [f"{t} ({r.score:g}/{r.max_score:g})" for t, r in result.tasks.items() if r.score < r.max_score]
    if lost:
        lines.append("Tasks with points lost: " + ", ".join(lost))
    return "\n".join(lines)


def write_exports(results: Mapping[str, LearnerResult], most: float, roster: dict[str, dict[str, str]],
                  out: pathlib.Path) -> tuple[list[str], list[str]]:
    """Each export with a learner it can identify, a row for every such learner of the
    roster; returns the files written, and the learners graded whom the roster lacks."""
    rows = [Row(learner, roster[learner], results[learner].final if learner in results else 0.0,
                learner in results, comment(results[learner]) if learner in results else "")
            for learner in sorted(roster) if learner in results or not roster[learner].get(files.ONLY_IF_HANDED_IN)]
    written = []
    for export in EXPORTS:
        mine = [row for row in rows if export.identifies(row)]
        if mine:
            with (out / export.file).open("w", newline="", encoding="utf-8") as file:
                export.write(mine, most, file)
            written.append(export.file)
        else:
            (out / export.file).unlink(missing_ok=True)   # from an earlier roster: never left to be taken for current
    return written, sorted(set(results) - set(roster))


def table() -> str:
    """The guide's table of the exports, one row each."""
    head = ["| file | for | imported in | the roster columns it finds a learner by |", "| --- | --- | --- | --- |"]
    return "\n".join(head + [f"| `{e.file}` | {e.lms} | {e.imports_as} | {', '.join(f'`{k}`' for k in e.keys)} |"
                             for e in EXPORTS])
