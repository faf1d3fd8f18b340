"""Everything a class's grading writes for people, from its results, in one place:
grades.csv, scores.png, mistakes.csv, mistakes.png, report.html and, with a roster, the
LMS exports (``lms/``). ``autograde`` calls it after grading; ``merge`` after collecting the parts of
a class graded in shards (``--shard I/N``) on several machines."""

from __future__ import annotations

import json
import pathlib
import shutil
import sys
import time
from collections.abc import Callable

import grader.files as files
from grader.outputs import classreport
from grader.outputs.lms.registry import write_exports
from grader.outputs.tables import plot_distribution, write_csv
from grader.results import LearnerResult
from grader.tasks import POINTS


def ahead() -> None:
    """Import what the plots need (a third of a second), while the class is graded."""
    import matplotlib.backends.backend_agg
    import matplotlib.figure
    import matplotlib.ticker  # noqa: F401


def write_all(results: list[LearnerResult], out: pathlib.Path, roster: dict | None,
              refused: list[tuple[str, str]] | None = None,
              drawn: Callable[[], None] | None = None) -> tuple[pathlib.Path, list[str]]:
    """``refused``: the entries of the submissions folder not taken for hand-ins (name, why);
    each result's feedback page is ``feedback/<its safe id>.html``. Every learner of
    ``roster`` has a row: one without a result is ``missing`` with 0. Returns the report
    and the learners graded whom the roster lacks. ``drawn``: ``plots_beside``'s wait, for
    plots started earlier of the same results."""
    drawn = drawn or plots_beside(results, out)
    try:
        absent = absentees(results, roster)
        rows, ungraded = classreport.mistakes(results), classreport.not_graded(results)
        write_csv(results, out / files.GRADES, refused or [], absent)
        classreport.write_mistakes_csv(rows, out / files.MISTAKES_CSV, ungraded)
        report = classreport.write_report(results, rows, out, ungraded, absent)
        unknown: list[str] = []
        if roster is not None:
            _, unknown = write_exports({r.learner: r for r in results}, float(sum(POINTS.values())), roster, out)
    finally:
        drawn()
    return report, unknown


def plots_beside(results: list[LearnerResult], out: pathlib.Path) -> Callable[[], None]:
    """Draw scores.png and mistakes.png while the caller goes on; the call returned waits."""
    rows, ungraded = classreport.mistakes(results), classreport.not_graded(results)

    def draw() -> None:
        plot_distribution(results, out / files.SCORES)
        classreport.plot_mistakes(rows, out / files.MISTAKES_PNG, ungraded)
    return _drawn_beside(draw)


def _drawn_beside(draw: Callable[[], None]) -> Callable[[], None]:
    """``draw`` (the plots: a third of a second of a core) in a process forked to run beside
    the tables and pages written meanwhile; the call returned waits for it. Where no process
    can be forked (threads running, no ``fork``), or it failed, ``draw`` runs in this
    process: what fails is raised here as it would have been."""
    import os
    import threading
    if not hasattr(os, "fork") or threading.active_count() > 1:
        draw()
        return lambda: None
    for stream in (sys.stdout, sys.stderr):
        stream.flush()   # or the child would write what is still buffered a second time
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.closerange(3, 1 << 16)   # the run's lock (and all else of the parent's) stays the parent's
            draw()
            code = 0
        finally:
            os._exit(code)   # nothing of the parent's is flushed, closed or cleaned up twice

    def drawn() -> None:
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            draw()
    return drawn


def absentees(results: list[LearnerResult], roster: dict | None) -> list[str]:
    """The learners of the roster without a result: no hand-in (but for one in the roster
    only if they hand in, as Canvas's Test Student)."""
    roster = roster or {}
    return sorted(k for k in set(roster) - {r.learner for r in results} if not roster[k].get(files.ONLY_IF_HANDED_IN))


def write_part(results: list[LearnerResult], out: pathlib.Path, shard: str,
               refused: list[tuple[str, str]] | None = None, submissions: pathlib.Path | None = None,
               why: dict[str, str] | None = None) -> pathlib.Path:
    """One shard's results (each with its safe id), for ``merge``; every shard names the
    same refusals, and the submissions folder (``merge`` runs the copying check on it), and
    why each of its learners was graded (``merge`` logs the changes with it)."""
    target = out / f"part-{shard.replace('/', '-of-')}.json"
    target.write_text(json.dumps({"shard": shard, "results": [r.to_json() for r in results],
                                  "refused": [list(r) for r in refused or []], "why": dict(why or {}),
                                  "submissions": str(submissions) if submissions else None}))
    return target


def reasons_of(parts: list[pathlib.Path]) -> dict[str, str]:
    """Why each learner of the parts was graded, as their shards said."""
    return {k: str(v) for part in parts for k, v in json.loads(part.read_text()).get("why", {}).items()}


def submissions_of(parts: list[pathlib.Path]) -> pathlib.Path | None:
    """The submissions folder the shards of ``parts`` graded, when they name one and the same."""
    named = {json.loads(part.read_text()).get("submissions") for part in parts}
    return pathlib.Path(named.pop()) if len(named) == 1 and None not in named else None


def merge(out: pathlib.Path, parts: list[pathlib.Path], roster: dict | None) -> tuple[pathlib.Path, list[str]]:
    """Collect shard outputs (each a part-*.json beside its feedback/) into ``out``."""
    results: list[LearnerResult] = []
    refused: set[tuple[str, str]] = set()
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    for part in parts:
        data = json.loads(part.read_text())
        refused |= {(str(name), str(why)) for name, why in data.get("refused", [])}
        ours = [LearnerResult.from_json(r) for r in data["results"]]
        for result in ours:
            page = part.parent / "feedback" / f"{result.sid}.html"
            if result.sid and page.is_file():
                shutil.copyfile(page, out / "feedback" / page.name)
        results += ours
    learners = [r.learner for r in results]
    if len(set(learners)) != len(learners):
        raise ValueError("a learner appears in more than one part: were the same shards graded twice?")
    return write_all(results, out, roster, sorted(refused))


class Progress:
    """A text progress bar for class grading: count, rate and time left, one line per learner."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self.start = total, 0, time.perf_counter()

    def line(self, learner: str, score: float, most: float, seconds: float) -> str:
        self.done += 1
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate else 0.0
        bar = "#" * round(20 * self.done / max(self.total, 1))
        return (f"  [{bar:<20}] {self.done}/{self.total}  {rate * 60:.0f} learners/min  ~{left:.0f} s left  "
                f"{learner}: {score:g} / {most:g} ({seconds:.1f} s)")


class Phases:
    """Where a run's wall time went, phase by phase: ``lap(name)`` ends the phase under way."""

    def __init__(self) -> None:
        self.start, self.laps = time.perf_counter(), dict[str, float]()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = self.laps.get(name, 0.0) + now - self.start
        self.start = now

    def line(self) -> str:
        return "Where the time went: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.laps.items())
