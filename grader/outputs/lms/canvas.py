"""Canvas's gradebook import (Grades, Import). Canvas finds each student by any one of
the first three columns (Student, the sortable name "Last, First"; ID, Canvas's user id;
SIS User ID), then reads SIS Login ID and Section; every further column is an
assignment, and a name Canvas does not know yet becomes a new assignment, here
``minitorch``. The "Points Possible" row under the header gives that new assignment its
points. A roster read from Canvas's own gradebook export keeps its ids."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from grader.outputs.lms.export import Export, Row
from grader.outputs.tables import SafeWriter

ASSIGNMENT = "minitorch"


def write(rows: Sequence[Row], most: float, file: TextIO) -> None:
    writer = SafeWriter(file)
    writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", ASSIGNMENT])
    writer.writerow(["Points Possible", "", "", "", "", f"{most:g}"])
    for row in rows:
        name = row.get("name", row.learner)
        if name.lower() == "points possible":
            name = f"{name} (learner)"   # never a second maxima row
        writer.writerow([name, row.get("canvas_id"), row.get("sis_user_id"), row.get("sis_login_id"),
                         row.get("section"), f"{row.grade:g}"])


EXPORTS = (Export("canvas.csv", "Canvas", "Grades, Import", ("name", "canvas_id", "sis_user_id"), write),)
