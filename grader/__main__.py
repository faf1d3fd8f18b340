"""Command line of the course's tools: one table, ``COMMANDS``, that both the parser and
the dispatch read (``python -m grader --help`` lists it).

    python -m grader release [--force]            rebuild minitorch/ and notebooks/ from solutions/
    python -m grader check [PATH]                 grade a folder holding minitorch/ (default: this one) or a .zip
    python -m grader handin --reference [--out F] the reference's hand-in zip, to try a platform with
    python -m grader autograde SUBMISSIONS        grade a class: one .zip or folder per learner
    python -m grader similarity SUBMISSIONS --out DIR   the copying check: similarity.csv and .html
    python -m grader task add | stage add | stage drop   reshape the course (docs/INSTRUCTOR.md)

The command line only: it parses arguments into typed values (``Settings``, ``LatePolicy``,
``Shard``, paths) and calls the command's ``main`` in ``grader/commands/``. A new command is
one row of ``COMMANDS``: its name, its help, the function adding its arguments and the call
of its ``main`` with them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pathlib
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from grader.commands import handin
from grader.intake.submissions import Shard
from grader.lateness import LatePolicy
from grader.settings import Settings, add_flags

ROOT = pathlib.Path(__file__).resolve().parents[1]
Arguments = Callable[[argparse.ArgumentParser], None]


class Command(NamedTuple):
    name: str
    help: str
    arguments: Arguments                        # adds the command's arguments to its parser
    call: Callable[[argparse.Namespace], int]   # calls grader/commands/<name>.py's main with typed values


def _value(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type from a parser whose ValueError names what is wrong."""
    def convert(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    convert.__name__ = parse.__name__
    return convert


def _main(name: str) -> Callable[..., int]:
    """The ``main`` of ``grader/commands/<name>.py``, imported only when the command runs."""
    return importlib.import_module(f"grader.commands.{name.replace('-', '_')}").main


def _path(text: str | None) -> pathlib.Path | None:
    return pathlib.Path(text) if text else None


def _release(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true",
                   help="overwrite files there that differ from what the last release wrote (someone's work)")


def _check(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", help="a folder holding minitorch/ (default: this folder) or a .zip")
    p.add_argument("--out", default="grader-output", help="where to write the feedback page (default: grader-output/)")
    add_flags(p)


def _autograde(p: argparse.ArgumentParser) -> None:
    p.add_argument("submissions", help="a folder with one .zip or folder per learner, or an nbgrader submitted/")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", default="grader-output", help="where to write grades.csv, feedback and the course")
    p.add_argument("--roster", help="a CSV mapping learner ids to LMS identities: writes the LMS exports "
                   "(docs/INSTRUCTOR.md); with --from, the LMS's own roster file")
    p.add_argument("--from", dest="source", choices=["canvas", "moodle"],
                   help="SUBMISSIONS is this LMS's bulk download (its .zip or its folder), --roster its roster "
                   "(Canvas: the gradebook export; Moodle: the grading worksheet)")
    p.add_argument("--timezone", help="the time zone of the LMS's times that give none (Moodle's), for example "
                   "Europe/Paris (default: the deadline's)")
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
    add_flags(p)


def _hub_course(h: argparse.ArgumentParser) -> None:
    h.add_argument("--out", required=True, help="the course folder to make (in the instructor's home)")
    h.add_argument("--course-id", default="minitorch", help="nbgrader's course id, shared with the learners")
    h.add_argument("--assignment", default="minitorch", help="the one assignment holding the whole course")
    h.add_argument("--exchange", default="/srv/nbgrader/exchange", help="nbgrader's exchange folder (mode 1777)")
    h.add_argument("--duedate", help="ISO 8601: the assignment's due date in the gradebook")
    h.add_argument("--late-penalty", type=float, default=0.0,
                   help="percent of the score lost per started day after the due date")
    add_flags(h)


def _merge(p: argparse.ArgumentParser) -> None:
    p.add_argument("out", help="where to write grades.csv, the report and the feedback")
    p.add_argument("parts", nargs="+", help="the part-*.json files the shards wrote (feedback/ beside each)")
    p.add_argument("--roster", help="a CSV mapping learner ids to LMS identities")
    p.add_argument("--from", dest="source", choices=["canvas", "moodle"],
                   help="--roster is this LMS's own roster file, as the shards' autograde --from read it")


def _similarity(p: argparse.ArgumentParser) -> None:
    p.add_argument("submissions", help="a folder with one .zip or folder per learner, as autograde takes")
    p.add_argument("--out", default="grader-output", help="where to write similarity.csv and similarity.html")
    p.add_argument("--jobs", type=int, default=1, help="processes reading the hand-ins")


def _worker(p: argparse.ArgumentParser) -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    p.add_argument("--broker", required=True, help="redis://HOST:PORT/DB, as given to autograde")
    p.add_argument("--concurrency", type=int, default=cores, help="hand-ins graded at once (default: this machine's cores)")
    p.add_argument("--lease", type=float, help="seconds after which a hand-in taken and not finished goes to another "
                   "worker; as long as the longest hand-in (default: as autograde's default)")
    p.add_argument("--name", help="this worker's name in logs and results (default: celery@HOSTNAME)")


def _nothing(p: argparse.ArgumentParser) -> None:
    pass


def _bundle(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="build/minitorch-course.zip")


def _gradescope(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="autograder.zip")
    p.add_argument("--visibility", default="visible", choices=["visible", "after_due_date", "after_published",
                                                                "hidden"], help="when learners see the results")


def _prairielearn(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="prairielearn", help="a folder, or your PrairieLearn course itself")
    p.add_argument("--image", required=True, help="the grading image in your own account (docs/PLATFORMS.md)")


def _task(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["add"])
    p.add_argument("task", help="its id, STAGE.N, for example 3.4")
    p.add_argument("--title", required=True, help="what the learner builds, for example 'Softplus.backward'")
    p.add_argument("--file", required=True, help="the package file the learner fills in, relative to minitorch/")
    p.add_argument("--calls", nargs="*", default=[], help="the package names its checks call, e.g. ops_unary.Softplus")
    p.add_argument("--swaps", nargs="*", default=[], help="names its checks replace with given versions ([given])")
    p.add_argument("--part", dest="parts", action="append", default=[], metavar="NAME=POINTS",
                   help="a part and its points (multiples of 0.5); repeat for each part")


def _stage(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["add", "drop"])
    p.add_argument("stage", help="its number")
    p.add_argument("--notebook", help="add: its notebook's name, NN_name")
    p.add_argument("--title", help="add: what it builds")


COMMANDS: tuple[Command, ...] = (
    Command("release", "rebuild minitorch/ and notebooks/ from solutions/", _release,
            lambda a: _main("release")(force=a.force)),
    Command("check", "grade your own work", _check,
            lambda a: _main("check")(path=handin.path_to_check(a.path), out=pathlib.Path(a.out),
                                     settings=Settings.from_args(a))),
    Command("handin", "write a hand-in zip, as `make handin` does (--reference: the reference's)", handin.arguments,
            lambda a: _main("handin")(folder=a.folder, reference=a.reference, out=a.out)),
    Command("autograde", "grade a class of submissions", _autograde,
            lambda a: _main("autograde")(submissions=pathlib.Path(a.submissions), out=pathlib.Path(a.out),
                                         settings=Settings.from_args(a), jobs=a.jobs, roster=_path(a.roster),
                                         late=LatePolicy.parse(a.deadline, a.late_penalty, "--deadline"),
                                         shard=a.shard, broker=a.broker, lease=a.lease, counts=a.counts,
                                         only=a.only, source=a.source, zone=a.timezone)),
    Command("merge", "collect the parts of a class graded in shards", _merge,
            lambda a: _main("merge")(out=pathlib.Path(a.out), parts=[pathlib.Path(p) for p in a.parts],
                                     roster=_path(a.roster), source=a.source)),
    Command("similarity", "compare a class's hand-ins with each other and the reference: similarity.csv and "
            "similarity.html (autograde writes them too)", _similarity,
            lambda a: _main("similarity")(submissions=pathlib.Path(a.submissions), out=pathlib.Path(a.out), jobs=a.jobs)),
    Command("worker", "grade hand-ins from a queue (autograde --broker) until stopped", _worker,
            lambda a: _main("worker")(broker=a.broker, concurrency=a.concurrency, lease=a.lease, name=a.name)),
    Command("hub-course", "make the course for a JupyterHub with nbgrader's exchange (docs/JUPYTERHUB.md)",
            _hub_course,
            lambda a: _main("hub-course")(out=pathlib.Path(a.out), course_id=a.course_id, assignment=a.assignment,
                                          exchange=pathlib.Path(a.exchange), settings=Settings.from_args(a),
                                          late=LatePolicy.parse(a.duedate, a.late_penalty, "--duedate"))),
    Command("tasks", "print the task manifest as the docs' table (docs/CURRICULUM.md)", _nothing,
            lambda a: _main("tasks")()),
    Command("bundle", "build the zip to hand to learners", _bundle, lambda a: _main("bundle")(out=pathlib.Path(a.out))),
    Command("gradescope", "write a Gradescope autograder (the zip to upload)", _gradescope,
            lambda a: _main("gradescope")(out=pathlib.Path(a.out), visibility=a.visibility)),
    Command("prairielearn", "write a PrairieLearn grader: image, serverFilesCourse, questions", _prairielearn,
            lambda a: _main("prairielearn")(out=pathlib.Path(a.out), image=a.image)),
    Command("task", "add a task to a stage: manifest, notebook section, checks, tests", _task,
            lambda a: _main("task")(action=a.action, task=a.task, title=a.title, file=a.file, calls=a.calls,
                                    parts=a.parts, swaps=a.swaps)),
    Command("stage", "add a stage (its notebook, checks, tests) or drop one", _stage,
            lambda a: _main("stage")(action=a.action, stage=a.stage, notebook=a.notebook, title=a.title)),
)
BY_NAME = {command.name: command for command in COMMANDS}


def command_line() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grader", description="The minitorch course's tools.")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.arguments(commands.add_parser(command.name, help=command.help))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = command_line().parse_args(argv)
    try:
        return run(args)
    except ValueError as error:   # a value the parser could not judge alone (a deadline)
        print(f"error: {error}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
    """Call the command ``args`` names with its typed values; no Namespace goes further."""
    return BY_NAME[args.command].call(args)


if __name__ == "__main__":
    code = main()
    if sys.argv[1:2] == ["autograde"]:   # its files are written and closed: a class's heap is not worth tearing down
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
