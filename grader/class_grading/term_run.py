"""One ``autograde`` run over the term's record: read what the instructor keeps (refusing
a wrong row before anything is written), keep each hand-in, choose the one that counts,
grade only what changed, settle deadlines and corrections in the gradebook, and say why
each score changed (``term/log.py``)."""

from __future__ import annotations

import csv
import hashlib
import json
import pathlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import grader.files as files
from grader.class_grading.jobs import CRASHED, GradeJob
from grader.class_grading.plan import Learner, Term, best, corrections_of, deadline_of, job_for, stamp
from grader.gradebook.course import Course
from grader.gradebook.term import settle_all as settle_in_gradebook
from grader.intake.submissions import Found
from grader.lateness import LatePolicy, lateness
from grader.outputs.words import plural
from grader.results import Failure, LearnerResult, failed_everywhere
from grader.settings import Settings
from grader.term import graded, kept, sheets
from grader.term.log import GENERIC
from grader.term.times import hand_in_times

Runner = Callable[[list[GradeJob]], list[LearnerResult]]


@dataclass
class Sheets:
    submitted: dict
    corrections: list
    extensions: dict
    comments: dict = field(default_factory=dict)   # formgrader's, on its manual grades: sid -> task -> text
    names: dict = field(default_factory=dict)   # learner -> their files' names in an LMS's download
    lms: str = ""                                # the LMS whose download the hand-ins come from

    def from_lms(self, lms: str, times: dict, source: str, names: dict) -> None:
        """The LMS's own times, after submitted.csv's rows (which win)."""
        for learner, at in times.items():
            self.submitted.setdefault(learner, []).append(sheets.Stated(learner, at, source=source))
        self.lms, self.names = lms, names


def known_learners(out: pathlib.Path) -> dict[str, str]:
    """learner -> safe id of every learner the course has recorded before."""
    path = out / files.COURSE / "learners.csv"
    if not path.is_file():
        return {}
    with path.open(newline="", encoding="utf-8") as file:
        return {learner: sid for sid, learner in csv.reader(file)}


def read_sheets(out: pathlib.Path, found: list[Found], roster: dict | None, late: LatePolicy) -> Sheets:
    """The instructor's files, checked against every learner known (raises ``SheetError``)."""
    known = {f.learner for f in found} | set(roster or {}) | set(known_learners(out))
    corrected = sheets.corrections(out, set(roster), "not on the roster") if roster is not None \
        else sheets.corrections(out, known)
    return Sheets(sheets.submitted(out, known), corrected, sheets.extensions(out, known, late.deadline))


@dataclass
class Run:
    jobs: list[GradeJob] = field(default_factory=list)       # to grade or record again, in the pool or queue
    reused: list[GradeJob] = field(default_factory=list)     # verdicts and gradebook unchanged
    why: dict[str, str] = field(default_factory=dict)        # learner -> why their score may change
    warnings: list[str] = field(default_factory=list)
    graded: int = 0     # hand-ins graded while planning (every kept one, when the best counts)


def plan(term: Term, manual: dict, found: list[Found], given: Sheets, base: dict[str, GradeJob], template: GradeJob,
         late: LatePolicy, every: bool, only: set[str] | None, grade: Runner) -> Run:
    """What this run does for each learner (``every``: every learner ever seen, not only
    those in ``found``, as an unsharded run; ``manual``: the gradebook's manual scores,
    read before the course was brought up to date)."""
    out, run = term.out, Run()
    times, run.warnings = hand_in_times({f.learner: f.path for f in found}, given.submitted, given.names, given.lms)
    if every and (changed := term.late_changed(late)):
        run.warnings.append(changed)
    sids = {**(known_learners(out) if every else {}), **{f.learner: f.sid for f in found}}
    here = {f.learner: f for f in found}
    seen = {f.learner: {k.content for k in kept.entries(out, f.sid)} for f in found}   # kept before this run
    now = {f.learner: kept.keep(out, f.sid, f.path, times[f.learner].at, times[f.learner].source) for f in found}
    kept.save_marks(out)   # the hashes just taken, for the next run
    corrections = corrections_of(given.corrections, manual, term, sids, given.comments)
    for learner, sid in sorted(sids.items()):
        entries = kept.entries(out, sid)
        if learner in now and now[learner] not in entries:   # not kept (unreadable): graded as it is
            entries.append(now[learner])
        if not entries:
            continue
        policy, about = deadline_of(learner, late, given.extensions)
        who = Learner(learner, sid, policy, corrections.get(learner, ()), kept.counting(entries, term.counts,
                      policy.deadline), here[learner].notes if learner in here else (), kept=len(entries))
        if learner in here:
            who.current, who.current_content = here[learner].path, now[learner].content
        own = base.get(learner) or replace(template, learner=learner, sid=sid)
        candidates = [job_for(own, who, e, term.counts, about, out) for e in who.entries]
        contents = {c.verdicts: e.content for c, e in zip(candidates, who.entries)}
        if only is not None and learner not in only and sid in term.last:   # left as it was
            candidates = [replace(candidates[-1], verdicts=str(graded.at(out, term.last[sid]["verdicts"])))]
            contents[candidates[0].verdicts] = term.last[sid]["content"]
        elif only is not None and learner in only:
            for c in candidates:
                pathlib.Path(c.verdicts).unlink(missing_ok=True)   # graded again, as asked
        if term.counts == "best":
            ungraded = [replace(c, gradebook=False) for c in candidates if not pathlib.Path(c.verdicts).exists()]
            grade(ungraded)
            run.graded += len(ungraded)
            job = best(candidates)
        else:
            job = candidates[-1]
        content = contents[job.verdicts]
        counted = next((e for e in who.entries if e.content == content), who.entries[-1])
        fresh = content not in term.last.get(sid, {}).get("seen", seen.get(learner, ()))
        run.why[learner] = _why(term.last.get(sid), content, job, only, fresh) + lateness_of(job, counted)
        term.last[sid] = {"content": content, "verdicts": graded.name_of(job.verdicts), "deadline":
                          str(job.late.deadline), "corrections": [list(c) for c in job.corrections],
                          "at": job.handed_in.isoformat() if job.handed_in else None,
                          "seen": [e.content for e in entries]}
        if pathlib.Path(job.verdicts).exists() and term.recorded.get(sid) == stamp(job, content):
            run.reused.append(job)
        else:
            if run.why[learner] == GENERIC:   # nothing of the learner's changed: the course's record did
                run.why[learner] = term.rerecord if sid not in term.recorded else "its gradebook record brought " \
                    "up to date (made by an older grader)"
            term.recorded[sid] = stamp(job, content)
            term.settled.pop(sid, None)
            run.jobs.append(job)
    return run


def _why(last: dict | None, content: str, job: GradeJob, only: set[str] | None, fresh: bool) -> str:
    """Why a learner's score may change this run, each reason true: a hand-in new to this run
    is "a new hand-in"; another kept hand-in counting says so, and what made it count."""
    if only is not None and job.learner in only:
        return "a regrade asked for (--only)"
    if last is None:
        return "a first hand-in"
    if last["content"] != content and fresh:
        return "a new hand-in"
    reasons = [f"another of the hand-ins kept counts now ({content[:8]}, in place of {last['content'][:8]})"] \
        if last["content"] != content else []
    if graded.name_of(last["verdicts"]) != graded.name_of(job.verdicts) and last["content"] == content:
        reasons.append("a grader change (its checks or limits)")
    if last["corrections"] != [list(c) for c in job.corrections]:
        reasons.append("; ".join(f"task {t}: {r}" for t, _, r in job.corrections) or "a correction withdrawn")
    if last["deadline"] != str(job.late.deadline):
        now = job.about[0].removeprefix("your deadline: ") if job.about else str(job.late.deadline)
        reasons.append(f"a new deadline: {now}")
    at = job.handed_in.isoformat() if job.handed_in else None
    if "at" in last and last["at"] != at:   # a time given in submitted.csv after the hand-in was kept
        reasons.append(f"its hand-in time: {at[:16].replace('T', ' ') + ' UTC' if at else 'not known'}")
    return "; ".join(reasons) or GENERIC


def lateness_of(job: GradeJob, counted: kept.Kept) -> str:
    """The late penalty of ``job``'s hand-in and where its time and deadline come from, for
    the log (nothing when it is not late)."""
    if job.handed_in is None or job.late.deadline is None:
        return ""
    days, percent = lateness(job.handed_in, job.late.deadline, job.late.percent_per_day)
    if not days:
        return ""
    whose = job.about[0].removeprefix("your deadline: ") if job.about else f"{job.late.deadline:%Y-%m-%d %H:%M %Z}"
    return (f"; late: handed in {job.handed_in:%Y-%m-%d %H:%M} UTC (time from {counted.source}), "
            f"{plural(days, 'day')} after the deadline {whose}: {percent:g}% off")


def on_paper(listed: list, roster: dict | None, results: list[LearnerResult], out: pathlib.Path,
             why: dict[str, str]) -> list[LearnerResult]:
    """The learners of the roster with no hand-in whom corrections.csv gives points (work
    handed in on paper, say): the corrected tasks, 0 elsewhere, a feedback page, the reasons."""
    from grader.intake.submissions import safe_id
    from grader.outputs import feedback
    graded = {r.learner for r in results}
    rows: dict[str, list] = {}
    for c in listed:
        if roster is not None and c.learner in roster and c.learner not in graded:
            rows.setdefault(c.learner, []).append(c)
    made = []
    for learner, corrections in sorted(rows.items()):
        result = LearnerResult(learner, safe_id(learner), problems=["no hand-in was graded: the scores are the "
                                                                    "instructor's corrections"])
        result.add(failed_everywhere("no hand-in", Failure.NO_PACKAGE))
        for c in corrections:
            result.correct(c.task, c.points, f"correction: {c.reason}")
        why[learner] = "; ".join(f"task {c.task}: correction: {c.reason}" for c in corrections) + " (no hand-in)"
        feedback.write(result, out / files.FEEDBACK / f"{result.sid}.html")
        made.append(result)
    return made


def settle_all(term: Term, course: Course, jobs: list[GradeJob]) -> None:
    """Each learner's own deadline and the instructor's scores into the gradebook, where
    they changed (a manual grade from formgrader is written back too, in case its stage was
    made again; ``written`` holds only corrections.csv's, to tell the two apart)."""
    due = []
    for job in jobs:
        ours = {t: p for t, p, r in job.corrections if r.startswith("correction:")}
        scores: dict[str, float | None] = {t: None for t in term.written.get(job.sid, {}) if t not in ours}
        scores.update({t: p for t, p, _ in job.corrections})
        key = hashlib.sha256(json.dumps([str(job.late.deadline), sorted(scores.items())]).encode()).hexdigest()[:16]
        if term.settled.get(job.sid) != key:
            due.append((job.sid, job.late.deadline, scores))
            term.settled[job.sid] = key
        term.written[job.sid] = ours
    settle_in_gradebook(course, due)   # in one gradebook session


def record_all(course: Course, jobs: list[GradeJob], results: list[LearnerResult]) -> None:
    """The gradebook records of the learners graded or recorded again in this run, written at
    once (each was laid out in the course by the process that graded it); a learner whose
    grading crashed keeps what the gradebook held."""
    when = {job.sid: job.handed_in for job in jobs if job.gradebook}
    course.record_all([(r, when[r.sid]) for r in results if r.sid in when and CRASHED not in r.problems])


def annotate_all(course: Course, jobs: list[GradeJob], results: list[LearnerResult]) -> None:
    """What each learner's feedback page says about their grade, where the course's own
    feedback shows it too (the hub's): which hand-in counted, their deadline, the notes
    about the hand-in, the instructor's scores and why."""
    about = {job.sid: job.about for job in jobs}
    for result in results:
        lines = [*about.get(result.sid, ()), *result.problems]
        lines += [f"Task {t}: {r.corrected:g} points, given by the instructor ({r.reason})"
                  for t, r in result.tasks.items() if r.corrected is not None]
        course.annotate(result.sid, lines)


__all__ = ["Run", "Settings", "annotate_all", "lateness_of", "on_paper", "plan", "read_sheets",
           "record_all", "settle_all"]
