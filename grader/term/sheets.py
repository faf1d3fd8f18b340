"""The files the instructor keeps in the output folder, read strictly: a row that is wrong
(an unknown learner or task, points above the task's maximum, a malformed date, a second
row for the same thing) stops the run before anything is written, with the file, the row
and the problem named (``SheetError``).

* ``submitted.csv``: ``learner, submitted_at`` (ISO 8601), such as an LMS's export, and
  optionally ``file`` or ``content``: one row per hand-in, each matched to its hand-in by
  its file name (as in the submissions folder or the LMS's download) or the start of its
  content hash (``hand-ins/<id>/index.json``, at least 8 characters); a row with neither
  is the learner's hand-in whichever it is (``term/times.py``);
* ``corrections.csv``: ``learner, task, points, reason``: the task's new score;
* ``extensions.csv``: ``learner``, then ``deadline`` (ISO 8601) or ``days`` (added to the
  class's deadline), then ``reason``.
"""

from __future__ import annotations

import csv
import datetime as dt
import pathlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import grader.files as files
from grader.tasks import POINTS


class SheetError(ValueError):
    """A file the instructor keeps has a row the grader cannot apply."""


@dataclass(frozen=True)
class Correction:
    learner: str
    task: str
    points: float
    reason: str


@dataclass(frozen=True)
class Stated:
    """A hand-in's time as the instructor or the LMS states it."""
    learner: str
    at: dt.datetime
    file: str = ""         # the hand-in's file name; empty: any
    content: str = ""      # the start of its content hash; empty: any
    source: str = files.SUBMITTED

    def matches(self, names: Iterable[str], content: Callable[[], str]) -> bool:
        return (not self.file or self.file in names) and (not self.content or content().startswith(self.content))


@dataclass(frozen=True)
class Extension:
    learner: str
    deadline: dt.datetime
    reason: str


def when(text: str) -> dt.datetime:
    """An ISO 8601 date and time, UTC unless it says otherwise."""
    value = dt.datetime.fromisoformat(text.strip())
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def _rows(path: pathlib.Path, columns: Iterable[str]) -> list[tuple[int, dict[str, str]]]:
    """The rows of ``path`` (none when it does not exist) with the row number a
    spreadsheet shows (the header is row 1)."""
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8-sig") as file:
        reader = csv.DictReader(file)
        head = [c.strip() for c in reader.fieldnames or []]
        lacking = [c for c in columns if c not in head]
        if lacking:
            raise SheetError(f"{path}, row 1: the header lacks the column(s) {', '.join(lacking)} "
                             f"(it has {', '.join(head) or 'nothing'})")
        return [(n, {(k or "").strip(): (v or "").strip() for k, v in row.items()})
                for n, row in enumerate(reader, start=2) if any((v or "").strip() for v in row.values())]


UNKNOWN = "not in the roster, and no hand-in of theirs was ever seen"


def _read(path: pathlib.Path, columns: list[str], learners: set[str], key: Callable[[dict], tuple],
          parse: Callable[[dict], object], unknown: str = UNKNOWN) -> list:
    seen: dict[tuple, int] = {}
    found = []
    for number, row in _rows(path, columns):
        where = f"{path}, row {number}"
        if row["learner"] not in learners:
            raise SheetError(f"{where}: unknown learner {row['learner']!r} ({unknown})")
        k = key(row)
        if k in seen:
            raise SheetError(f"{where}: a second row for {', '.join(k)} (the first is row {seen[k]}); keep one")
        seen[k] = number
        try:
            found.append(parse(row))
        except ValueError as error:
            raise SheetError(f"{where}: {error}") from None
    return found


def _date(text: str, column: str) -> dt.datetime:
    try:
        return when(text)
    except ValueError:
        raise ValueError(f"{column} {text!r} is not an ISO 8601 date and time (for example "
                         "2026-12-01T23:59:00+00:00)") from None


def submitted(out: pathlib.Path, learners: set[str]) -> dict[str, list[Stated]]:
    """Each learner's stated hand-in times, one row per hand-in (``Stated``)."""
    def parse(row: dict) -> Stated:
        content = row.get("content", "").lower()
        if content and not (len(content) >= 8 and all(c in "0123456789abcdef" for c in content)):
            raise ValueError(f"content {row['content']!r} is not the start of a content hash (8 or more of the "
                             "hex digits hand-ins/<id>/index.json lists)")
        return Stated(row["learner"], _date(row["submitted_at"], "submitted_at"), row.get("file", ""), content)
    rows = _read(out / files.SUBMITTED, ["learner", "submitted_at"], learners,
                 lambda r: tuple(x for x in (r["learner"], r.get("file", ""), r.get("content", "")) if x), parse)
    found: dict[str, list[Stated]] = {}
    for row in rows:
        found.setdefault(row.learner, []).append(row)
    return found


def corrections(out: pathlib.Path, learners: set[str], unknown: str = UNKNOWN) -> list[Correction]:
    """``learners``: the roster's when there is one (a learner with no hand-in may be
    corrected: work handed in on paper), else every learner seen."""
    def parse(row: dict) -> Correction:
        if row["task"] not in POINTS:
            raise ValueError(f"unknown task {row['task']!r} (the course's tasks are {', '.join(POINTS)})")
        try:
            points = float(row["points"])
        except ValueError:
            raise ValueError(f"points {row['points']!r} is not a number") from None
        if not 0 <= points <= POINTS[row["task"]]:
            raise ValueError(f"points {points:g} for task {row['task']}: it is worth 0 to {POINTS[row['task']]:g}")
        if not row["reason"]:
            raise ValueError("no reason: the learner's feedback shows it beside the corrected score")
        return Correction(row["learner"], row["task"], points, row["reason"])
    return _read(out / files.CORRECTIONS, ["learner", "task", "points", "reason"], learners,
                 lambda r: (r["learner"], r["task"]), parse, unknown)


def extensions(out: pathlib.Path, learners: set[str], deadline: dt.datetime | None) -> dict[str, Extension]:
    def parse(row: dict) -> Extension:
        own, days = row.get("deadline", ""), row.get("days", "")
        if bool(own) == bool(days):
            raise ValueError("give either a deadline or a number of days, not both and not neither")
        if own:
            return Extension(row["learner"], _date(own, "deadline"), row["reason"])
        try:
            extra = float(days)
        except ValueError:
            raise ValueError(f"days {days!r} is not a number") from None
        if not extra > 0:   # NaN too
            raise ValueError(f"days {days!r}: an extension adds a positive number of days to the class's deadline")
        if deadline is None:
            raise ValueError("days needs the class's deadline (--deadline) to count from")
        return Extension(row["learner"], deadline + dt.timedelta(days=extra), row["reason"])
    path = out / files.EXTENSIONS
    if path.is_file():
        with path.open(newline="", encoding="utf-8-sig") as file:
            head = {c.strip() for c in next(csv.reader(file), [])}
        if not {"deadline", "days"} & head:
            raise SheetError(f"{path}, row 1: the header needs a deadline or a days column")
    return {e.learner: e for e in _read(path, ["learner", "reason"], learners, lambda r: (r["learner"],), parse)}
