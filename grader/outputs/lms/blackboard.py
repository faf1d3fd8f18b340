"""Blackboard Learn's Grade Center upload (Full Grade Center, Work Offline, Upload).
Blackboard finds each student by ``Username`` (a row without one fails the upload, so
only learners with one are written); a column whose header carries no Column ID
(``|123``) becomes a new column, here ``minitorch``, made as a text column: set its
points after the upload. The name columns are shown, never changed. Every cell is quoted,
as Blackboard asks of comma-delimited files."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import TextIO

from grader.outputs.lms.export import Export, Row
from grader.outputs.tables import spreadsheet_safe

ASSIGNMENT = "minitorch"


def write(rows: Sequence[Row], most: float, file: TextIO) -> None:
    writer = csv.writer(file, quoting=csv.QUOTE_ALL)
    writer.writerow(["Last Name", "First Name", "Username", "Student ID", f"{ASSIGNMENT} [Total Pts: {most:g} Score]"])
    for row in rows:
        if row.get("username"):
            writer.writerow([spreadsheet_safe(c) for c in (row.get("last_name"), row.get("first_name"),
                                                           row.get("username"), row.get("student_id"))]
                            + [f"{row.grade:g}"])


EXPORTS = (Export("blackboard.csv", "Blackboard Learn", "Grade Center, Work Offline, Upload", ("username",), write),)
