"""Moodle: the assignment's "Download all submissions" and its grading worksheet.

Moodle names each learner's files ``Full Name_participantid_assignsubmission_file_``:
as a folder of them, or (without "Download submissions in folders") as each file with
that prefix. The participant id is the worksheet's: its ``Identifier`` column says
"Participant 12345". The worksheet (Grading action, "Download grading worksheet") gives
the roster and the times: Identifier, Full name, Email address (when the site shows it),
Status, Grade, Maximum grade, Grade can be changed, Last modified (submission), Last
modified (grade), Feedback comments. Moodle writes its times in the course's time zone,
without saying which, in words ("Monday, 2 December 2026, 11:59 PM"): they are read in
the zone given (``--timezone``, else the deadline's). A learner's id is their email
address, or ``participant-N`` where the worksheet has none."""

from __future__ import annotations

import csv
import datetime as dt
import re
from pathlib import Path

from grader.intake.lms_download import Owned, Roster

NAME = "Moodle"
# Moodle 4.1 and later name the folder without the final "_"
PREFIX = re.compile(r"^(?P<name>.*)_(?P<participant>\d+)_assignsubmission_(?P<plugin>[a-z]+)(?:_(?P<rest>.*))?$", re.S)
COPY = re.compile(r" \((\d+)\)(\.[^.]*)?$")   # the file picker's name for a second upload of one name
PARTICIPANT = re.compile(r"^Participant (\d+)$")
FORMATS = ("%A, %d %B %Y, %I:%M %p", "%A, %d %B %Y, %I:%M:%S %p", "%d %B %Y, %I:%M %p", "%A, %d %B %Y, %H:%M")
NOT_SUBMITTED = {"", "-"}


def owner(parts: tuple[str, ...]) -> Owned | None:
    for at, part in enumerate(parts):
        found = PREFIX.match(part)
        if found is None:
            continue
        inner = parts[at + 1:] if not found["rest"] else (found["rest"], *parts[at + 1:])
        copy = COPY.search(inner[-1]) if inner else None
        return Owned(found["participant"], found["name"], inner, order=int(copy[1]) if copy else 0) if inner else None
    return None


def moodle_time(text: str, zone: dt.tzinfo) -> dt.datetime | None:
    """A time as Moodle's worksheet writes it, in ``zone`` (None: no submission)."""
    text = " ".join(text.split())
    if text in NOT_SUBMITTED:
        return None
    for form in FORMATS:
        try:
            return dt.datetime.strptime(text, form).replace(tzinfo=zone)
        except ValueError:
            pass
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a time as Moodle writes it in English (for example "
                         "'Monday, 2 December 2026, 11:59 PM'); download the worksheet with English as your "
                         "language") from None
    return when if when.tzinfo else when.replace(tzinfo=zone)


def read_roster(path: Path, zone: dt.tzinfo) -> Roster:
    with path.open(newline="", encoding="utf-8-sig") as file:
        reader = csv.DictReader(file)
        head = [c.strip() for c in reader.fieldnames or []]
        rows = [{(k or "").strip(): (v or "").strip() for k, v in row.items()} for row in reader]
    if "Identifier" not in head or "Full name" not in head:
        raise ValueError(f"{path}: not Moodle's grading worksheet (its header has no Identifier and Full name "
                         f"columns; it has {', '.join(head[:8]) or 'nothing'})")
    roster = Roster({}, {}, {}, source="Moodle's grading worksheet")
    for number, row in enumerate(rows, start=2):
        found = PARTICIPANT.match(row["Identifier"])
        if not found:
            if any(row.values()):
                raise ValueError(f"{path}, row {number}: Identifier {row['Identifier']!r} is not 'Participant N'")
            continue
        email = row.get("Email address", "")
        learner = email if email and "/" not in email and not email.startswith(".") else f"participant-{found[1]}"
        if learner in roster.learners:
            raise ValueError(f"{path}, row {number}: a second participant with the id {learner!r}")
        roster.learners[learner] = {**row, "learner": learner, "email": email, "identifier": row["Identifier"]}
        roster.by_key[found[1]] = learner
        roster.names[learner] = row["Full name"]
        try:
            when = moodle_time(row.get("Last modified (submission)", ""), zone)
        except ValueError as error:
            raise ValueError(f"{path}, row {number}: Last modified (submission) {error}") from None
        if when is not None:
            roster.times[learner] = when
    if not roster.learners:
        raise ValueError(f"{path}: Moodle's grading worksheet with no participant in it")
    return roster


ROSTER = "the assignment's grading worksheet (View all submissions, Download grading worksheet)"
