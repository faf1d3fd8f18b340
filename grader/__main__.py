"""Command line of the course's tools.

    python -m grader release [--force]            rebuild minitorch/ and notebooks/ from solutions/
    python -m grader check [PATH]                 grade a folder holding minitorch/ (default: this one) or a .zip
    python -m grader handin --reference [--out F] the reference's hand-in zip, to try a platform with
    python -m grader autograde SUBMISSIONS        grade a class: one .zip or folder per learner
    python -m grader merge OUT PART...            collect a class graded in shards (autograde --shard I/N)
    python -m grader worker --broker URL          grade from a queue (autograde --broker URL)
    python -m grader bundle [--out FILE]          the zip to hand to learners
    python -m grader tasks                        the task manifest as a table (docs/CURRICULUM.md)
    python -m grader hub-course --out DIR ...     the course on a JupyterHub (nbgrader's exchange)
    python -m grader gradescope [--out FILE]      a Gradescope autograder (docs/PLATFORMS.md)
    python -m grader prairielearn --image NAME    a PrairieLearn grader: image, serverFilesCourse, questions
    python -m grader task add | stage add | stage drop   reshape the course (docs/INSTRUCTOR.md)

The command line only: it parses arguments into typed values (``Settings``, ``LatePolicy``,
``Shard``, paths) and calls the command's ``main`` in ``grader/commands/``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
from collections.abc import Callable
from typing import Any

from grader.commands import handin
from grader.intake.submissions import Shard
from grader.lateness import LatePolicy
from grader.settings import Settings, add_flags

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _value(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type from a parser whose ValueError names what is wrong."""
    def convert(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    convert.__name__ = parse.__name__
    return convert


def command_line() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grader", description="The minitorch course's tools.")
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("release", help="rebuild minitorch/ and notebooks/ from solutions/")
    p.add_argument("--force", action="store_true",
                   help="overwrite files there that differ from what the last release wrote (someone's work)")
    p = commands.add_parser("check", help="grade your own work")
    p.add_argument("path", nargs="?", help="a folder holding minitorch/ (default: this folder) or a .zip")
    p.add_argument("--out", default="grader-output", help="where to write the feedback page (default: grader-output/)")
    p = commands.add_parser("autograde", help="grade a class of submissions")
    p.add_argument("submissions", help="a folder with one .zip or folder per learner, or an nbgrader submitted/")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", default="grader-output", help="where to write grades.csv, feedback and the course")
    p.add_argument("--roster", help="a CSV mapping learner ids to LMS identities: writes canvas.csv and moodle.csv")
    p.add_argument("--deadline", help="ISO 8601 date and time (UTC unless it says otherwise)")
    p.add_argument("--late-penalty", type=float, default=0.0, help="percent of the total lost per started day late")
    p.add_argument("--shard", type=_value(Shard.parse), help="I/N: grade only every N-th hand-in, starting with the I-th (see merge)")
    p.add_argument("--broker", help="redis://HOST:PORT/DB: grade on the workers of this queue (see worker); "
                   "--jobs is then how many processes record results here")
    p.add_argument("--lease", type=float, help="seconds after which a hand-in a worker took and did not finish is "
                   "given to another (default: the longest a hand-in can take under the limits)")
    p.add_argument("--counts", choices=["last-before-deadline", "last", "best"],
                   help="which of a learner's kept hand-ins counts; the course keeps it for later runs "
                   "(default: last-before-deadline)")
    p.add_argument("--only", nargs="+", metavar="LEARNER", help="grade these learners again; leave every other "
                   "row as it was, and print what changed")
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
    p.add_argument("--image", required=True, help="the grading image in your own account (docs/PLATFORMS.md)")
    handin.add_parser(commands)
    _reshaping(commands)
    return parser


def _reshaping(commands) -> None:  # argparse's _SubParsersAction
    """The arguments of ``task`` and ``stage``, the tools that reshape the course."""
    p = commands.add_parser("task", help="add a task to a stage: manifest, notebook section, checks, tests")
    p.add_argument("action", choices=["add"])
    p.add_argument("task", help="its id, STAGE.N, for example 3.4")
    p.add_argument("--title", required=True, help="what the learner builds, for example 'Softplus.backward'")
    p.add_argument("--file", required=True, help="the package file the learner fills in, relative to minitorch/")
    p.add_argument("--calls", nargs="*", default=[], help="the package names its checks call, e.g. ops_unary.Softplus")
    p.add_argument("--swaps", nargs="*", default=[], help="names its checks replace with given versions ([given])")
    p.add_argument("--part", dest="parts", action="append", default=[], metavar="NAME=POINTS",
                   help="a part and its points (multiples of 0.5); repeat for each part")
    p = commands.add_parser("stage", help="add a stage (its notebook, checks, tests) or drop one")
    p.add_argument("action", choices=["add", "drop"])
    p.add_argument("stage", help="its number")
    p.add_argument("--notebook", help="add: its notebook's name, NN_name")
    p.add_argument("--title", help="add: what it builds")


def main(argv: list[str] | None = None) -> int:
    args = command_line().parse_args(argv)
    try:
        return run(args)
    except ValueError as error:   # a value the parser could not judge alone (a deadline)
        print(f"error: {error}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
    """Call the command ``args`` names with its typed values; no Namespace goes further."""
    path = pathlib.Path
    if args.command == "check":
        from grader.commands import check
        return check.main(path=handin.path_to_check(args.path), out=path(args.out), settings=Settings.from_args(args))
    if args.command == "handin":
        return handin.main(folder=args.folder, reference=args.reference, out=args.out)
    if args.command == "task":
        from grader.commands import task
        return task.main(action=args.action, task=args.task, title=args.title, file=args.file, calls=args.calls,
                         parts=args.parts, swaps=args.swaps)
    if args.command == "stage":
        from grader.commands import stage
        return stage.main(action=args.action, stage=args.stage, notebook=args.notebook, title=args.title)
    if args.command == "autograde":
        from grader.commands import autograde
        return autograde.main(submissions=path(args.submissions), out=path(args.out),
                              settings=Settings.from_args(args), jobs=args.jobs,
                              roster=path(args.roster) if args.roster else None,
                              late=LatePolicy.parse(args.deadline, args.late_penalty, "--deadline"),
                              shard=args.shard, broker=args.broker, lease=args.lease, counts=args.counts,
                              only=args.only)
    if args.command == "merge":
        from grader.commands import merge
        return merge.main(out=path(args.out), parts=[path(p) for p in args.parts],
                          roster=path(args.roster) if args.roster else None)
    if args.command == "worker":
        from grader.commands import worker
        return worker.main(broker=args.broker, concurrency=args.concurrency, lease=args.lease, name=args.name)
    if args.command == "hub-course":
        from grader.commands import hub_course
        return hub_course.main(out=path(args.out), course_id=args.course_id, assignment=args.assignment,
                               exchange=path(args.exchange), settings=Settings.from_args(args),
                               late=LatePolicy.parse(args.duedate, args.late_penalty, "--duedate"))
    if args.command == "gradescope":
        from grader.commands import gradescope
        return gradescope.main(out=path(args.out), visibility=args.visibility)
    if args.command == "prairielearn":
        from grader.commands import prairielearn
        return prairielearn.main(out=path(args.out), image=args.image)
    if args.command == "bundle":
        from grader.commands import bundle
        return bundle.main(out=path(args.out))
    if args.command == "release":
        from grader.commands import release
        return release.main(force=args.force)
    from grader.commands import tasks
    return tasks.main()


if __name__ == "__main__":
    sys.exit(main())
