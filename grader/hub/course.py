"""The instructor's side of the course on a JupyterHub (``python -m grader hub-course``,
``commands/hub_course.py``).

The course is ONE nbgrader assignment (``minitorch`` by default) that holds every
stage's notebook (the stages of ``grader/tasks.toml``) and the learner's package
``minitorch/`` beside them, all at its top level (nbgrader drops notebooks kept in
subfolders). A learner fetches it once and works in it
all term: every notebook imports the package from its own folder, and edits show without
a restart (each notebook's first cell, ``%load_ext minitorch.course.notebook``, loads saved edits). They submit it whenever a
stage is due, as often as they like; the instructor collects the latest submission and
autogrades, which grades every stage (``preprocessor.py``). ``docs/JUPYTERHUB.md`` says why.

The course folder gets:

* ``source/A/`` (the release notebooks' sources and the learner's stub package: no
  solution text) and ``release/A/`` from nbgrader's ``generate_assignment``, checked
  against the repository's own learner files;
* ``gradebook.db`` (with the due date, if given) and ``nbgrader_config.py``, which wires
  this grader into ``nbgrader autograde`` (``config.py``);
* ``learner-jupyter/``: the Jupyter settings of the learners' environment (course id and
  exchange for nbgrader's Assignment List; no formgrader or authoring tools).
"""

from __future__ import annotations

import datetime as dt
import filecmp
import json
import os
import pathlib
import re
import stat
import tempfile

from grader.hub.config import config
from grader.lateness import ON_TIME, LatePolicy
from grader.release import build as release
from grader.settings import Settings

REPO = pathlib.Path(__file__).resolve().parents[2]
ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")

NBGRADER_CONFIG = """\
# The minitorch course on a JupyterHub, made by `python -m grader hub-course`. nbgrader's own
# commands run in this folder (release_assignment, collect, autograde, generate_feedback,
# release_feedback, export) grade through the grader of {repo}.
import sys

c = get_config()  # noqa: F821
sys.path.insert(0, {repo!r})
try:  # nbgrader would only log an error here and then grade with its defaults: stop instead
    from grader.hub.config import config
    c.merge(config({root!r}, {course_id!r}, {assignment!r}, {exchange!r}, {settings!r}, {late!r}))
except Exception as error:
    raise SystemExit(f"{{__file__}}: the grader that made this course ({repo}) could not be loaded "
                     f"({{type(error).__name__}}: {{error}}); without it nbgrader would give wrong grades") from None
c.Application.log_level = "INFO"
# Your own nbgrader settings go below, for instance nbgrader's own late policy instead of
# --late-penalty:  c.LateSubmissionPlugin.penalty_method = "zero"
"""

LEARNER_NBGRADER = """\
# The learners' side of the minitorch course: where nbgrader's Assignment List finds it.
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
"""

# What learners should not have: the instructor's grading and authoring tools.
LEARNER_SERVER = {"ServerApp": {"jpserver_extensions": {"nbgrader.server_extensions.formgrader": False,
                                                        "nbgrader.server_extensions.course_list": False}}}
LEARNER_LAB = {"disabledExtensions": {"@jupyter/nbgrader:formgrader": True, "@jupyter/nbgrader:create-assignment": True,
                                      "@jupyter/nbgrader:course-list": True}}


class HubCourseError(ValueError):
    """Something the instructor asked for cannot be done: the message says what and why."""


def create(out: pathlib.Path, course_id: str, assignment: str, exchange: pathlib.Path, settings: Settings,
           late: LatePolicy = ON_TIME) -> pathlib.Path:
    """Make (or update) the course in ``out``; ``late``'s deadline is the assignment's due date."""
    out = pathlib.Path(out).resolve()
    for name, value in (("--course-id", course_id), ("--assignment", assignment)):
        if not ID.match(value):
            raise HubCourseError(f"{name} {value!r}: use letters, digits, '-' and '_' (nbgrader puts it in paths)")
    due, late_percent_per_day = late.deadline, late.percent_per_day
    if not 0 <= late_percent_per_day <= 100:
        raise HubCourseError(f"--late-penalty {late_percent_per_day}: a percentage between 0 and 100")
    args = (str(out), course_id, assignment, str(exchange), settings.as_dict(), late_percent_per_day)
    if not (out / "gradebook.db").exists():
        if out.exists() and any(out.iterdir()):
            raise HubCourseError(f"{out} exists and is not a course made by hub-course: choose an empty folder")
        _generate(out, assignment, config(*args))
    _set_duedate(out, assignment, due, config(*args))
    (out / "nbgrader_config.py").write_text(NBGRADER_CONFIG.format(
        repo=str(REPO), root=str(out), course_id=course_id, assignment=assignment, exchange=str(exchange),
        settings=settings.as_dict(), late=late_percent_per_day))
    learner = out / "learner-jupyter"
    (learner / "labconfig").mkdir(parents=True, exist_ok=True)
    (learner / "nbgrader_config.py").write_text(LEARNER_NBGRADER.format(course_id=course_id, exchange=str(exchange)))
    (learner / "jupyter_server_config.json").write_text(json.dumps(LEARNER_SERVER, indent=1) + "\n")
    (learner / "labconfig" / "page_config.json").write_text(json.dumps(LEARNER_LAB, indent=1) + "\n")
    return out


def _generate(out: pathlib.Path, assignment: str, cfg) -> None:
    import nbformat
    from nbgrader.apps import NbGraderAPI
    source = out / "source" / assignment
    source.mkdir(parents=True)
    for path in release.source_notebooks():
        nbformat.write(release.read_source_notebook(path), source / f"{path.stem}.ipynb")
    release.build_package(source / "minitorch")
    release.with_environment_bin_on_path()  # nbgrader runs `alembic` to make the gradebook
    result = NbGraderAPI(config=cfg).generate_assignment(assignment)
    if not result["success"]:
        raise HubCourseError(f"nbgrader could not generate {assignment}: {result.get('error')}\n{result.get('log')}")
    problems = leaks(out / "release" / assignment)
    if problems:
        raise HubCourseError("the release is not what learners may see: " + "; ".join(problems))


def leaks(released: pathlib.Path) -> list[str]:
    """How a released assignment differs from the repository's learner files (its
    notebooks, its stub package), or holds solution text: nothing, when it is right."""
    problems = []
    for path in sorted(released.rglob("*")):
        if path.is_file() and any(mark in path.read_text(errors="replace") for mark in
                                  ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS")):
            problems.append(f"{path.relative_to(released)} holds solution or hidden-test text")
    with tempfile.TemporaryDirectory() as scratch:
        stubs = pathlib.Path(scratch) / "minitorch"
        release.build_package(stubs)
        problems += release.differences(stubs, released / "minitorch")
    for path in release.source_notebooks():
        mine, learners = released / f"{path.stem}.ipynb", REPO / "notebooks" / f"{path.stem}.ipynb"
        if not mine.is_file() or not filecmp.cmp(mine, learners, shallow=False):
            problems.append(f"{mine.name} differs from the learners' notebooks/{learners.name}")
    return problems


def _set_duedate(out: pathlib.Path, assignment: str, due: dt.datetime | None, cfg) -> None:
    from nbgrader.api import Gradebook
    with Gradebook(cfg.CourseDirectory.db_url) as gradebook:
        gradebook.update_or_create_assignment(assignment, duedate=due.astimezone(dt.UTC).replace(tzinfo=None)
                                              if due else None)


def make_exchange(exchange: pathlib.Path) -> str:
    """The exchange folder as nbgrader needs it (every account may write, none may remove
    another's files: mode 1777); a sentence saying what was done or what the admin must do."""
    exchange = pathlib.Path(exchange)
    if exchange.is_dir():
        mode = stat.S_IMODE(exchange.stat().st_mode)
        if mode != 0o1777:
            return f"warning: {exchange} has mode {mode:o}; nbgrader's exchange needs 1777 (chmod 1777 {exchange})"
        return f"exchange: {exchange} (mode 1777)"
    try:
        exchange.mkdir(parents=True)
        os.chmod(exchange, 0o1777)
    except OSError as error:
        return (f"warning: could not make the exchange {exchange} ({error.strerror}); as root: "
                f"mkdir -p {exchange} && chmod 1777 {exchange}")
    return f"exchange: made {exchange} (mode 1777)"
