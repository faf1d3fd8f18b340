"""Canvas: the assignment's "Download Submissions" zip and the gradebook's export.

Canvas names each file ``sortablename[_LATE]_userid_fileid_filename``: the
student's sortable name ("Pereira, Ana") lowercased with every space and punctuation
mark removed (``pereiraana``), ``LATE`` when Canvas marked the submission late, the
student's Canvas user id, the id of the uploaded file (larger for a later upload), and the file's name as the student
uploaded it (a file uploaded again under the same name carries Canvas's ``-1``, ``-2``
before its extension). The roster is the gradebook's CSV export (Grades, Export): a
header (Student, ID, SIS User ID, SIS Login ID, Section, then a column per assignment
and the totals), a "Points Possible" row, and in some courses a row above it saying how
grades are posted ("Manual Posting"); neither is a student. Fields are separated by ``,``
or, as an instructor's settings may ask, ``;``. "Student, Test", the student Canvas's
Student View adds, is in the class only when the instructor handed in as it, under its
Canvas user id (its SIS Login ID is a hash). A learner's id is their SIS
Login ID, or their Canvas user id when they have none. When the gradebook already has
an assignment named ``minitorch...`` (Canvas writes it "minitorch (88002)", with its id),
the Canvas export fills that column rather than making a new assignment, on that
assignment's own points (its "Points Possible"). Canvas's download carries no
submission times: its ``LATE`` marker is shown in the learner's feedback, and
``submitted.csv`` gives times for a late penalty."""

from __future__ import annotations

import csv
import datetime as dt
import re
from pathlib import Path

from grader.files import ONLY_IF_HANDED_IN
from grader.intake.lms_download import Owned, Roster

NAME = "Canvas"
FILE = re.compile(r"^(?P<name>[^_]*?)(?P<late>_LATE)?_(?P<user>\d+)_(?P<file>\d+)_(?P<original>.+)$", re.S)
ASSIGNMENT = re.compile(r"^minitorch\b.*\(\d+\)$", re.I)   # "minitorch (88002)": Canvas's name (id)
USABLE = re.compile(r"^[\w@+-][\w.@+-]{0,99}$")
TEST_STUDENT = "Student, Test"   # the student "Student View" makes in every course
COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


def owner(parts: tuple[str, ...]) -> Owned | None:
    found = FILE.match(parts[-1])
    if found is None:
        return None
    note = ("Canvas marked this submission late (LATE in its file name in Canvas's download)"
            if found["late"] else "")
    return Owned(found["user"], found["name"], (found["original"],), note, order=int(found["file"]))


def read_roster(path: Path, zone: dt.tzinfo) -> Roster:
    with path.open(newline="", encoding="utf-8-sig") as file:
        first = file.readline()
        file.seek(0)
        # ";" when the instructor's Canvas settings ask for it (or their language writes 1,5)
        rows = list(csv.reader(file, delimiter=";" if first.count(";") > first.count(",") else ","))
    head = [c.strip() for c in rows[0]] if rows else []
    if not set(COLUMNS[:2]) <= set(head):
        raise ValueError(f"{path}: not Canvas's gradebook export (its header has no Student and ID columns; it has "
                         f"{', '.join(head[:8]) or 'nothing'})")
    at = {c: head.index(c) for c in COLUMNS if c in head}
    ours = next((c for c in head if ASSIGNMENT.match(c)), "")   # the course's own minitorch assignment, if made
    maxima = next((r for r in rows[1:] if r and r[0].strip().lower() == "points possible"), [])
    points = maxima[head.index(ours)].strip().replace(",", ".") if ours and head.index(ours) < len(maxima) else ""
    roster = Roster({}, {}, {}, source="")
    for number, cells in enumerate(rows[1:], start=2):
        row = {c: (cells[i].strip() if i < len(cells) else "") for c, i in at.items()}
        if row["Student"].lower() == "points possible" or not row["ID"].isdigit():
            continue   # the maxima row, the posting-policy row, a blank line
        login = row.get("SIS Login ID", "")
        test = row["Student"] == TEST_STUDENT   # its SIS Login ID is a hash Canvas made, not a login
        learner = login if USABLE.match(login) and not test else row["ID"]
        if learner in roster.learners:
            raise ValueError(f"{path}, row {number}: a second student with the id {learner!r}")
        roster.learners[learner] = {"learner": learner, "name": row["Student"], "canvas_id": row["ID"],
                                    "sis_user_id": row.get("SIS User ID", ""), "sis_login_id": login,
                                    "section": row.get("Section", ""), "canvas_assignment": ours,
                                    "canvas_points": points}
        roster.by_key[row["ID"]] = learner
        roster.names[learner] = row["Student"]
        if test:   # Student View's: in the class only when the instructor handed in as it
            roster.learners[learner][ONLY_IF_HANDED_IN] = "yes"
    if not roster.learners:
        raise ValueError(f"{path}: Canvas's gradebook export with no student in it")
    return roster


ROSTER = "the gradebook's export (Grades, Export, Export Entire Gradebook)"
