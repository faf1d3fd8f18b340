"""Downloads as the LMSs make them, for the tests: Canvas's "Download Submissions" zip
and gradebook export, Moodle's "Download all submissions" and grading worksheet, in their
real file naming and CSV layout (header rows, quoting, Moodle's English dates)."""

import csv
import io
import pathlib
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def reference_zip() -> bytes:
    """The reference's hand-in, as `make handin` zips it: minitorch/ at the zip's root."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted((ROOT / "solutions" / "minitorch").rglob("*.py")):
            if "__pycache__" not in path.parts:
                archive.write(path, "minitorch/" + path.relative_to(ROOT / "solutions" / "minitorch").as_posix())
    return data.getvalue()


def write_zip(path: pathlib.Path, members: dict[str, bytes]) -> pathlib.Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def canvas_gradebook(path: pathlib.Path, students: list[tuple[str, str, str, str]], manual_posting: bool = True) -> None:
    """Canvas's gradebook export: students as (sortable name, user id, SIS user id, SIS login)."""
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Homework 1 (88001)", "minitorch (88002)",
             "Assignments Current Score", "Current Score", "Final Score"]]
    if manual_posting:
        rows.append(["", "", "", "", "", "", "Manual Posting", "", "", ""])
    rows.append(["    Points Possible", "", "", "", "", "10.00", "100.00", "(read only)", "(read only)", "(read only)"])
    rows += [[name, uid, sis, login, "ML 101 Fall 2026", "9.00", "", "90.00", "90.00", "9.00"]
             for name, uid, sis, login in students]
    rows.append(["Student, Test", "10999", "", "", "ML 101 Fall 2026", "", "", "", "", ""])
    with path.open("w", newline="", encoding="utf-8") as file:
        csv.writer(file, quoting=csv.QUOTE_MINIMAL).writerows(rows)


WORKSHEET = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum grade", "Grade can be changed",
             "Last modified (submission)", "Last modified (grade)", "Feedback comments"]


def moodle_worksheet(path: pathlib.Path, participants: list[tuple[str, str, str, str]]) -> None:
    """Moodle's grading worksheet: participants as (participant id, full name, email, submitted
    as Moodle writes it, or "-")."""
    rows = [WORKSHEET]
    rows += [[f"Participant {pid}", name, email, "Submitted for grading" if when != "-" else "No submission", "",
              "100.00", "Yes", when, "-", ""] for pid, name, email, when in participants]
    with path.open("w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows(rows)
