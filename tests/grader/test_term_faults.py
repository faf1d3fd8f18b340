"""A term under faults: ``autograde`` killed (SIGKILL) at every point where it writes the
term's record, during a run that grades a resubmission, takes an extension and a
correction for work handed in on paper; and two runs into one folder at once.

Each run is a fork of this process (``grader/term/faults.py`` kills it at its Nth point), so
the imports are paid once; the checks are a stand-in (``fake_grade``: a hand-in's
``passes.py`` says which tasks pass), and the copying check and the plots are left out: what
is under test is the term's record, not grading. After each kill the next run completes; its
grades.csv is the uninterrupted run's, the log replays to it, and the log's lines since the
week began are the uninterrupted run's lines, none lost, none twice, each with its reason."""

from __future__ import annotations

import html
import json
import os
import pathlib
import shutil
import socket
import sys
import time

import pytest

from grader.commands import autograde
from grader.lateness import LatePolicy
from grader.results import Failure, LearnerResult, Verdict, failed_everywhere
from grader.settings import Settings
from grader.tasks import PARTS, TASKS
from grader.term import log

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEADLINE = "2026-11-20T12:00:00+00:00"
FEW, MORE = list(TASKS)[:1], list(TASKS)[:2]   # one stage apart: a resubmission records one stage again
FIRST = list(TASKS)[0]


def fake_grade(hand_in, settings) -> LearnerResult:
    """The checks' stand-in: the tasks named in the package's passes.py pass, the rest fail."""
    package = next(iter(hand_in.packages.values()))
    passed = set((package / "passes.py").read_text().split("=")[1].strip(" \n'").split())
    if os.environ.get("SLOW_GRADING"):
        time.sleep(float(os.environ["SLOW_GRADING"]))
    result = LearnerResult(hand_in.learner)
    result.add([v for v in failed_everywhere("wrong", Failure.WRONG) if v.task not in passed])
    result.add([Verdict(t, p, pts, pts) for t in passed for p, pts in PARTS[t].items()])
    return result


def hand_in(folder: pathlib.Path, learner: str, tasks: list[str]) -> None:
    package = folder / learner / "minitorch"
    if not package.exists():
        shutil.copytree(ROOT / "minitorch", package, ignore=shutil.ignore_patterns("__pycache__", "data"))
    (package / "passes.py").write_text(f"PASSES = '{' '.join(tasks)}'\n")


@pytest.fixture(scope="module")
def quick():
    """Grading in this process with the stand-in; no copying check, no plots."""
    import grader.class_grading.jobs as jobs
    import grader.class_grading.pool as pool
    import grader.outputs.classreport as classreport
    import grader.outputs.publish as publish
    import grader.similarity as similarity
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jobs, "grade_stages", fake_grade)
        patch.setattr(pool, "grade_class", lambda batch, workers, done, grade=jobs.grade_job, meanwhile=lambda: None:
                      [meanwhile(), *[done(*grade(job)) for job in batch]])
        patch.setattr(publish, "plot_distribution", lambda *a: None)
        patch.setattr(classreport, "plot_mistakes", lambda *a: None)
        patch.setattr(similarity, "along_with_grading", lambda *a, **k: [])
        yield


@pytest.fixture(scope="module")
def week1(quick, tmp_path_factory) -> pathlib.Path:
    """A term's first week, uninterrupted: bo on time, cy a day late, di on the roster with
    no hand-in. Each test starts from a copy of it, in the same place (``term``)."""
    import grader.class_grading.jobs as jobs
    root = tmp_path_factory.mktemp("week1")
    folder, out = root / "term" / "submissions", root / "term" / "out"
    (root / "term" / "roster.csv").parent.mkdir()
    (root / "term" / "roster.csv").write_text("learner\nbo\ncy\ndi\n")
    hand_in(folder, "bo", FEW)
    hand_in(folder, "cy", MORE)
    out.mkdir()
    (out / "submitted.csv").write_text("learner,submitted_at\nbo,2026-11-19T11:00:00\ncy,2026-11-21T09:00:00\n")
    # in this process, so that every fork after it has what a run imports already
    assert autograde.main(submissions=folder, out=out, settings=Settings(), jobs=1,
                          roster=root / "term" / "roster.csv", late=LatePolicy.parse(DEADLINE, 10)) == 0
    jobs.open_course.cache_clear()
    shutil.copytree(root / "term", root / "snapshot", symlinks=True)
    return root


@pytest.fixture
def term(week1) -> pathlib.Path:
    shutil.rmtree(week1 / "term")
    shutil.copytree(week1 / "snapshot", week1 / "term", symlinks=True)
    return week1 / "term"


def start(folder: pathlib.Path, out: pathlib.Path, said: pathlib.Path, **env: str) -> int:
    """A run of autograde in a fork of this process, its output in ``said``; its pid."""
    pid = os.fork()
    if pid == 0:   # the child: never returns into pytest
        code = 3
        try:
            os.environ.update(env)
            sys.stdout = sys.stderr = open(said, "w", buffering=1)   # until the fork ends
            code = autograde.main(submissions=folder, out=out, settings=Settings(), jobs=1,
                                  roster=out.parent / "roster.csv", late=LatePolicy.parse(DEADLINE, 10))
        finally:
            sys.stdout.flush()
            os._exit(code)
    return pid


def run(folder, out, said, **env) -> int:
    """Exit code, or minus the signal that ended the run."""
    _, status = os.waitpid(start(folder, out, said, **env), 0)
    return os.waitstatus_to_exitcode(status)


def grades(out: pathlib.Path) -> dict[str, dict[str, str]]:
    return log.read_grades(out / "grades.csv")


def lines(out: pathlib.Path, since: int) -> list[tuple]:
    """The log's lines after the first ``since``, without when and which run."""
    return sorted((x["learner"], x["what"], x["before"], x["after"], x["why"]) for x in log.read(out)[since:])


def test_a_run_killed_at_any_point_loses_nothing(term):
    folder, out, said = term / "submissions", term / "out", term / "said.txt"
    week1 = len(log.read(out))
    late = {x["why"] for x in log.read(out) if x["learner"] == "cy"}
    assert late == {"a first hand-in; late: handed in 2026-11-21 09:00 UTC (time from submitted.csv), 1 day after "
                    "the deadline 2026-11-20 12:00 UTC (the class's): 10% off"}

    # Week 2: bo hands in again (graded), cy's extension, di's work on paper corrected.
    hand_in(folder, "bo", MORE)
    (out / "submitted.csv").write_text((out / "submitted.csv").read_text().replace("-19T11", "-20T11"))
    (out / "extensions.csv").write_text("learner,days,reason\ncy,2,illness\n")
    (out / "corrections.csv").write_text(f"learner,task,points,reason\ndi,{FIRST},"
                                         f"{sum(PARTS[FIRST].values()):g},handed in on paper\n")
    before = term / "before"
    shutil.copytree(out, before, symlinks=True)
    trail = term / "trail.txt"
    assert run(folder, out, said, MINITORCH_KILL_LOG=str(trail)) == 0, said.read_text()
    points = trail.read_text().splitlines()
    reference, logged = grades(out), lines(out, week1)
    assert reference["bo"]["final"] == reference["cy"]["final"] != "0"   # cy no longer late
    assert reference["di"]["row"] == "graded" and float(reference["di"]["final"]) == sum(PARTS[FIRST].values())
    whys = {x[0]: x[4] for x in logged}
    assert whys["bo"] == "a new hand-in" and whys["cy"].startswith("a new deadline: 2026-11-22 12:00 UTC")
    assert whys["di"] == f"task {FIRST}: correction: handed in on paper (no hand-in)"

    left = {}
    for n in range(1, len(points) + 1):
        shutil.rmtree(out)
        shutil.copytree(before, out, symlinks=True)
        assert run(folder, out, said, MINITORCH_KILL_AT=str(n)) == -9, (points[n - 1], said.read_text())
        left[points[n - 1]] = grades(out) == reference, log.rebuild(out) == grades(out)
        assert run(folder, out, said) == 0, said.read_text()
        assert "was cut short; its lock is taken over" in said.read_text()
        assert grades(out) == reference and log.rebuild(out) == grades(out), points[n - 1]
        assert lines(out, week1) == logged, points[n - 1]   # none lost, none twice, the same reasons
    print("kill points (grades.csv already new, log agreeing):", json.dumps(left, indent=1))
    assert len(points) >= 7 and any(new and not agree for new, agree in left.values())


def test_two_runs_into_one_folder_one_refuses_at_once(term):
    folder, out = term / "submissions", term / "out"
    hand_in(folder, "bo", MORE)
    first = start(folder, out, term / "first.txt", SLOW_GRADING="1")
    lock = out / "term.lock"
    deadline = time.monotonic() + 30
    while not lock.read_text():
        assert time.monotonic() < deadline, (term / "first.txt").read_text()
        time.sleep(0.01)
    began = time.monotonic()
    assert run(folder, out, term / "second.txt") == 2 and time.monotonic() - began < 1
    said = (term / "second.txt").read_text()
    holder = json.loads(lock.read_text())
    assert f"is in use by another run: pid {first} on {socket.gethostname()}, started {holder['started']}" in said
    assert "nothing was changed" in said
    _, status = os.waitpid(first, 0)
    assert os.waitstatus_to_exitcode(status) == 0, (term / "first.txt").read_text()
    assert lock.read_text() == "" and log.rebuild(out) == grades(out) and grades(out)["bo"]["task" + MORE[1]] != "0"


def test_a_manual_grade_in_formgrader_has_its_comment_for_reason(term):
    from nbgrader.api import Gradebook

    from grader.gradebook.course import COMMENTS
    from grader.tasks import STAGES, marker, stage_of
    folder, out, said = term / "submissions", term / "out", term / "said.txt"
    name = STAGES[stage_of(FIRST)]
    with Gradebook(f"sqlite:///{out / 'course' / 'gradebook.db'}") as gradebook:   # as formgrader writes them
        gradebook.find_grade(marker(FIRST), name, name, "bo").manual_score = 0.5
        gradebook.find_comment(COMMENTS, name, name, "bo").manual_comment = "the test was copied from the notebook"
        gradebook.db.commit()
    assert run(folder, out, said) == 0, said.read_text()
    reason = "a manual grade given in nbgrader's formgrader: the test was copied from the notebook"
    assert grades(out)["bo"][f"task{FIRST}"] == "0.5"
    assert {x["why"] for x in log.read(out) if x["learner"] == "bo" and x["what"] == f"task{FIRST}"} >= {
        f"task {FIRST}: {reason}"}
    assert html.escape(reason) in (out / "feedback" / "bo.html").read_text()


def test_a_merge_killed_before_it_logged_is_logged_by_the_next(tmp_path, quick):
    from grader.commands import merge
    from grader.outputs.publish import write_part
    parts = []
    for n, (learner, tasks) in enumerate((("ana", FEW), ("bo", MORE))):
        shard = tmp_path / f"shard{n}"
        shard.mkdir()
        result = LearnerResult(learner, learner)
        result.add([v for v in failed_everywhere("wrong", Failure.WRONG) if v.task not in tasks])
        result.add([Verdict(t, p, pts, pts) for t in tasks for p, pts in PARTS[t].items()])
        parts.append(write_part([result], shard, f"{n + 1}/2", why={learner: "a first hand-in"}))
    out, said = tmp_path / "merged", tmp_path / "said.txt"
    out.mkdir()

    def merged(**env: str) -> int:
        pid = os.fork()
        if pid == 0:
            code = 3
            try:
                os.environ.update(env)
                sys.stdout = sys.stderr = open(said, "w", buffering=1)   # until the fork ends
                code = merge.main(out=out, parts=parts)
            finally:
                sys.stdout.flush()
                os._exit(code)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

    assert merged(MINITORCH_KILL_AT="1") == -9 and set(grades(out)) == {"ana", "bo"} and log.rebuild(out) == {}
    assert merged() == 0, said.read_text()
    assert "was cut short" in said.read_text() and log.rebuild(out) == grades(out)
    assert sorted(x["learner"] for x in log.read(out) if x["what"] == "row") == ["ana", "bo"]
    assert {x["why"] for x in log.read(out)} == {"a first hand-in"}


def test_a_change_an_older_grader_never_logged_is_logged_with_what_is_known(term):
    folder, out, said = term / "submissions", term / "out", term / "said.txt"
    kept = [line for line in (out / "log.jsonl").read_text().splitlines() if '"learner": "bo"' not in line]
    (out / "log.jsonl").write_text("".join(f"{line}\n" for line in kept))   # bo's first grade never logged
    assert run(folder, out, said) == 0, said.read_text()
    assert log.rebuild(out) == grades(out)
    assert {x["why"] for x in log.read(out) if x["learner"] == "bo"} == {
        "a change by an earlier run, cut short before it logged it"}
