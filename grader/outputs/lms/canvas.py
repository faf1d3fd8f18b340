"""Canvas's gradebook import (Grades, Import). Canvas finds each student by any one of
the first three columns (Student, the sortable name "Last, First"; ID, Canvas's user id;
SIS User ID), then reads SIS Login ID and Section; every further column is an
assignment. The column is the course's own assignment when the roster names it
(``canvas_assignment``: its header in Canvas's gradebook export, "minitorch (88002)",
which Canvas matches by its id), else ``minitorch``, a name Canvas does not know yet,
which becomes a new assignment; the "Points Possible" row under the header gives it its
points. A roster read from Canvas's own gradebook export keeps its ids."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from grader.outputs.lms.export import Export, Row
from grader.outputs.tables import SafeWriter

ASSIGNMENT = "minitorch"


def write(rows: Sequence[Row], most: float, file: TextIO) -> None:
    writer = SafeWriter(file)
    column = next((r.get("canvas_assignment") for r in rows if r.get("canvas_assignment")), ASSIGNMENT)
    writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column])
    writer.writerow(["Points Possible", "", "", "", "", f"{most:g}"])
    for row in rows:
        name = row.get("name", row.learner)
        if name.lower() == "points possible":
            name = f"{name} (learner)"   # never a second maxima row
        writer.writerow([name, row.get("canvas_id"), row.get("sis_user_id"), row.get("sis_login_id"),
                         row.get("section"), f"{row.grade:g}"])


EXPORTS = (Export("canvas.csv", "Canvas", "Grades, Import", ("name", "canvas_id", "sis_user_id"), write),)
