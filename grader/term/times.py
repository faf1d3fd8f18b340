"""When each hand-in was handed in, from an explicit source, in this order:

1. ``submitted.csv`` in the output folder (``learner, submitted_at``; an LMS's export), the
   row for this hand-in (by its ``file`` name or ``content`` hash) or else the learner's row
   that names neither; then the LMS's own time (Moodle's grading worksheet, ``--from``);
2. nbgrader's ``timestamp.txt`` in the hand-in's folder (in an nbgrader ``submitted/<id>/``,
   the latest of its assignments');
3. the platform's metadata in the hand-in's folder (Gradescope's ``submission_metadata.json``,
   its ``created_at``).

Without any of these, the file's own time is used, with a printed warning, and never when
the file times of the hand-ins all fall within seconds of each other, as a copy (``cp``)
makes them: those hand-ins get no time, so no late penalty, and the warning says what to
give instead.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import pathlib
import stat
from dataclasses import dataclass

import grader.files as files
from grader.term.kept import content_of
from grader.term.sheets import Stated
from grader.term.sheets import when as parse_when

COPIED = 10.0   # seconds: file times closer than this were made by one copy, not by learners


@dataclass(frozen=True)
class Time:
    at: dt.datetime | None     # None: not known, so never late
    source: str                # where it was read


def _small_file(path: pathlib.Path) -> str | None:
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            return path.read_text(encoding="utf-8", errors="replace")[:4000]
    except OSError:
        pass
    return None


def explicit(path: pathlib.Path) -> Time | None:
    """The time a hand-in's own folder states: nbgrader's ``timestamp.txt`` or a platform's
    metadata (links are never followed)."""
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            return None
    except OSError:
        return None
    stamps = []   # nbgrader's: in the hand-in's folder, or in each assignment's of an nbgrader submitted/<id>/
    for stamp in [path / "timestamp.txt", *sorted(path.glob("*/timestamp.txt"))[:50]]:
        text = _small_file(stamp)
        if text is None:
            continue
        try:
            stamps.append(parse_when(text.strip()[:100].removesuffix(" UTC").replace(" ", "T")))
        except ValueError:
            pass
    if stamps:
        return Time(max(stamps), "timestamp.txt")
    text = _small_file(path / "submission_metadata.json")
    if text is not None:
        try:
            return Time(parse_when(str(json.loads(text)["created_at"])), "submission_metadata.json")
        except (ValueError, KeyError, TypeError):
            pass
    return None


def stated(learner: str, path: pathlib.Path, rows: list[Stated], names: list[str]) -> Stated | None:
    """The row of ``rows`` for this hand-in: one naming its file or content, else the one
    naming neither (None: no row is this hand-in's)."""
    content: list[str] = []

    def hashed() -> str:
        if not content:
            try:
                content.append(content_of(path))
            except OSError:
                content.append("")
        return content[0]
    named = [r for r in rows if (r.file or r.content) and r.matches([path.name, *names], hashed)]
    either = named or [r for r in rows if not r.file and not r.content]
    return either[0] if either else None


def hand_in_times(hand_ins: dict[str, pathlib.Path], given: dict[str, list[Stated]],
                  names: dict[str, list[str]] | None = None, lms: str = "") -> tuple[dict[str, Time], list[str]]:
    """Each learner's hand-in time, and the warnings to print (``names``: the file names a
    hand-in had before it reached the submissions folder, as in an LMS's download; ``lms``:
    the LMS whose download the hand-ins were staged from, whose file times are the staging's)."""
    times: dict[str, Time] = {}
    unstated: dict[str, float] = {}
    unmatched: list[str] = []
    for learner, path in hand_ins.items():
        rows = given.get(learner, [])
        row = stated(learner, path, rows, (names or {}).get(learner, []))
        if rows and row is None:
            unmatched.append(learner)
        if row is not None:
            times[learner] = Time(row.at, row.source)
        elif (explicit_time := explicit(path)) is not None:
            times[learner] = explicit_time
        else:
            try:
                unstated[learner] = os.lstat(path).st_mtime
            except OSError:
                times[learner] = Time(None, "nothing")
    warnings = []
    if lms and unstated:
        times.update((learner, Time(None, "nothing")) for learner in unstated)
        warnings.append(f"{lms}'s download gives no time for {_names(unstated)}: no late penalty for them; give "
                        f"their times in {files.SUBMITTED} (learner, submitted_at, and the file's name in the download)")
    elif len(unstated) > 1 and max(unstated.values()) - min(unstated.values()) < COPIED:
        times.update((learner, Time(None, "nothing")) for learner in unstated)
        warnings.append(f"{len(unstated)} hand-in(s) have no stated time and their file times all fall within "
                        f"{COPIED:g} s of each other, as a copy makes them: no late penalty for "
                        f"{_names(unstated)}; give their times in {files.SUBMITTED} (learner, submitted_at)")
    elif unstated:
        times.update((learner, Time(dt.datetime.fromtimestamp(mtime, dt.UTC), "file time"))
                     for learner, mtime in unstated.items())
        warnings.append(f"late penalty from the file's own time for {_names(unstated)}: no {files.SUBMITTED}, "
                        "timestamp.txt or platform metadata gives their time; a copy or a download changes file times")
    if unmatched:
        warnings.append(f"{files.SUBMITTED} has rows for {_names(dict.fromkeys(unmatched))}, but none for the hand-in "
                        "they have now (its file name or content hash is not among them): its time is not from there")
    return times, warnings


def _names(learners: dict) -> str:
    shown = sorted(learners)
    return ", ".join(shown[:10]) + (f" and {len(shown) - 10} more" if len(shown) > 10 else "")
