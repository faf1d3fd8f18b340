"""``python -m grader autograde SUBMISSIONS``: grade a class, one hand-in per entry of the
folder (or of an LMS's bulk download, ``source``: staged one hand-in per learner of its
roster, ``intake/lms_download.py``), on this machine (``jobs`` processes), in shards
(``shard``) or on a queue (``broker``), and write grades.csv, the feedback, the report and the nbgrader course. Over
a term, into the same output folder: every hand-in is kept, only what changed is graded,
the instructor's extensions and corrections apply, and every change of a score is logged
(``class_grading/term_run.py``)."""

from __future__ import annotations

import pathlib
import sys
import time
from collections import Counter
from dataclasses import replace

import grader.files as files
from grader.gradebook.course import Course
from grader.intake.submissions import Shard
from grader.lateness import ON_TIME, LatePolicy
from grader.results import LearnerResult
from grader.settings import Settings


def main(*, submissions: pathlib.Path, out: pathlib.Path, settings: Settings, jobs: int = 1,
         roster: pathlib.Path | None = None, late: LatePolicy = ON_TIME, shard: Shard | None = None,
         broker: str | None = None, lease: float | None = None, counts: str | None = None,
         only: list[str] | None = None, source: str | None = None, zone: str | None = None) -> int:
    from grader.class_grading.pool import cool
    from grader.term.kept import hash_ahead
    from grader.term.lock import Busy, Lock
    folder, out = submissions.resolve(), out.resolve()
    if not source and not folder.is_dir():
        return _fail(f"{folder} is not a folder of submissions")
    if folder.is_relative_to(out) or out.is_relative_to(folder):
        return _fail(f"the {'download' if source else 'submissions'} ({folder}) and the output ({out}) overlap: "
                     "grading would change what it reads; choose another --out")
    lock = Lock(out, "autograde")   # one run at a time: a second one refuses at once, having changed nothing
    beside: list = []   # the copying check's process, ended with the run
    try:
        if out.is_dir() or source:   # (a download is staged in OUT)
            lock.acquire()
        return _graded(folder, out, settings, jobs, roster, late, shard, broker, lease, counts, only, source, zone,
                       lock, beside)
    except Busy as error:
        return _fail(str(error))
    finally:
        cool()   # grading processes started ahead and not used
        hash_ahead(())   # none left for a later run in this process
        for process in beside:
            process.stop()
        lock.release()


def _graded(folder: pathlib.Path, out: pathlib.Path, settings: Settings, jobs: int, roster: pathlib.Path | None,
            late: LatePolicy, shard: Shard | None, broker: str | None, lease: float | None, counts: str | None,
            only: list[str] | None, source: str | None, zone: str | None, lock, beside: list) -> int:
    from grader.boundary.confinement import landlock_abi
    from grader.class_grading import term_run
    from grader.class_grading.jobs import GradeJob, crashed
    from grader.class_grading.plan import Term, reuse
    from grader.class_grading.pool import grade_class, warm_up
    from grader.gradebook.term import manual_comments, manual_scores
    from grader.intake.lms_download import staged
    from grader.intake.submissions import find_learners, summary
    from grader.outputs.lms.registry import FILES, read_roster
    from grader.outputs.publish import Phases, Progress, absentees, plots_beside, write_all, write_part
    from grader.similarity import Beside
    from grader.term import kept, log
    from grader.term.faults import point
    from grader.term.sheets import SheetError
    clock = Phases()
    download = None
    if source:   # an LMS's download: staged in OUT, one hand-in per learner of its roster
        try:
            download = staged(source, folder, roster, zone, late.deadline, out / files.FROM_LMS)
        except (ValueError, OSError) as error:
            return _fail(str(error))
        folder = out / files.FROM_LMS
    if not folder.is_dir():
        return _fail(f"{folder} is not a folder of submissions")
    found, refused = find_learners(folder)
    if download:
        found = [replace(f, notes=f.notes + tuple(download.notes.get(f.learner, ()))) for f in found]
        refused += download.refused
    entries = len(found) + len(refused)
    if not shard:   # the copying check, forked first, hashes the hand-ins for itself, on the other core
        beside.append(Beside(list(found), out, jobs, folder, lock.fd))   # reads while the run sets up
        kept.hash_ahead((f.path for f in found), out)   # for the run's plan
    if not broker:
        warm_up(jobs)   # the grading processes start while the run sets up too
    if shard:
        found = shard.share(found)
    try:
        lms = download.roster.learners if download else read_roster(roster) if roster else None
        book = _course(folder, out, settings, late, found)
        late = book.late   # on the hub: the course's due date and rate, unless given here
        found = [replace(f, path=book.hand_in_at(f.path)) for f in found]
        given = term_run.read_sheets(out, found, lms, late)   # a wrong row stops here, before anything is written
        if download:
            given.from_lms(download.lms, download.roster.times, download.roster.source, download.names)
    except (ValueError, OSError) as error:
        return _fail(str(error) + (" (nothing was changed)" if isinstance(error, SheetError) else ""))
    if only and (unknown := sorted(set(only) - {f.learner for f in found} - set(term_run.known_learners(out)))):
        return _fail(f"--only {', '.join(unknown)}: no such learner in {folder} or the course (nothing was changed)")
    if landlock_abi() < 1:
        print("warning: this system has no Linux Landlock, so the code being graded is not confined; grade only "
              "work you trust here", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    if lock.fd < 0:
        lock.acquire()   # a folder made by this run
    if lock.note():
        print(f"warning: {lock.note()}", file=sys.stderr)
    clock.lap("intake")
    manual = manual_scores(book)   # before a changed stage is made again; on the hub, formgrader's
    given.comments = manual_comments(book)
    try:
        course = book.create()
    except RuntimeError as error:
        stale = [name for name in (files.GRADES, *FILES, files.REPORT) if (out / name).is_file()]
        for name in stale:   # from the course before the change: never left to be taken for current
            (out / name).unlink()
        return _fail(f"{error}. The course in {out / files.COURSE} cannot be brought up to date: move it aside "
                     f"and run again (every kept hand-in in {out / files.KEPT} is graded again); "
                     f"{', '.join(stale) or 'no grades'} removed as stale, {out / files.LOG} keeps their scores")
    term = Term.open(out, counts)
    clock.lap("set-up")
    if course.regenerated:
        if term.recorded:   # a first run makes every stage, and records everyone anyway: nothing changed
            term.rerecord = f"the course changed ({', '.join(course.regenerated)})"
            print(f"The course changed ({', '.join(course.regenerated)}): recording every learner of it again")
        term.recorded.clear()
        term.settled.clear()
    log.repair(out)   # a line cut short by a run killed while logging
    before = log.rebuild(out)   # what the log says: a killed run's unlogged changes are logged with this run's
    behind = {k for k, v in log.read_grades(out / files.GRADES).items() if before.get(k) != v}   # by an older grader
    base = {f.learner: GradeJob(f.learner, f.sid, str(f.path), str(course.root), str(out), settings, f.notes, late)
            for f in found}
    course.record_learners({job.learner: job.sid for job in base.values()})
    print("".join(f"warning: {j.learner}: {note}\n" for j in base.values() for note in j.notes), end="", file=sys.stderr)
    results, reused = list[LearnerResult](), list[LearnerResult]()

    def local(batch: list[GradeJob]) -> list[LearnerResult]:
        got: list[LearnerResult] = []
        grade_class(batch, jobs, lambda result, seconds: got.append(result))
        return got

    template = GradeJob("", "", "", str(course.root), str(out), settings, (), late)
    run = term_run.plan(term, manual, found, given, base, template, late, every=shard is None,
                        only=set(only) if only else None, grade=local)
    clock.lap("intake")
    for warning in run.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    where = f"the queue at {_no_password(broker)}" if broker else f"{jobs} job(s)"
    fresh = [j for j in run.jobs if not pathlib.Path(j.verdicts).exists()]   # the others' verdicts are kept
    print(f"Grading {len(fresh) + run.graded} hand-in(s) from {folder} with {where}; {len(run.jobs) - len(fresh)} "
          f"recorded again from their kept verdicts; {len(run.reused)} unchanged, reused ...", flush=True)
    reasons = Counter(run.why.get(job.learner, "a new run of the grader") for job in run.jobs)
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        print(f"  {count} for {reason}")
    start, progress = time.perf_counter(), Progress(len(run.jobs))
    for process in beside:
        process.go()   # the hand-ins are kept and their times known: the copying check may write

    def done(result: LearnerResult, seconds: float) -> None:
        point("a hand-in graded and recorded")
        results.append(result)
        score, most = result.total
        print(progress.line(result.learner, score, most, seconds), flush=True)

    if broker and fresh:
        from grader.queue.instructor import QueueError, grade_class_on_queue, lease_for
        try:
            dropped = grade_class_on_queue(fresh, broker, lease or lease_for(settings), jobs, done,
                                           lambda line: print(f"  {line}", flush=True))
        except QueueError as error:
            return _fail(str(error))
        if dropped:
            print(f"  {dropped} later copy(ies) of hand-ins already graded came back and were dropped")
        grade_class([j for j in run.jobs if j not in fresh], jobs, done)
    else:   # meanwhile: the feedback of the learners whose verdicts stand, and the plots' imports
        grade_class(run.jobs, jobs, done, meanwhile=lambda: reused.extend(reuse(run.reused, grading=run.jobs)))
    graded = {r.learner for r in results}
    results += [crashed(job) for job in run.jobs if job.learner not in graded]  # none vanishes, whatever went wrong
    clock.lap("grading")
    results += reused + reuse(run.reused, after=reused)
    clock.lap("feedback")
    paper = [] if shard else term_run.on_paper(given.corrections, lms, results, out, run.why)   # no hand-in
    drawn = None if shard else plots_beside(results + paper, out)   # beside the gradebook's writes
    term_run.record_all(course, run.jobs, results)
    clock.lap("gradebook")
    term_run.settle_all(term, course, run.jobs + run.reused)
    point("the gradebook settled, term.json not yet saved")
    term_run.annotate_all(course, run.jobs + run.reused, results)
    term.save(logged=False)
    clock.lap("gradebook")
    refusals = [(r.name, r.reason) for r in refused]
    print(summary(entries, folder, len(results), refusals, shard))
    if shard:
        part = write_part(results, out, str(shard), refusals, folder, run.why)
        term.save()
        print(f"Done in {time.perf_counter() - start:.1f} s: shard {shard} in {part}; collect the parts with "
              "`python -m grader merge OUT PART...` (which also writes the similarity files)")
        return 0
    report, unknown = write_all(results := results + paper, out, lms, refusals, drawn)
    clock.lap("reports and exports")
    point("grades.csv written, not yet logged")
    why = {**{learner: "in the roster, no hand-in" for learner in absentees(results, lms)}, **run.why}
    why.update((k, "a change by an earlier run, cut short before it logged it") for k in behind
               if why.get(k, log.GENERIC) == log.GENERIC)
    changes = log.changes(before, log.read_grades(out / files.GRADES), why, time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                                         time.gmtime()))
    log.append(out, changes)
    point("logged, term.json not yet final")
    term.save()
    for line in beside[0].lines() if beside else []:   # it ran beside the grading
        print(line, flush=True)
    clock.lap("copying check")
    log.print_changes(changes, only)
    for learner in unknown:
        print(f"warning: {learner} is not in the roster: left out of the LMS exports", file=sys.stderr)
    for learner in absentees(results, lms):
        print(f"  missing {learner!r}: in the roster, no hand-in: 0 in {files.GRADES} and the exports")
    print(clock.line())
    print(f"Done in {time.perf_counter() - start:.1f} s: {out / files.GRADES}, {out / files.MISTAKES_CSV}, "
          f"feedback in {out / files.FEEDBACK}/; open {report}")
    return 0


def _course(folder: pathlib.Path, out: pathlib.Path, settings: Settings, late: LatePolicy, found: list) -> Course:
    """The course whose gradebook holds the grades: the hub's, grading its ``submitted/``, else ``OUT/course``."""
    from grader.gradebook.hubbook import HubCourse, is_hub
    if not (folder.name == "submitted" and is_hub(folder.parent)):
        return Course(out / files.COURSE, settings, late)
    hub = HubCourse(folder.parent, settings, late, ledger=out / files.COURSE / "learners.csv")
    if renamed := [f.learner for f in found if f.sid != f.learner]:
        raise ValueError(f"{', '.join(map(repr, renamed[:5]))} in {folder}: the hub course keeps learners by their "
                         "account names, and these are not plain ids (lower-case letters, digits, '_', '-')")
    hub.late = hub.policy(late)
    return hub


def _fail(why: str) -> int:
    print(f"error: {why}", file=sys.stderr)
    return 2


def _no_password(url: str) -> str:
    head, at, tail = url.rpartition("@")
    return f"{head.split('://')[0]}://***@{tail}" if at else url
