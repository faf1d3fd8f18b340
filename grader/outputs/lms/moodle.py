"""Moodle's two imports.

* ``moodle-worksheet.csv``: the assignment's grading worksheet (Assignment, View all
  submissions, Grading action "Upload grading worksheet"), written from the worksheet the
  roster was read from (``--from moodle``): every row and column as Moodle wrote it, with
  ``Grade`` and ``Feedback comments`` filled in, the grade on the assignment's own scale (the
  row's ``Maximum grade``: 88.5 of 88.5 points is 100.00 of 100.00). Moodle finds the row by ``Identifier``
  ("Participant N"), and refuses a row whose ``Last modified (grade)`` is older than the
  grade it holds (someone graded it since the download), so that column is kept as it came.
* ``moodle.csv``: the course's gradebook import (Grades, Import, CSV file), keyed by
  email address or ID number (rows without either are skipped by Moodle), a column
  ``minitorch`` mapped to a grade item in Moodle's form.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import TextIO

from grader.outputs.lms.export import Export, Row
from grader.outputs.tables import SafeWriter, spreadsheet_safe

ASSIGNMENT = "minitorch"
WORKSHEET = ("Identifier", "Full name", "Email address", "Status", "Grade", "Maximum grade", "Grade can be changed",
             "Last modified (submission)", "Last modified (grade)", "Feedback comments")

# Written as they are, since Moodle reads them back ("-" included); every other cell is made
# spreadsheet-safe, as every export's cells are.
EXACT = {"Identifier", "Grade", "Maximum grade", "Last modified (submission)", "Last modified (grade)"}


def write_gradebook(rows: Sequence[Row], most: float, file: TextIO) -> None:
    writer = SafeWriter(file)
    writer.writerow(["Email address", "ID number", ASSIGNMENT])
    for row in rows:
        writer.writerow([row.get("email"), row.get("idnumber"), f"{row.grade:g}"])


def write_worksheet(rows: Sequence[Row], most: float, file: TextIO) -> None:
    """The worksheet's own columns, in its order (Moodle's default ones when the roster is
    not a worksheet); a learner with no hand-in keeps an empty grade, as Moodle left it."""
    columns = [c for c in (rows[0].identity if rows else {}) if c in WORKSHEET or not c.islower()] or list(WORKSHEET)
    columns += [c for c in ("Grade", "Feedback comments") if c not in columns]
    writer = csv.writer(file)
    writer.writerow([spreadsheet_safe(c) for c in columns])
    for row in rows:
        cells = {c: row.identity.get(c, "") for c in columns}
        cells["Identifier"] = row.get("identifier")
        cells["Full name"] = cells.get("Full name") or row.get("name")
        cells["Email address"] = cells.get("Email address") or row.get("email")
        cells["Maximum grade"] = cells.get("Maximum grade") or f"{most:.2f}"
        if row.handed_in:   # on the assignment's own scale (its maximum grade), as Moodle reads it
            scale = _number(cells["Maximum grade"]) / most if most and _number(cells["Maximum grade"]) else 1.0
            cells["Grade"], cells["Feedback comments"] = f"{row.grade * scale:.2f}", row.comment
        writer.writerow([cells.get(c, "") if c in EXACT else spreadsheet_safe(cells.get(c, "")) for c in columns])


EXPORTS = (Export("moodle-worksheet.csv", "Moodle", "the assignment's Upload grading worksheet",
                  ("identifier",), write_worksheet),
           Export("moodle.csv", "Moodle", "Grades, Import, CSV file", ("email", "idnumber"), write_gradebook))


def _number(text: str) -> float:
    """A number as the worksheet writes it ("100.00"; "100,00" in a language with decimal commas); 0 if none."""
    try:
        return float(text.strip().replace(",", "."))
    except ValueError:
        return 0.0
