"""When each side of a pair handed in, so that the instructor can tell the copier from the
copied: each hand-in's time as the term reads it (grader/term/times.py: ``submitted.csv``
in the output folder, nbgrader's ``timestamp.txt``, a platform's metadata, else the file's
own time), and the hand-ins the grader has kept of each learner (``hand-ins/<id>/``, when
the class is graded as a term)."""

from __future__ import annotations

import csv
import datetime as dt
import pathlib
from dataclasses import dataclass, field

import grader.files as files
from grader.intake.submissions import Found
from grader.term import kept, sheets
from grader.term.times import hand_in_times


@dataclass(frozen=True)
class HandedIn:
    at: dt.datetime | None                 # None: not known
    source: str                            # where it was read
    kept: list[kept.Kept] = field(default_factory=list)   # every hand-in of theirs the grader kept, in order

    def shown(self) -> str:
        return stamp(self.at) if self.at else "time not known"


def stamp(at: dt.datetime) -> str:
    return at.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def handed_in(found: list[Found], out: pathlib.Path) -> tuple[dict[str, HandedIn], list[str]]:
    """Each learner's hand-in time and kept hand-ins; the warnings to print."""
    warnings = []
    try:   # a roster's learners with no hand-in here may be listed too
        given = sheets.submitted(out, {f.learner for f in found} | _listed(out / files.SUBMITTED))
    except (sheets.SheetError, OSError) as error:
        given = {}
        warnings.append(f"hand-in times: {error}; the other sources were used")
    times, said = hand_in_times({f.learner: f.path for f in found}, given)
    warnings += said
    out_kept = {}
    for f in found:
        try:
            out_kept[f.learner] = sorted(kept.entries(out, f.sid), key=lambda k: (k.at or "", k.file))
        except (OSError, ValueError, TypeError):
            out_kept[f.learner] = []
    return {f.learner: HandedIn(times[f.learner].at, times[f.learner].source, out_kept[f.learner])
            for f in found}, warnings


def _listed(path: pathlib.Path) -> set[str]:
    try:
        with path.open(newline="", encoding="utf-8-sig") as file:
            return {(row.get("learner") or "").strip() for row in csv.DictReader(file)}
    except (OSError, UnicodeDecodeError, csv.Error):
        return set()


def first(a: HandedIn | None, b: HandedIn | None, name_a: str, name_b: str) -> str:
    """Who of the two handed in first, and by how long, or why that is not known."""
    if a is None or b is None:
        return ""    # one side is the reference
    if a.at is None or b.at is None:
        return "not known (no time for " + " and ".join(n for n, h in ((name_a, a), (name_b, b)) if h.at is None) + ")"
    if a.at == b.at:
        return "at the same time"
    early, late = (name_a, name_b) if a.at < b.at else (name_b, name_a)
    return f"{early}, {_span(abs(b.at - a.at))} before {late}"


def _span(delta: dt.timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    if minutes < 60:
        return f"{max(minutes, 0)} min"
    hours = minutes // 60
    return f"{hours} h {minutes % 60} min" if hours < 48 else f"{hours // 24} days {hours % 24} h"
