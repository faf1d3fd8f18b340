"""The class report an instructor reads after the deadline: a hand-in whose package cannot be
imported is one line with its reason, never a row per part; the real mistakes are ranked by
how many learners made them; each learner's late days, penalty and final score stand
beside the total."""

from __future__ import annotations

import csv
import html
import re
import subprocess
import sys

import pytest
from conftest import ROOT, write_package

from grader.outputs import classreport
from grader.results import Failure, LearnerResult, Verdict, failed_everywhere
from grader.tasks import PARTS, STAGES, TASKS, TOTAL, stage_of

MUL_BUG = ("ops_binary.py", "return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)",
           "return grad * b, grad * a")
SIN_BUG = ("ops_unary.py", "return grad * np.cos(x)", "return grad * np.sin(x)")
SYNTAX = ("tensor.py", "from __future__ import annotations", "from __future__ import annotations\ndef broken(:")


def full_marks(learner: str) -> LearnerResult:
    result = LearnerResult(learner)
    result.add([Verdict(t, p, pts, pts) for t in TASKS for p, pts in PARTS[t].items()])
    return result


def lose(result: LearnerResult, task: str, mistake: str, message: str = "wrong", kind: Failure = Failure.WRONG) -> None:
    for verdict in result.tasks[task].verdicts:
        verdict.earned, verdict.mistake, verdict.message, verdict.kind = 0.0, mistake, message, kind


def test_an_unimportable_package_is_one_line_and_the_real_mistakes_are_ranked():
    first, last = list(STAGES)[0], list(STAGES)[-1]
    ana, bo, cy = full_marks("ana"), full_marks("bo"), full_marks("cy")
    lose(bo, "3.1", "sign error")
    lose(cy, "3.1", "sign error")
    lose(cy, f"{first}.1", "wrong result")
    dave = LearnerResult("dave")
    dave.add(failed_everywhere("the package could not be imported: SyntaxError: invalid syntax", Failure.IMPORT_FAILED))
    eve = full_marks("eve")  # hangs in every part of the last stage only
    for task in (t for t in TASKS if stage_of(t) == last):
        lose(eve, task, Failure.TIMED_OUT.mistake, "took longer than 20 s", Failure.TIMED_OUT)
    results = [ana, bo, cy, dave, eve]
    rows = classreport.mistakes(results)
    assert [(r["task"], r["mistake"], r["learners"]) for r in rows] == \
        [("3.1", "sign error", ["bo", "cy"])] * len(PARTS["3.1"]) + \
        [(f"{first}.1", "wrong result", ["cy"])] * len(PARTS[f"{first}.1"])
    assert classreport.not_graded(results) == [
        {"learner": "dave", "stages": f"stages {first}-{last}",
         "reason": "the package could not be imported: SyntaxError: invalid syntax"},
        {"learner": "eve", "stages": f"stage {last}", "reason": "took longer than 20 s"}]


def test_two_reasons_in_different_stages_stay_on_the_learners_one_line():
    first, second = list(STAGES)[:2]
    result = LearnerResult("fay")
    result.add(failed_everywhere("no package to grade", Failure.NO_PACKAGE, [first]))
    result.add(failed_everywhere("the package could not be imported: ImportError", Failure.IMPORT_FAILED,
                                 [s for s in STAGES if s != first]))
    (row,) = classreport.not_graded([result])
    assert row["stages"] == f"stages {first}-{list(STAGES)[-1]}"
    assert row["reason"].startswith(f"stage {first}: no package to grade; stages {second}-")
    assert classreport.mistakes([result]) == []


@pytest.mark.slow
def test_a_class_with_a_broken_hand_in_and_a_late_one(tmp_path):
    """autograde on a small class: the reference, two learners with the same mistake (one late,
    one with a second mistake), one whose package has a syntax error."""
    hand_ins = tmp_path / "hand-ins"
    write_package(hand_ins / "ana" / "minitorch")
    write_package(hand_ins / "bo" / "minitorch", [MUL_BUG])
    (hand_ins / "bo" / "timestamp.txt").write_text("2026-11-22 09:00:00 UTC")  # two started days late
    write_package(hand_ins / "cy" / "minitorch", [MUL_BUG, SIN_BUG])
    write_package(hand_ins / "dave" / "minitorch", [SYNTAX])
    for learner in ("ana", "cy", "dave"):
        (hand_ins / learner / "timestamp.txt").write_text("2026-11-20 11:00:00 UTC")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(hand_ins), "--out", str(out), "--jobs", "2",
                           "--deadline", "2026-11-20T12:00:00+00:00", "--late-penalty", "10"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = list(csv.DictReader((out / "mistakes.csv").open(encoding="utf-8")))
    assert [r["which"] for r in rows if r["mistake"] == "not graded"] == ["dave"]  # once, not once per part
    (dave,) = [r for r in rows if r["mistake"] == "not graded"]
    assert "SyntaxError" in dave["reason"] and "tensor.py" in dave["reason"]
    assert not any("dave" in r["which"] for r in rows if r["mistake"] != "not graded")
    ranked = [r for r in rows if r["rank"]]
    assert ranked[0]["rank"] == "1" and ranked[0]["which"] == "bo; cy" and ranked[0]["task"] == "2.3"
    shared = [r for r in ranked if r["which"] == "bo; cy"]
    assert ranked[:len(shared)] == shared and {r["task"] for r in shared} == {"2.3"}
    assert {(r["task"], r["which"]) for r in ranked[len(shared):]} == {("3.1", "cy")}
    report = (out / "report.html").read_text(encoding="utf-8")
    assert report.count("SyntaxError") == 1 and "Class report: 4 learners" in report
    mistakes = report[report.index("<h2>What the class got wrong"):report.index("<h2>Scores per stage")]
    assert "dave" not in mistakes and mistakes.index("2.3") < mistakes.index("3.1")
    grades = {r["learner"]: r for r in csv.DictReader((out / "grades.csv").open()) if r["row"] == "graded"}
    bo = grades["bo"]
    cells = re.search(r"<tr><td><a href='feedback/bo\.html'>bo</a></td>(.*?)</tr>", report)[1]
    values = [html.unescape(c) for c in re.findall(r"<td>(?:<b>)?(.*?)(?:</b>)?</td>", cells)]
    assert values[0] == bo["total"] and values[-3:] == ["2", "20%", bo["final"]]
    assert float(bo["final"]) == pytest.approx(float(bo["total"]) * 0.8, abs=0.01)
    assert f"Out of {TOTAL:g} points" in report
    assert (out / "mistakes.png").stat().st_size > 1000


def test_the_plots_are_drawn_beside_the_tables_and_a_drawing_that_fails_fails_the_call(tmp_path, monkeypatch):
    """write_all draws scores.png and mistakes.png in a forked process while it writes the
    tables; a plot that cannot be drawn there is drawn again in the caller, which raises."""
    import os

    from grader.outputs import publish
    ana, bo = full_marks("ana"), full_marks("bo")
    lose(bo, "2.3", "mul: grad not unbroadcast")
    publish.write_all([ana, bo], tmp_path, None)
    for name in ("scores.png", "mistakes.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "grades.csv").is_file() and (tmp_path / "report.html").is_file()
    parent = os.getpid()

    def broken(results, path):
        (tmp_path / f"tried in {os.getpid()}").touch()
        raise RuntimeError(f"no plot in {'the caller' if os.getpid() == parent else 'the forked process'}")
    monkeypatch.setattr(publish, "plot_distribution", broken)
    (tmp_path / "again").mkdir()
    with pytest.raises(RuntimeError, match="no plot in the caller"):   # failed beside first, then here
        publish.write_all([ana, bo], tmp_path / "again", None)
    tried = {int(p.name.split()[-1]) for p in tmp_path.glob("tried in *")}
    assert parent in tried and len(tried) == 2   # and in a process of its own before
    assert (tmp_path / "again" / "grades.csv").is_file()   # the tables were written meanwhile
