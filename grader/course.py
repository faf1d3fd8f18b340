"""A real nbgrader course that grades learners' packages.

Each stage notebook is its own assignment (a crash costs one stage, not six). The source
notebooks (with hidden tests) live in ``source/``; each learner's work is copied into
``submitted/<learner>/<stage>/``: the notebook, and the package as ``minitorch/`` beside
it, which the kernel imports from its working folder. The traps of nbgrader that would
give wrong grades (../shared/NBGRADER_NOTES.md) are handled here:

* nothing but notebooks is in ``source/``, so autograde overwrites no learner file and no
  solution reaches ``autograded/`` or feedback;
* deleted test cells are put back (``add_missing_cells``), edited locked ones restored;
* a cell's score comes from whether it raised, not from whether it wrote to stderr;
* each cell has a time limit and is interrupted, not left hanging; memory is bounded;
* the kernel's package must be the learner's copy: the hidden checks verify its path.

Beyond nbgrader: kernels may write only in their own stage folder and a scratch folder
(``sandbox.py``), so no learner can change the checks, the gradebook or anyone's files;
and they start by forking a server that has already imported IPython, NumPy and the
checks (``forkserver.py``), which makes a stage cost about 0.3 s instead of 1.5 s.

The course's ``nbgrader_config.py`` loads ``config`` from here, so nbgrader's own
``autograde`` run in the course gets all of the above too, and a config file that fails to
load stops nbgrader rather than letting it grade with its defaults.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import signal
import sys
import tempfile
import warnings
from dataclasses import dataclass, field

from . import release
from .submission import Submission, copy_package
from .tasks import POINTS, STAGES, TASKS, cell_points, marker

GRADER = pathlib.Path(__file__).resolve().parent
warnings.filterwarnings("ignore", module="sqlalchemy")  # nbgrader's ORM chatter
warnings.filterwarnings("ignore", message=".*not in session.*")
TRUSTED_FILES = ["__init__.py", "checks.py", "forkserver.py", "numeric.py", "registry.py", "sandbox.py",
                 "tasks.py", "verify.py"] + [f"stage{n}.py" for n in range(1, 7)]
FORK = hasattr(os, "fork") and hasattr(os, "pidfd_open")  # Linux: start kernels by forking


@dataclass
class TaskResult:
    task: str
    score: float
    max_score: float
    message: str = ""
    hidden_passed: bool = False  # the hidden cell ran without raising


@dataclass
class LearnerResult:
    learner: str
    tasks: dict[str, TaskResult] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def stage_score(self, stage: str) -> tuple[float, float]:
        rows = [r for t, r in self.tasks.items() if t.split(".")[0] == stage]
        return sum(r.score for r in rows), sum(r.max_score for r in rows)

    @property
    def total(self) -> tuple[float, float]:
        return sum(r.score for r in self.tasks.values()), sum(r.max_score for r in self.tasks.values())


def config(root: pathlib.Path, timeout: int, memory_mb: int = 4096, verify: bool = False):
    """The nbgrader configuration of a course. ``nbgrader_config.py`` loads it too, with
    ``verify`` (``Course.grade`` runs verify itself, once per learner), so that nbgrader's own
    commands grade as ``python -m grader autograde`` does."""
    from traitlets.config import Config
    root = pathlib.Path(root)
    c = Config()
    c.CourseDirectory.root = str(root)
    c.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}?timeout=120"
    c.Execute.timeout = timeout
    c.Execute.interrupt_on_timeout = True
    c.OverwriteCells.add_missing_cells = True
    c.GenerateFeedback.force = True
    c.Application.log_level = "ERROR"  # our own report says what matters
    from nbgrader.converters import Autograde
    execute = grading_execute(notebook_seconds=STAGE_TIME_FACTOR * timeout, course=root, memory_mb=memory_mb,
                              verify=verify)
    c.Autograde.autograde_preprocessors = [execute if p.__name__ == "Execute" else p
                                           for p in Autograde.class_traits()["autograde_preprocessors"].default()]
    return c


STAGE_TIME_FACTOR = 3  # a stage notebook may run for 3 cells' time limits in all
VERIFY_FAILED = "the hidden tests, re-run in a separate process, failed"


def kernel_environment(course: pathlib.Path, folder: pathlib.Path, scratch: str, cpu_seconds: int,
                       memory_mb: int) -> dict[str, str]:
    """What a kernel grading the notebook in ``folder`` (``autograded/<learner>/<stage>``)
    is given: the learner's package and the course's trusted grader on its path, and the
    limits ``sitecustomize.py`` applies (``grader/sandbox.py``)."""
    trusted = course / ".trusted"
    return {"PYTHONPATH": os.pathsep.join([str(folder), str(trusted)]),
            "MINITORCH_UNDER_TEST": str(folder / "minitorch"),
            "MINITORCH_MEMORY_LIMIT_MB": str(memory_mb),
            "MINITORCH_WRITABLE": os.pathsep.join([str(folder), scratch]),
            "MINITORCH_CPU_SECONDS": str(cpu_seconds),
            "MINITORCH_TRUSTED": str(trusted) if FORK else "",  # forkserver.py
            "TMPDIR": scratch, "IPYTHONDIR": os.path.join(scratch, "ipython"),
            "PYTHONDONTWRITEBYTECODE": "1",
            "MPLBACKEND": "agg"}  # pictures are not graded: do not render them


def grading_execute(notebook_seconds: int, course: pathlib.Path | None = None, memory_mb: int = 4096,
                    verify: bool = False):
    """nbgrader's ``Execute`` preprocessor with a time limit for the whole notebook, which
    nbgrader lacks (it has one per cell): a cell may run only for what is left of
    ``notebook_seconds``, and cells reached after that are not run (they fail with
    ``StageTimeLimit``), so a learner whose loop hangs every cell costs minutes, not an
    hour. A kernel that dies, or that ignores the interrupt at a cell's time limit (a bare
    ``except:`` swallows KeyboardInterrupt), costs that cell and the ones after it, which
    say why (``KernelDied``, ``KernelUnresponsive``), not the stage's earlier cells, as it
    would in nbgrader. On Linux its kernels start through the fork server. Given the
    ``course``, it gives each kernel its environment (``kernel_environment``) itself, so
    nbgrader's own ``autograde`` command grades the same way; with ``verify`` too, it also
    re-runs the hidden tests that passed in a fresh process (``run_verify``) and fails the
    cells of those that do not pass there."""
    import time

    from jupyter_core.utils import run_sync
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from nbformat import NotebookNode
    from nbgrader.preprocessors import Execute

    def error(ename: str, evalue: str) -> NotebookNode:
        return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])

    task_of = {grade_id: t for t in TASKS for grade_id in cell_points(t)}
    hidden = {marker(t): t for t in TASKS}

    def grade_id(cell) -> str:
        return str(cell.metadata.get("nbgrader", {}).get("grade_id", ""))

    def name(cell) -> str:
        graded = grade_id(cell)
        if graded not in task_of:
            return "a cell that is not graded"
        return f"the {'hidden tests' if graded in hidden else 'visible checks'} of task {task_of[graded]}"

    class GradingExecute(Execute):
        def __init__(self, *args, **kwargs) -> None:
            if FORK:
                from .forkserver import kernel_manager_class
                kwargs.setdefault("kernel_manager_class", kernel_manager_class())
            super().__init__(*args, **kwargs)
            self._deadline = float("inf")
            self._ended: NotebookNode | None = None  # why the kernel is gone, for the cells after

        def preprocess(self, nb, resources=None, km=None):
            self._deadline = time.monotonic() + notebook_seconds
            self._ended = None
            if course is None:
                return super().preprocess(nb, resources, km)
            folder = pathlib.Path((resources or {}).get("metadata", {}).get("path") or ".").resolve()
            with tempfile.TemporaryDirectory(prefix="minitorch-kernel-") as scratch, \
                    _environment(kernel_environment(course, folder, scratch, 2 * notebook_seconds, memory_mb)):
                nb, resources = super().preprocess(nb, resources, km)
            if verify:
                self._verify(nb, folder)
            return nb, resources

        def _verify(self, nb, folder: pathlib.Path) -> None:
            passed = {hidden[grade_id(cell)]: cell for cell in nb.cells if grade_id(cell) in hidden
                      and not any(o.get("output_type") == "error" for o in cell.get("outputs", []))}
            if not passed:
                return
            outcome = run_verify(course / ".trusted", folder / "minitorch", list(passed), int(self.timeout or 60),
                                 memory_mb)
            for task, why in outcome.items():
                if why is not None:
                    passed[task].outputs.append(error("CheckFailure", f"{VERIFY_FAILED}: {why}"))

        def preprocess_cell(self, cell, resources, index):
            if cell.cell_type != "code":
                return super().preprocess_cell(cell, resources, index)
            if self._ended is not None:
                cell.outputs = [self._ended]
                return cell, resources
            if time.monotonic() >= self._deadline:
                cell.outputs = [error("StageTimeLimit", f"not run: the stage had used its {notebook_seconds} s")]
                return cell, resources
            try:
                return super().preprocess_cell(cell, resources, index)
            except DeadKernelError:
                cell.outputs.append(error("KernelDied", "the kernel died while running this cell"))
                self._ended = error("KernelEnded", f"not run: the kernel died in an earlier cell ({name(cell)})")
            except CellTimeoutError:  # interrupted at its time limit, yet still running
                run_sync(self.km.shutdown_kernel)(now=True)
                cell.outputs.append(error("KernelUnresponsive", "still running after it was interrupted at "
                                          "its time limit, so the kernel was ended"))
                self._ended = error("KernelEnded", f"not run: the kernel was ended in an earlier cell ({name(cell)}) "
                                    "that would not stop")
            return cell, resources

        def _get_timeout(self, cell):
            timeout = super()._get_timeout(cell)
            left = max(int(self._deadline - time.monotonic()), 1)
            return left if timeout is None else min(timeout, left)

    return GradingExecute


NBGRADER_CONFIG = """\
# nbgrader's own commands and formgrader on this course grade as `python -m grader autograde`
# does: the same kernels (trusted grader on the path, confinement, time limits per cell and
# per stage, kernel deaths costing only the cells after, the hidden tests re-run in a fresh
# process), from the grader that made it.
import os
import sys

c = get_config()  # noqa: F821
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, {grader!r})
try:  # nbgrader would only log an error here and go on to give wrong grades: stop instead
    from grader.course import config
    c.merge(config(HERE, timeout={timeout}, memory_mb={memory_mb}, verify=True))
except Exception as error:
    raise SystemExit(f"{{__file__}}: the grader that made this course ({grader}) could not be loaded "
                     f"({{type(error).__name__}}: {{error}}); without it nbgrader would give wrong grades. "
                     "Run `python -m grader autograde` from the course repository instead") from None
c.Application.log_level = "INFO"
"""


class Course:
    def __init__(self, root: pathlib.Path, timeout: int = 60, memory_mb: int = 4096) -> None:
        self.root = pathlib.Path(root).resolve()
        self.timeout, self.memory_mb = timeout, memory_mb
        self._api = None

    # ---- set-up --------------------------------------------------------------------
    def create(self) -> "Course":
        """Make the course (source notebooks, trusted checks, gradebook) unless it exists."""
        trusted = self.root / ".trusted"
        (trusted / "grader").mkdir(parents=True, exist_ok=True)
        for name in TRUSTED_FILES:
            shutil.copyfile(GRADER / name, trusted / "grader" / name)
        shutil.copyfile(GRADER / "sitecustomize.py", trusted / "sitecustomize.py")
        if not (self.root / "gradebook.db").exists():
            release.generate_course(self.root, self.api)
        (self.root / "nbgrader_config.py").write_text(NBGRADER_CONFIG.format(
            grader=str(GRADER.parent), timeout=self.timeout, memory_mb=self.memory_mb))
        return self

    @property
    def api(self):
        if self._api is None:
            from nbgrader.apps import NbGraderAPI
            _share_compiled_templates()
            self._api = NbGraderAPI(config=config(self.root, self.timeout, self.memory_mb))
        return self._api

    def add(self, submission: Submission) -> None:
        """Copy a learner's notebooks and package into ``submitted/`` (replacing older ones)."""
        for stage, name in STAGES.items():
            folder = self.root / "submitted" / submission.learner / name
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            notebook = submission.notebooks.get(stage) or release.ROOT / "notebooks" / f"{name}.ipynb"
            (folder / f"{name}.ipynb").write_text(json.dumps(without_ungraded_cells(notebook), indent=1))
            package = submission.package_for(stage)
            if package is not None:
                copy_package(package, folder / "minitorch")

    # ---- grading -------------------------------------------------------------------
    def grade(self, submission: Submission, progress=None) -> LearnerResult:
        result = LearnerResult(submission.learner, problems=list(submission.problems))
        self.add(submission)
        for stage, name in STAGES.items():
            if progress:
                progress(submission.learner, stage)
            tasks = [t for t in TASKS if t.split(".")[0] == stage]
            why = submission.broken_for(stage)
            if why:
                for t in tasks:
                    result.tasks[t] = TaskResult(t, 0, POINTS[t], why)
                continue
            result.tasks.update(self._autograde_stage(submission.learner, name, tasks))
        self._verify(submission.learner, result)
        return result

    def _verify(self, learner: str, result: LearnerResult) -> None:
        """Re-run the hidden checks of every task whose hidden cell passed, in a fresh
        process (``verify.py``) on the package its stage was graded with (one run per
        different package); a task that fails there loses its hidden points."""
        groups: dict[str, tuple[pathlib.Path, list[str]]] = {}
        for task in (t for t, r in result.tasks.items() if r.hidden_passed):
            package = self.root / "submitted" / learner / STAGES[task.split(".")[0]] / "minitorch"
            groups.setdefault(_digest(package), (package, []))[1].append(task)
        outcome = {}
        for package, tasks in groups.values():
            outcome.update(run_verify(self.root / ".trusted", package, tasks, self.timeout, self.memory_mb))
        for task, error in outcome.items():
            if error is not None:
                r = result.tasks[task]
                r.score, r.hidden_passed = r.score - (POINTS[task] - 1), False
                r.message = "; ".join(filter(None, [r.message, f"{VERIFY_FAILED}: {error}"]))
                self._store_scores(learner, STAGES[task.split(".")[0]], {task: r}, hidden_failed=True)
        return None

    def _autograde_stage(self, learner: str, name: str, tasks: list[str]) -> dict[str, TaskResult]:
        folder = self.root / "autograded" / learner / name
        outcome = self.api.autograde(name, learner, force=True, create=True)  # kernel_environment for its kernels
        notebook = folder / f"{name}.ipynb"
        if not outcome["success"] or not notebook.exists():
            why = "the kernel died while running this stage (os._exit, a crash, or memory exhausted)" \
                if "died" in (outcome.get("log", "") + str(outcome.get("error", ""))).lower() else \
                "this stage could not be run to the end: " + _last_line(outcome)
            return {t: TaskResult(t, 0, POINTS[t], why) for t in tasks}
        results = read_results(notebook, tasks, self.timeout)
        self._store_scores(learner, name, results)
        return results

    def _store_scores(self, learner: str, name: str, results: dict[str, TaskResult],
                      hidden_failed: bool = False) -> None:
        """Our score (the cell raised or not) replaces nbgrader's (which also fails a cell
        that wrote to stderr), so formgrader and our reports agree."""
        notebook = json.loads((self.root / "autograded" / learner / name / f"{name}.ipynb").read_text())
        raised = {c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                  for c in notebook["cells"] if any(o.get("output_type") == "error" for o in c.get("outputs", []))}
        with self.api.gradebook as gb:
            for t in results:
                for grade_id, points in cell_points(t).items():
                    grade = gb.find_grade(grade_id, name, name, learner)
                    failed = grade_id in raised or (hidden_failed and not grade_id.endswith("_visible"))
                    grade.auto_score = 0.0 if failed else float(points)
            gb.db.commit()

    def feedback(self, learner: str, out: pathlib.Path, hide_hidden_tests: bool = True,
                 result: LearnerResult | None = None) -> list[pathlib.Path]:
        """Feedback HTML per stage, copied to ``out``; hidden test source removed if asked.
        A stage that could not run (no package, a dead kernel) gets a page that says why."""
        written = []
        for stage, name in STAGES.items():
            self.api.coursedir.ignore = []
            if hide_hidden_tests:
                _scrub_hidden_tests(self.root / "autograded" / learner / name / f"{name}.ipynb")
            self.api.generate_feedback(name, learner)
            html = self.root / "feedback" / learner / name / f"{name}.html"
            target = out / learner / f"{name}.html"
            target.parent.mkdir(parents=True, exist_ok=True)
            if html.exists() and (self.root / "autograded" / learner / name / f"{name}.ipynb").exists():
                shutil.copyfile(html, target)
            elif result is not None:
                target.write_text(_plain_feedback(result, stage, name))
            else:
                continue
            written.append(target)
        return written


def _share_compiled_templates() -> None:
    """nbgrader makes a new HTML exporter, so a new Jinja environment, for every feedback
    page, and compiling nbconvert's templates was half the cost of a page. The compiled
    templates are kept in memory for the process instead (keyed by the template's name
    and source checksum, so a changed template is compiled again)."""
    import jinja2
    from nbconvert.exporters.templateexporter import TemplateExporter
    if getattr(TemplateExporter, "_minitorch_shared_cache", None) is not None:
        return

    class MemoryCache(jinja2.BytecodeCache):
        def __init__(self) -> None:
            self.store: dict[str, bytes] = {}

        def load_bytecode(self, bucket) -> None:
            if bucket.key in self.store:
                bucket.bytecode_from_string(self.store[bucket.key])

        def dump_bytecode(self, bucket) -> None:
            self.store[bucket.key] = bucket.bytecode_to_string()

    cache = MemoryCache()
    create = TemplateExporter._create_environment

    def create_with_cache(self):
        environment = create(self)
        environment.bytecode_cache = cache
        return environment

    TemplateExporter._create_environment = create_with_cache
    TemplateExporter._minitorch_shared_cache = cache


def _digest(folder: pathlib.Path) -> str:
    """A checksum of a folder's files and their names."""
    import hashlib
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


@contextlib.contextmanager
def _environment(changes: dict[str, str]):
    """Set environment variables (kernels inherit them) for the duration of a block."""
    saved = {k: os.environ.get(k) for k in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def without_ungraded_cells(path: pathlib.Path) -> dict:
    """The notebook without the cells tagged "not-graded" (pictures and demonstrations
    that no graded cell needs): grading runs only what decides the grade."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    notebook["cells"] = [c for c in notebook["cells"]
                         if "not-graded" not in c.get("metadata", {}).get("tags", [])]
    return notebook


_worker_course: Course | None = None


def grade_job(job: tuple[str, str, str, bool, int]) -> tuple[LearnerResult, float]:
    """Grade one learner in a worker process: (course root, learner, path, hide hidden
    tests, seconds per cell)."""
    import tempfile
    import time

    from .submission import locate

    global _worker_course
    course_root, learner, path, hide, timeout = job
    if _worker_course is None or str(_worker_course.root) != course_root:
        _worker_course = Course(pathlib.Path(course_root), timeout=timeout)
    with tempfile.TemporaryDirectory(prefix="minitorch-") as scratch:
        submission = locate(pathlib.Path(path), learner, pathlib.Path(scratch))
        start = time.perf_counter()
        result = _worker_course.grade(submission)
        _worker_course.feedback(learner, pathlib.Path(course_root).parent / "feedback", hide_hidden_tests=hide,
                                result=result)
    return result, time.perf_counter() - start


def run_verify(trusted: pathlib.Path, package: pathlib.Path, tasks: list[str], timeout: int,
               memory_mb: int) -> dict[str, str | None]:
    """Run ``verify.py`` on ``tasks``; if the process dies (os._exit, a crash), the task it was
    on fails and the rest are run again in a new process."""
    scratch = tempfile.mkdtemp(prefix="minitorch-verify-")
    env = dict(os.environ, PYTHONPATH=str(trusted), MINITORCH_MEMORY_LIMIT_MB=str(memory_mb),
               MINITORCH_CPU_SECONDS=str(timeout * (len(tasks) + 2)), MINITORCH_WRITABLE=scratch,
               TMPDIR=scratch, PYTHONDONTWRITEBYTECODE="1")
    env.pop("MINITORCH_UNDER_TEST", None)
    try:
        return _verify_rounds(tasks, trusted, package, timeout, env)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _verify_rounds(tasks: list[str], trusted: pathlib.Path, package: pathlib.Path, timeout: int,
                   env: dict[str, str]) -> dict[str, str | None]:
    import subprocess
    results: dict[str, str | None] = {}
    remaining = list(tasks)
    while remaining:
        # Output to a file, not a pipe: a process the learner's code left running could hold
        # a pipe open and stall the grader. Its own session, so that all it started ends with it.
        with tempfile.TemporaryFile("w+") as out:
            process = subprocess.Popen([sys.executable, "-m", "grader.verify", str(package), str(timeout),
                                        *remaining], cwd=trusted, env=env, stdout=out, stderr=subprocess.DEVNULL,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
            try:
                process.wait(timeout=timeout * (len(remaining) + 2))
            except subprocess.TimeoutExpired:
                pass
            finally:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait()
            out.seek(0)
            lines = out.read()
        for line in lines.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # the learner's code printed something
            if isinstance(record, dict) and record.get("task") in remaining and record["task"] not in results:
                results[record["task"]] = record.get("error")
        remaining = [t for t in remaining if t not in results]
        if remaining:
            results[remaining.pop(0)] = "the process running the checks died or hung here"
    return results


def write_plain_feedback(result: LearnerResult, out: pathlib.Path) -> list[pathlib.Path]:
    """A page per stage saying why it could not be run, replacing any left from an earlier
    run, for a learner whose grading never got as far as nbgrader's feedback."""
    written = []
    for stage, name in STAGES.items():
        target = out / result.learner / f"{name}.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_plain_feedback(result, stage, name))
        written.append(target)
    return written


def _plain_feedback(result: LearnerResult, stage: str, name: str) -> str:
    import html
    rows = "".join(f"<tr><td>Task {t}</td><td>{r.score:g} / {r.max_score:g}</td><td>{html.escape(r.message)}</td></tr>"
                   for t, r in result.tasks.items() if t.split(".")[0] == stage)
    problems = "".join(f"<li>{html.escape(p)}</li>" for p in result.problems)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{name}: {result.learner}</title></head>"
            f"<body><h1>{name}</h1><p>This stage could not be run, so there is no notebook to show.</p>"
            f"<ul>{problems}</ul><table border='1' cellpadding='4'>{rows}</table></body></html>")


def _last_line(outcome: dict) -> str:
    text = (str(outcome.get("error") or "") + "\n" + str(outcome.get("log") or "")).strip().splitlines()
    return text[-1][:300] if text else "unknown error"


def read_results(notebook: pathlib.Path, tasks: list[str], timeout: int) -> dict[str, TaskResult]:
    """Score each task from its two graded cells, the visible checks (``taskX_Y_visible``)
    and the hidden tests (``taskX_Y``): a cell earns its points if it did not raise."""
    cells = json.loads(notebook.read_text())["cells"]
    by_id = {c.get("metadata", {}).get("nbgrader", {}).get("grade_id"): c for c in cells}
    results = {}
    for t in tasks:
        score, messages, hidden_passed = 0.0, [], False
        for grade_id, points in cell_points(t).items():
            cell = by_id.get(grade_id)
            if cell is None:
                messages.append("a graded cell is missing from the notebook")
                continue
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            if errors:
                messages.append(explain_error(errors[0], t, timeout))
            else:
                score += points
                hidden_passed = hidden_passed or not grade_id.endswith("_visible")
        unique = list(dict.fromkeys(messages))  # the same stub error in both cells: say it once
        results[t] = TaskResult(t, score, POINTS[t], " / ".join(unique), hidden_passed)
    return results


def explain_error(error: dict, task: str, timeout: int) -> str:
    name, value = error.get("ename", ""), str(error.get("evalue", "")).strip()
    value = value.removeprefix(f"Task {task}: ")
    if name == "NotImplementedError":
        return f"not implemented yet ({value})" if value else "not implemented yet"
    if name == "StageTimeLimit":
        return f"{value} (an endless loop in an earlier cell?)"
    if name == "KernelEnded":
        return value
    if name in ("CellTimeoutError", "KeyboardInterrupt", "TimeoutError"):
        return (f"ran too long and was stopped (an endless loop?): each cell may run {timeout} s, "
                f"each stage {STAGE_TIME_FACTOR * timeout} s in all")
    if name == "KernelDied":
        return f"{value} (os._exit, a crash, or memory exhausted)"
    if name == "KernelUnresponsive":
        return (f"{value} (each cell may run {timeout} s; does the code catch KeyboardInterrupt, "
                "for example with a bare `except:`? Catch Exception instead)")
    if name == "CheckFailure":
        return value
    if name == "AssertionError":
        return f"a visible check failed{': ' + value if value else ''}"
    if name == "StdinNotImplementedError":
        return "called input(), which nobody can answer while grading: remove the input() call"
    if name == "MemoryError":
        return "ran out of memory (the kernel's memory is limited)"
    return f"{name}: {value}" if value else name


def _scrub_hidden_tests(notebook: pathlib.Path) -> None:
    """Remove hidden test source and tracebacks that quote it from an autograded notebook."""
    if not notebook.exists():
        return
    data = json.loads(notebook.read_text())
    for cell in data["cells"]:
        source = "".join(cell.get("source", ""))
        if "### BEGIN HIDDEN TESTS" in source:
            head, _, rest = source.partition("### BEGIN HIDDEN TESTS")
            _, _, tail = rest.partition("### END HIDDEN TESTS")
            cell["source"] = head + "# (hidden tests)" + tail
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename')}: {output.get('evalue')}"]
    notebook.write_text(json.dumps(data, indent=1))


