"""Command line of the course's tools.

    python -m grader release                      rebuild minitorch/ and notebooks/ from solutions/
    python -m grader check [PATH]                 grade your own work (the repo, a folder or a .zip)
    python -m grader autograde SUBMISSIONS        grade a class: one .zip or folder per learner
    python -m grader merge OUT PART...            collect a class graded in shards (autograde --shard I/N)
    python -m grader worker --broker URL          grade from a queue (autograde --broker URL)
    python -m grader bundle [--out FILE]          the zip to hand to learners
    python -m grader tasks                        the task manifest as a table (docs/CURRICULUM.md)
    python -m grader hub-course --out DIR ...     the course on a JupyterHub (nbgrader's exchange)
    python -m grader gradescope [--out FILE]      a Gradescope autograder (docs/PLATFORMS.md)
    python -m grader prairielearn [--out DIR]     a PrairieLearn grader: image, serverFilesCourse, questions
    python -m grader task add | stage add | stage drop   reshape the course (docs/INSTRUCTOR.md)
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

from grader.release import build as release
from grader.settings import Settings, add_flags
from grader.tasks import STAGES


def check(args: argparse.Namespace) -> int:
    from grader.outputs import feedback
    from grader.outputs.tables import table
    from grader.pipeline.grading import grade_learner
    path = pathlib.Path(args.path).resolve()
    if not path.exists():
        print(f"error: {path} does not exist", file=sys.stderr)
        return 2
    print(f"Grading {path} ...", flush=True)
    result = grade_learner(path, "you", Settings.from_args(args),
                           lambda stage: print(f"  stage {stage} ({STAGES[stage]}) ...", flush=True))
    print("\n" + table(result))
    page = feedback.write(result, pathlib.Path(args.out).resolve() / "feedback.html")
    print(f"\nFeedback: {page}")
    return 0


def autograde(args: argparse.Namespace) -> int:
    from grader.boundary.confinement import landlock_abi
    from grader.outputs.publish import Progress, write_all, write_part
    from grader.pipeline.course import Course
    from grader.pipeline.grading import GradeJob, crashed, grade_class
    from grader.pipeline.lateness import parse_deadline
    from grader.pipeline.submissions import find_learners, summary
    folder = pathlib.Path(args.submissions).resolve()
    if not folder.is_dir():
        print(f"error: {folder} is not a folder of submissions", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out).resolve()
    if folder.is_relative_to(out) or out.is_relative_to(folder):
        print(f"error: the submissions ({folder}) and the output ({out}) overlap: grading would change what it "
              "reads; choose another --out", file=sys.stderr)
        return 2
    try:
        roster, shard = _roster(args), _shard(args.shard)
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if landlock_abi() < 1:
        print("warning: this system has no Linux Landlock, so the code being graded is not confined; grade only "
              "work you trust here", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    settings = Settings.from_args(args)
    course = Course(out / "course", settings, parse_deadline(args.deadline), args.late_penalty).create()
    found, refused = find_learners(folder)
    entries = len(found) + len(refused)
    if shard:
        found = [f for i, f in enumerate(found) if i % shard[1] == shard[0] - 1]
    jobs = [GradeJob(f.learner, f.sid, str(f.path), str(course.root), str(out), settings, f.notes,
                     args.deadline, args.late_penalty) for f in found]
    course.record_learners({job.learner: job.sid for job in jobs})
    for job in jobs:
        for note in job.notes:
            print(f"warning: {job.learner}: {note}", file=sys.stderr)
    where = f"the queue at {_no_password(args.broker)}" if args.broker else f"{args.jobs} job(s)"
    print(f"Grading {len(jobs)} hand-in(s) from {folder} with {where} ...", flush=True)
    start, results, progress = time.perf_counter(), [], Progress(len(jobs))

    def done(result, seconds: float) -> None:
        results.append(result)
        score, most = result.total
        print(progress.line(result.learner, score, most, seconds), flush=True)

    if args.broker:
        from grader.pipeline.queueing import QueueError, grade_class_on_queue, lease_for
        try:
            dropped = grade_class_on_queue(jobs, args.broker, args.lease or lease_for(settings), args.jobs, done,
                                           lambda line: print(f"  {line}", flush=True))
        except QueueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        if dropped:
            print(f"  {dropped} later copy(ies) of hand-ins already graded came back and were dropped")
    else:
        grade_class(jobs, args.jobs, done)
    graded = {r.learner for r in results}
    results += [crashed(job) for job in jobs if job.learner not in graded]  # none vanishes, whatever went wrong
    sids = {job.learner: job.sid for job in jobs}
    refusals = [(r.name, r.reason) for r in refused]
    print(summary(entries, folder, len(results), refusals, args.shard))
    if shard:
        part = write_part(results, sids, out, args.shard, refusals)
        print(f"Done in {time.perf_counter() - start:.1f} s: shard {args.shard} in {part}; collect the parts with "
              "`python -m grader merge OUT PART...`")
        return 0
    report, missing = write_all(results, out, sids, roster, refusals)
    for learner in missing:
        print(f"warning: {learner} is not in the roster: left out of canvas.csv and moodle.csv", file=sys.stderr)
    print(f"Done in {time.perf_counter() - start:.1f} s: {out / 'grades.csv'}, {out / 'mistakes.csv'}, "
          f"feedback in {out / 'feedback'}/; open {report}")
    return 0


def merge(args: argparse.Namespace) -> int:
    from grader.outputs.publish import merge as merge_parts
    try:
        report, missing = merge_parts(pathlib.Path(args.out).resolve(), [pathlib.Path(p) for p in args.parts],
                                      _roster(args))
    except (ValueError, OSError, KeyError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for learner in missing:
        print(f"warning: {learner} is not in the roster: left out of canvas.csv and moodle.csv", file=sys.stderr)
    print(f"merged {len(args.parts)} part(s); open {report}")
    return 0


def worker(args: argparse.Namespace) -> int:
    from grader.boundary.confinement import landlock_abi
    from grader.pipeline.queue_worker import lease_for, run_worker
    if landlock_abi() < 1:
        print("warning: this system has no Linux Landlock, so the code being graded is not confined; run workers "
              "only where it is", file=sys.stderr)
    run_worker(args.broker, args.concurrency, args.lease or lease_for(Settings()), args.name)
    return 0


def _no_password(url: str) -> str:
    head, at, tail = url.rpartition("@")
    return f"{head.split('://')[0]}://***@{tail}" if at else url


def _roster(args: argparse.Namespace):
    from grader.outputs.lms import read_roster
    from grader.pipeline.lateness import parse_deadline
    parse_deadline(getattr(args, "deadline", None))
    return read_roster(pathlib.Path(args.roster)) if args.roster else None


def _shard(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise ValueError(f"--shard {text!r}: expected I/N with 1 <= I <= N, for example 2/8")
    return int(index), int(count)


def command_line() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grader", description="The minitorch course's tools.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("release", help="rebuild minitorch/ and notebooks/ from solutions/")
    p = commands.add_parser("check", help="grade your own work")
    p.add_argument("path", nargs="?", default=str(release.ROOT), help="the repo (default), a folder or a .zip")
    p.add_argument("--out", default="grader-output", help="where to write the feedback page (default: grader-output/)")
    p = commands.add_parser("autograde", help="grade a class of submissions")
    p.add_argument("submissions", help="a folder with one .zip or folder per learner, or an nbgrader submitted/")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", default="grader-output", help="where to write grades.csv, feedback and the course")
    p.add_argument("--roster", help="a CSV mapping learner ids to LMS identities: writes canvas.csv and moodle.csv")
    p.add_argument("--deadline", help="ISO 8601 date and time (UTC unless it says otherwise)")
    p.add_argument("--late-penalty", type=float, default=0.0, help="percent of the total lost per started day late")
    p.add_argument("--shard", help="I/N: grade only every N-th hand-in, starting with the I-th (see merge)")
    p.add_argument("--broker", help="redis://HOST:PORT/DB: grade on the workers of this queue (see worker); "
                   "--jobs is then how many processes record results here")
    p.add_argument("--lease", type=float, help="seconds after which a hand-in a worker took and did not finish is "
                   "given to another (default: the longest a hand-in can take under the limits)")
    h = commands.add_parser("hub-course", help="make the course for a JupyterHub with nbgrader's exchange "
                            "(docs/JUPYTERHUB.md)")
    h.add_argument("--out", required=True, help="the course folder to make (in the instructor's home)")
    h.add_argument("--course-id", default="minitorch", help="nbgrader's course id, shared with the learners")
    h.add_argument("--assignment", default="minitorch", help="the one assignment holding the whole course")
    h.add_argument("--exchange", default="/srv/nbgrader/exchange", help="nbgrader's exchange folder (mode 1777)")
    h.add_argument("--duedate", help="ISO 8601: the assignment's due date in the gradebook")
    h.add_argument("--late-penalty", type=float, default=0.0,
                   help="percent of the score lost per started day after the due date")
    for q in (commands.choices["check"], p, h):
        add_flags(q)
    p = commands.add_parser("merge", help="collect the parts of a class graded in shards")
    p.add_argument("out", help="where to write grades.csv, the report and the feedback")
    p.add_argument("parts", nargs="+", help="the part-*.json files the shards wrote (feedback/ beside each)")
    p.add_argument("--roster", help="a CSV mapping learner ids to LMS identities")
    p = commands.add_parser("worker", help="grade hand-ins from a queue (autograde --broker) until stopped")
    p.add_argument("--broker", required=True, help="redis://HOST:PORT/DB, as given to autograde")
    p.add_argument("--concurrency", type=int, default=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                   else os.cpu_count() or 1, help="hand-ins graded at once (default: this machine's cores)")
    p.add_argument("--lease", type=float, help="seconds after which a hand-in taken and not finished goes to another "
                   "worker; as long as the longest hand-in (default: as autograde's default)")
    p.add_argument("--name", help="this worker's name in logs and results (default: celery@HOSTNAME)")
    commands.add_parser("tasks", help="print the task manifest as the docs' table (docs/CURRICULUM.md)")
    p = commands.add_parser("bundle", help="build the zip to hand to learners")
    p.add_argument("--out", default="build/minitorch-course.zip")
    p = commands.add_parser("gradescope", help="write a Gradescope autograder (the zip to upload)")
    p.add_argument("--out", default="autograder.zip")
    p.add_argument("--visibility", default="visible", choices=["visible", "after_due_date", "after_published",
                                                                "hidden"], help="when learners see the results")
    p = commands.add_parser("prairielearn", help="write a PrairieLearn grader: image, serverFilesCourse, questions")
    p.add_argument("--out", default="prairielearn", help="a folder, or your PrairieLearn course itself")
    p.add_argument("--image", default="minitorch/grader:0.1.0", help="the grading image's name on Docker Hub")
    from grader.commands.reshape_args import add_parsers
    add_parsers(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = command_line().parse_args(argv)
    if args.command in ("gradescope", "prairielearn"):
        from grader.platforms import build as build_platform
        return build_platform(args)
    if args.command == "bundle":
        from grader.release.bundle import build
        print(f"wrote {build(pathlib.Path(args.out).resolve())}")
        return 0
    if args.command == "tasks":
        from grader.tasks import markdown_table
        print(markdown_table())
        return 0
    if args.command == "release":
        release.build()
        print(f"rebuilt {release.ROOT / 'minitorch'} and {release.ROOT / 'notebooks'} "
              f"from {len(release.source_notebooks())} notebook(s)")
        return 0
    if args.command in ("task", "stage"):
        return sys.modules[f"grader.commands.{args.command}"].main(**{k: v for k, v in vars(args).items() if k != "command"})
    if args.command == "hub-course":
        from grader.hub.course import main as hub_course
        return hub_course(args)
    return {"check": check, "autograde": autograde, "merge": merge, "worker": worker}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
