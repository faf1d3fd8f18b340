"""Canvas's gradebook import (Grades, Import). Canvas finds each student by any one of
the first three columns (Student, the sortable name "Last, First"; ID, Canvas's user id;
SIS User ID), then reads SIS Login ID and Section; every further column is an
assignment. The column is the course's own assignment when the roster names it
(``canvas_assignment``: its header in Canvas's gradebook export, "minitorch (88002)",
which Canvas matches by its id), else ``minitorch``, a name Canvas does not know yet,
which becomes a new assignment; the "Points Possible" row under the header gives it its
points. Canvas's import sets an existing assignment's points from that row too, so it
holds the assignment's own points (``canvas_points``, from the gradebook export), and the
grades are scaled to them: 88.5 of 88.5 is 100 on a 100-point assignment. A roster read
from Canvas's own gradebook export keeps its ids."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from grader.outputs.lms.export import Export, Row
from grader.outputs.tables import SafeWriter

ASSIGNMENT = "minitorch"


def write(rows: Sequence[Row], most: float, file: TextIO) -> None:
    writer = SafeWriter(file)
    column = next((r.get("canvas_assignment") for r in rows if r.get("canvas_assignment")), ASSIGNMENT)
    points = _points(next((r.get("canvas_points") for r in rows if r.get("canvas_points")), "")) or most
    writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column])
    writer.writerow(["Points Possible", "", "", "", "", f"{points:g}"])   # Canvas's import sets them: never changed
    for row in rows:
        name = row.get("name", row.learner)
        if name.lower() == "points possible":
            name = f"{name} (learner)"   # never a second maxima row
        writer.writerow([name, row.get("canvas_id"), row.get("sis_user_id"), row.get("sis_login_id"),
                         row.get("section"), f"{round(row.grade * points / most, 2) if most else 0:g}"])


def _points(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


EXPORTS = (Export("canvas.csv", "Canvas", "Grades, Import", ("name", "canvas_id", "sis_user_id"), write),)
