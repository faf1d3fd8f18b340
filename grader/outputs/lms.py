"""Grades in the form learning-management systems import.

* ``canvas.csv``: Canvas's gradebook import. Canvas finds each student by any one of its
  first three columns (Student, the name; ID, Canvas's user id; SIS User ID), then reads
  SIS Login ID and Section; every further column is an assignment, and a name Canvas does
  not know yet becomes a new assignment, here ``minitorch``. The "Points Possible" row under
  the header gives that new assignment its points. One row per learner of the roster: one
  with no hand-in gets 0 (grades.csv names them ``missing``).
* ``moodle.csv``: for Moodle's "Import grades from CSV". Its form asks which column
  identifies the user and which user field it matches (email address or ID number here;
  rows whose identifier is empty are skipped), and which grade item each other column
  fills (an existing one, or a new grade item for ``minitorch``).
* The roster (``--roster``) is a CSV with a ``learner`` column (the id the hand-ins are
  named by) and any of ``name``, ``canvas_id``, ``sis_user_id``, ``sis_login_id``,
  ``section``, ``email``, ``idnumber``. Learners missing from it are listed, not guessed.
"""

from __future__ import annotations

import csv
import pathlib

import grader.files as files
from grader.outputs.tables import SafeWriter

ASSIGNMENT = "minitorch"


def read_roster(path: pathlib.Path) -> dict[str, dict[str, str]]:
    with path.open(newline="", encoding="utf-8-sig") as file:
        rows = list(csv.DictReader(file))
    if not rows or "learner" not in rows[0]:
        raise ValueError(f"{path}: the roster needs a 'learner' column (the ids the hand-ins are named by)")
    return {row["learner"]: row for row in rows}


def write_exports(finals: dict[str, float], most: float, roster: dict[str, dict[str, str]],
                  out: pathlib.Path) -> list[str]:
    """``canvas.csv`` and ``moodle.csv``, a row for every learner of the roster (0 for one
    not in ``finals``: no hand-in); returns the learners graded whom the roster lacks."""
    missing = sorted(set(finals) - set(roster))
    with (out / files.CANVAS).open("w", newline="", encoding="utf-8") as file:
        writer = SafeWriter(file)
        writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", ASSIGNMENT])
        writer.writerow(["Points Possible", "", "", "", "", f"{most:g}"])
        for learner in sorted(roster):
            r = roster[learner]
            name = r.get("name", learner)
            name = f"{name} (learner)" if name.strip().lower() == "points possible" else name  # not a second maxima row
            writer.writerow([name, r.get("canvas_id", ""), r.get("sis_user_id", ""),
                             r.get("sis_login_id", ""), r.get("section", ""), f"{finals.get(learner, 0.0):g}"])
    with (out / files.MOODLE).open("w", newline="", encoding="utf-8") as file:
        writer = SafeWriter(file)
        writer.writerow(["Email address", "ID number", ASSIGNMENT])
        for learner in sorted(roster):
            r = roster[learner]
            writer.writerow([r.get("email", ""), r.get("idnumber", ""), f"{finals.get(learner, 0.0):g}"])
    return missing
