"""A run of ``autograde`` over a term: which hand-in of each learner counts, which must be
graded (new content or new grading inputs), which can be recorded again from the verdicts
kept (a new deadline), and which need nothing but the corrections and the late policy
applied again (``reused``). ``term.json`` in the output folder holds what the gradebook
last recorded for each learner (``recorded``) and the scores the grader set there itself
(``written``), so that any other manual score is a grade given in formgrader."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import pathlib
from dataclasses import dataclass, field, replace

import grader.files as files
from grader.class_grading.jobs import GradeJob, finish, page_key
from grader.intake.unpack import printable
from grader.lateness import LatePolicy
from grader.results import LearnerResult
from grader.settings import Settings
from grader.term import graded, kept
from grader.term.faults import point
from grader.term.sheets import Correction, Extension
from grader.term.times import Time

FORMGRADER = "a manual grade given in nbgrader's formgrader"


@dataclass
class Learner:
    learner: str
    sid: str
    late: LatePolicy                       # with their own deadline
    corrections: tuple[tuple[str, float, str], ...]
    entries: list[kept.Kept]               # the kept hand-ins that may count
    notes: tuple[str, ...] = ()
    current: pathlib.Path | None = None    # the hand-in in the submissions folder now, if any
    current_content: str = ""
    kept: int = 0                          # how many hand-ins of theirs are kept


@dataclass
class Term:
    out: pathlib.Path
    counts: str = "last-before-deadline"
    recorded: dict[str, str] = field(default_factory=dict)     # sid -> what the gradebook holds
    written: dict[str, dict[str, float]] = field(default_factory=dict)   # sid -> scores the grader set
    settled: dict[str, str] = field(default_factory=dict)      # sid -> the deadline and scores last settled
    last: dict[str, dict] = field(default_factory=dict)        # sid -> what counted last run, and why
    late: list = field(default_factory=list)                   # the class's deadline and rate, last run
    rerecord: str = "its gradebook record missing"             # why a learner not in ``recorded`` is recorded

    @classmethod
    def open(cls, out: pathlib.Path, counts: str | None) -> Term:
        path = out / files.TERM
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        term = cls(out, data.get("counts", "last-before-deadline"), data.get("recorded", {}), data.get("written", {}),
                   data.get("settled", {}), data.get("last", {}), data.get("late", []))
        term.counts = counts or term.counts
        return term

    def save(self, logged: bool = True) -> None:
        """Write term.json whole or not at all. Until the run's changes are logged
        (``logged`` False) it keeps what counted at the last run that logged (``last``),
        so that a run cut short before it logged leaves the next run the same reasons."""
        last = self.last if logged else json.loads((self.out / files.TERM).read_text(encoding="utf-8")).get(
            "last", {}) if (self.out / files.TERM).is_file() else {}
        part = (self.out / files.TERM).with_suffix(".part")
        part.write_text(json.dumps({"counts": self.counts, "recorded": self.recorded, "written": self.written,
                                    "settled": self.settled, "last": last, "late": self.late}, indent=1,
                                   sort_keys=True), encoding="utf-8")
        point("term.json: written, not yet in place")
        os.replace(part, self.out / files.TERM)

    def late_changed(self, late: LatePolicy) -> str | None:
        """A warning when this run's deadline or rate differ from the last run's (a flag
        forgotten changes every learner's lateness); remembers this run's."""
        now = [late.deadline.isoformat() if late.deadline else None, late.percent_per_day]
        before, self.late = self.late, now
        if not before or before == now:
            return None
        return (f"this run's deadline and late penalty ({now[0] or 'none'}, {now[1]:g}% a day) differ from the last "
                f"run's ({before[0] or 'none'}, {before[1]:g}% a day): every learner's lateness follows this run's; "
                "give the same --deadline and --late-penalty each run to keep them")


def corrections_of(listed: list[Correction], manual: dict[str, dict[str, float]], term: Term,
                   sids: dict[str, str], comments: dict[str, dict[str, str]] | None = None) \
        -> dict[str, tuple[tuple[str, float, str], ...]]:
    """Each learner's corrections: ``corrections.csv``'s rows, then the formgrader's manual
    grades (a manual score the grader did not set itself) for the tasks no row names, with
    the comment typed in formgrader as their reason (``comments``: sid -> task -> text)."""
    found: dict[str, dict[str, tuple[float, str]]] = {}
    for c in listed:
        found.setdefault(c.learner, {})[c.task] = (c.points, f"correction: {c.reason}")
    for learner, sid in sids.items():
        for task, points in manual.get(sid, {}).items():
            if term.written.get(sid, {}).get(task) != points and task not in found.get(learner, {}):
                said = (comments or {}).get(sid, {}).get(task)
                found.setdefault(learner, {})[task] = (points, f"{FORMGRADER}: {said}" if said else FORMGRADER)
    return {learner: tuple((t, p, r) for t, (p, r) in sorted(rows.items())) for learner, rows in found.items()}


def deadline_of(learner: str, late: LatePolicy, extensions: dict[str, Extension]) -> tuple[LatePolicy, str]:
    """The learner's late policy (their extension's deadline, else the class's) and the
    feedback's line about it."""
    if learner in extensions:
        ext = extensions[learner]
        return late.until(ext.deadline), f"your deadline: {ext.deadline:%Y-%m-%d %H:%M %Z} (an extension: {ext.reason})"
    if late.deadline is None:
        return late, "no deadline was set"
    return late, f"your deadline: {late.deadline:%Y-%m-%d %H:%M %Z} (the class's)"


def counted_line(entry: kept.Kept, counts: str, seen: int) -> str:
    when = f"handed in {entry.at[:16].replace('T', ' ')} UTC ({entry.source})" if entry.at else "its time not known"
    rule = {"last": "the last of all", "best": "the best", "last-before-deadline": "the last before your deadline"}
    return (f"graded: your hand-in {printable(entry.name)} {when}, content {entry.content[:8]}; {rule[counts]} of "
            f"{seen} kept counts")


def job_for(base: GradeJob, who: Learner, entry: kept.Kept, counts: str, about: str, out: pathlib.Path) -> GradeJob:
    """The job of ``who``'s hand-in ``entry``: the hand-in itself when it is the one in the
    submissions folder now, else its kept copy."""
    path = who.current if who.current is not None and entry.content == who.current_content else out / entry.file
    return replace(base, path=str(path), late=who.late, handed_in=entry.when, corrections=who.corrections,
                   about=(about, counted_line(entry, counts, who.kept)), notes=who.notes,
                   verdicts=str(graded.path(out, entry.content, base.settings)))


def stamp(job: GradeJob, content: str) -> str:
    """What the gradebook holds for a learner once ``job`` is recorded."""
    text = json.dumps([content, graded.name_of(job.verdicts), job.handed_in.isoformat() if job.handed_in else None])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def finished(job: GradeJob) -> LearnerResult | None:
    """A learner's result from the verdicts kept, with the corrections and the late policy."""
    result = graded.load(pathlib.Path(job.verdicts))
    return None if result is None else finish(job, result)


def reuse(jobs: list[GradeJob], grading: list[GradeJob] | None = None,
          after: list[LearnerResult] | None = None) -> list[LearnerResult]:
    """The results of learners whose verdicts and gradebook record stand, with the corrections
    and late policy applied again, and their feedback written again. ``grading``: the jobs
    graded meanwhile by other processes: the plots and the gradebook are imported too, and a learner whose kept
    verdicts one of them writes (a hand-in the same as one graded again) is left for later;
    ``after``: the results taken so before, not taken again."""
    from grader.outputs import feedback, publish
    if grading is not None:
        publish.ahead()
    if grading:   # recorded in the gradebook next: nbgrader's imports (a second) while they are graded
        from grader.gradebook import nbgrader_api
        nbgrader_api()
    writing, taken = {job.verdicts for job in grading or ()}, {result.learner for result in after or ()}
    results = []
    for job in jobs:
        result = None if job.verdicts in writing or job.learner in taken else finished(job)
        if result is not None:
            feedback.write(result, pathlib.Path(job.out) / files.FEEDBACK / f"{job.sid}.html", job.about, page_key(job))
            results.append(result)
    return results


def best(jobs: list[GradeJob]) -> GradeJob:
    """The job whose hand-in has the highest final (the later of equals)."""
    scored = [(r.final if (r := finished(j)) is not None else -1.0, n, j) for n, j in enumerate(jobs)]
    return max(scored, key=lambda s: (s[0], s[1]))[2]


def time_of(times: dict[str, Time], learner: str) -> tuple[dt.datetime | None, str]:
    t = times.get(learner)
    return (t.at, t.source) if t else (None, "nothing")


__all__ = ["Learner", "Term", "Settings", "best", "corrections_of", "counted_line", "deadline_of", "finished",
           "job_for", "reuse", "stamp", "time_of"]
