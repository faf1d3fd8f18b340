"""The term's record, without grading anyone: the instructor's files read strictly (each
wrong row named by file, row and problem), hand-ins kept by content and never overwritten,
which one counts, verdicts kept under their grading inputs, and the audit log that
rebuilds grades.csv's scores."""

import datetime as dt
import json
import os
import re

import pytest

from grader.settings import Settings
from grader.term import graded, kept, log, sheets
from grader.term.sheets import SheetError

UTC = dt.UTC
LEARNERS = {"ana", "bo"}


def write(folder, name, text):
    (folder / name).write_text(text)
    return folder / name


@pytest.mark.parametrize("text, problem", [
    ("learner,task,points,reason\nzed,1.1,1,x\n", "row 2: unknown learner 'zed'"),
    ("learner,task,points,reason\nana,9.9,1,x\n", "row 2: unknown task '9.9'"),
    ("learner,task,points,reason\nana,1.1,99,x\n", "row 2: points 99 for task 1.1: it is worth 0 to"),
    ("learner,task,points,reason\nana,1.1,one,x\n", "row 2: points 'one' is not a number"),
    ("learner,task,points,reason\nana,1.1,1,x\nbo,1.1,1,y\nana,1.1,0,z\n", "row 4: a second row for ana, 1.1 (the first "
                                                                         "is row 2)"),
    ("learner,task,points,reason\nana,1.1,1,\n", "row 2: no reason"),
    ("learner,task,reason\nana,1.1,x\n", "row 1: the header lacks the column(s) points"),
])
def test_a_wrong_correction_is_named_by_file_row_and_problem(tmp_path, text, problem):
    path = write(tmp_path, "corrections.csv", text)
    with pytest.raises(SheetError) as error:
        sheets.corrections(tmp_path, LEARNERS)
    assert str(error.value).startswith(f"{path}, ") and problem in str(error.value)


@pytest.mark.parametrize("name, text, problem", [
    ("extensions.csv", "learner,deadline,reason\nana,next friday,ill\n", "row 2: deadline 'next friday' is not an ISO"),
    ("extensions.csv", "learner,deadline,days,reason\nana,2026-12-01,2,ill\n", "row 2: give either a deadline or"),
    ("extensions.csv", "learner,days,reason\nana,2,ill\nana,3,ill\n", "row 3: a second row for ana"),
    ("extensions.csv", "learner,days,reason\nbo,1,ill\nana,-3,ill\n", "row 3: days '-3': an extension adds a positive"),
    ("extensions.csv", "learner,days,reason\nana,0,ill\n", "row 2: days '0': an extension adds a positive"),
    ("extensions.csv", "learner,days,reason\nana,nan,ill\n", "row 2: days 'nan': an extension adds a positive"),
    ("extensions.csv", "learner,reason\nana,ill\n", "row 1: the header needs a deadline or a days column"),
    ("submitted.csv", "learner,submitted_at\nbo,yesterday\n", "row 2: submitted_at 'yesterday' is not an ISO"),
    ("submitted.csv", "learner,submitted_at\nzed,2026-11-20T10:00\n", "row 2: unknown learner 'zed'"),
])
def test_a_wrong_extension_or_time_is_named_by_file_row_and_problem(tmp_path, name, text, problem):
    write(tmp_path, name, text)
    deadline = dt.datetime(2026, 11, 20, 12, tzinfo=UTC)
    with pytest.raises(SheetError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        if name == "extensions.csv":
            sheets.extensions(tmp_path, LEARNERS, deadline)
        else:
            sheets.submitted(tmp_path, LEARNERS)


def test_with_a_roster_a_correction_names_a_learner_of_it_hand_in_or_not(tmp_path):
    from grader.class_grading.term_run import read_sheets
    from grader.intake.submissions import Found
    from grader.lateness import LatePolicy
    found = [Found("bo", "bo", tmp_path / "bo")]   # handed in, but not on the roster
    write(tmp_path, "corrections.csv", "learner,task,points,reason\nana,1.1,1,on paper\n")
    assert [c.learner for c in read_sheets(tmp_path, found, {"ana": {}}, LatePolicy()).corrections] == ["ana"]
    path = write(tmp_path, "corrections.csv", "learner,task,points,reason\nana,1.1,1,on paper\nbo,1.1,1,x\n")
    with pytest.raises(SheetError, match=f"^{path}, row 3: unknown learner 'bo' \\(not on the roster\\)$"):
        read_sheets(tmp_path, found, {"ana": {}}, LatePolicy())
    write(tmp_path, "corrections.csv", "learner,task,points,reason\nbo,1.1,1,x\n")   # no roster: those seen
    assert [c.learner for c in read_sheets(tmp_path, found, None, LatePolicy()).corrections] == ["bo"]


def test_the_instructors_files_are_read_when_right(tmp_path):
    write(tmp_path, "extensions.csv", "learner,deadline,days,reason\nana,,2.5,ill\nbo,2026-12-01T09:00,,exam\n")
    write(tmp_path, "corrections.csv", "learner,task,points,reason\nbo,2.2,4,regrade request\n")
    write(tmp_path, "submitted.csv", "learner,submitted_at\nana,2026-11-20T10:00:00+01:00\n")
    deadline = dt.datetime(2026, 11, 20, 12, tzinfo=UTC)
    extensions = sheets.extensions(tmp_path, LEARNERS, deadline)
    assert extensions["ana"].deadline == dt.datetime(2026, 11, 23, 0, tzinfo=UTC)
    assert extensions["bo"].deadline == dt.datetime(2026, 12, 1, 9, tzinfo=UTC)
    assert sheets.corrections(tmp_path, LEARNERS) == [sheets.Correction("bo", "2.2", 4.0, "regrade request")]
    assert sheets.submitted(tmp_path, LEARNERS)["ana"][0].at == dt.datetime(2026, 11, 20, 9, tzinfo=UTC)
    assert sheets.corrections(tmp_path / "none", LEARNERS) == []   # no file: nothing to apply


def test_every_hand_in_is_kept_by_content_never_overwritten(tmp_path):
    out, hand_in = tmp_path / "out", tmp_path / "ana"
    (hand_in / "minitorch").mkdir(parents=True)
    (hand_in / "minitorch" / "__init__.py").write_text("first")
    (hand_in / ".venv").mkdir()
    (hand_in / ".venv" / "big").write_text("left out")
    first = kept.keep(out, "ana", hand_in, None, "nothing")
    assert kept.keep(out, "ana", hand_in, None, "nothing") == first          # unchanged: one entry
    (hand_in / "minitorch" / "__init__.py").write_text("second")
    second = kept.keep(out, "ana", hand_in, dt.datetime(2026, 11, 21, tzinfo=UTC), "timestamp.txt")
    assert second.content != first.content and len(kept.entries(out, "ana")) == 2
    assert (out / first.file / "minitorch" / "__init__.py").read_text() == "first"
    assert (out / second.file / "minitorch" / "__init__.py").read_text() == "second"
    assert not (out / first.file / ".venv").exists()


def test_which_hand_in_counts_is_the_courses_setting():
    def entry(content, day):
        return kept.Kept(content, "ana", dt.datetime(2026, 11, day, tzinfo=UTC).isoformat(), "submitted.csv", "x")
    listed = [entry("b", 21), entry("a", 19), entry("c", 25)]
    deadline = dt.datetime(2026, 11, 22, tzinfo=UTC)
    assert [k.content for k in kept.counting(listed, "last-before-deadline", deadline)] == ["b"]
    assert [k.content for k in kept.counting(listed, "last", deadline)] == ["c"]
    assert [k.content for k in kept.counting(listed, "best", deadline)] == ["a", "b", "c"]
    early = dt.datetime(2026, 11, 1, tzinfo=UTC)   # none before the deadline: the first after it
    assert [k.content for k in kept.counting(listed, "last-before-deadline", early)] == ["a"]


def test_verdicts_are_kept_under_their_content_and_grading_inputs(tmp_path):
    assert graded.key("abc", Settings()) == graded.key("abc", Settings())
    assert graded.key("abc", Settings()) != graded.key("abd", Settings())
    assert graded.key("abc", Settings()) != graded.key("abc", Settings(call_seconds=5))


def test_grades_can_be_rebuilt_from_the_log(tmp_path):
    first = {"ana": {"row": "graded", "final": "80", "task1.1": "2"}}
    second = {"ana": {"row": "graded", "final": "70", "task1.1": "1"}, "bo": {"row": "missing", "final": "0"}}
    log.append(tmp_path, log.changes({}, first, {"ana": "a first hand-in"}, "run-1"))
    log.append(tmp_path, log.changes(first, second, {"ana": "a correction"}, "run-2"))
    lines = log.read(tmp_path)
    assert {(line["learner"], line["what"], line["before"], line["after"], line["why"]) for line in lines
            if line["run"] == "run-2"} >= {("ana", "final", "80", "70", "a correction")}
    assert log.rebuild(tmp_path) == second
    assert all(json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines())
    with (tmp_path / "log.jsonl").open("a") as file:   # a line cut short by a run killed while logging it
        file.write('{"learner": "ana", "what": "final", "af')
    assert log.rebuild(tmp_path) == second and log.repair(tmp_path) and not log.repair(tmp_path)
    assert (tmp_path / "log.jsonl").read_text().endswith("}\n")
    log.append(tmp_path, log.changes(second, first, {"ana": "a correction withdrawn"}, "run-3"))
    assert log.rebuild(tmp_path) == first


def test_one_run_at_a_time_and_a_killed_runs_lock_taken_over(tmp_path):
    import socket

    from grader.term.lock import Busy, Lock
    first = Lock(tmp_path, "autograde")
    first.acquire()
    held = json.loads((tmp_path / "term.lock").read_text())
    with pytest.raises(Busy, match=re.escape(f"in use by another run: pid {os.getpid()} on {socket.gethostname()}, "
                                             f"started {held['started']} (autograde); nothing was changed")):
        Lock(tmp_path, "merge").acquire()
    first.release()
    assert (tmp_path / "term.lock").read_text() == ""
    dead = {"pid": 2 ** 22 + 1, "ticks": "1", "host": socket.gethostname(), "started": "then", "command": "autograde"}
    (tmp_path / "term.lock").write_text(json.dumps(dead))   # left by a run killed on this host
    with Lock(tmp_path, "merge") as taken:
        assert f"pid {dead['pid']} on {socket.gethostname()}, started then (autograde), was cut short" in taken.note()
    elsewhere = dict(dead, host="another-host")
    (tmp_path / "term.lock").write_text(json.dumps(elsewhere))   # a shared folder: never presumed dead
    with pytest.raises(Busy, match="held by a run of another host, pid .* on another-host.*remove .*term.lock"):
        Lock(tmp_path, "autograde").acquire()
    assert json.loads((tmp_path / "term.lock").read_text()) == elsewhere
