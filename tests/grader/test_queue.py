"""Grading on a queue, with real parts: Debian's redis-server as the broker and two
`python -m grader worker` processes on this machine, started here. The class is graded
locally once (`--jobs 2`); the queue must give the same grades.csv when all goes well, when
a worker is killed in the middle of a learner, and when a worker is killed and the broker restarts
and forgets everything it held."""

import csv
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest
from conftest import ROOT, write_package
from hostile import CHEATS, HOSTILE_IMPORTS, on_import, stubbed_with

from grader.tasks import TOTAL

FULL = f"{TOTAL:g}"

pytestmark = pytest.mark.slow  # run by `make test`, not `make test-fast`

LEASE = "12"
LEARNERS = ("ana", "bo", "cy", "slow", "stray", "writes-checks")
CHECKS = (ROOT / "grader" / "checks" / "__init__.py").read_bytes()  # seconds before a hand-in taken by a dead worker goes to another

SLOW = '''
import time as _time
_first_call = [True]
_central_difference = central_difference


def central_difference(*args, **kwargs):  # a learner whose first call takes a while
    if _first_call:
        _first_call.clear()
        _time.sleep(5)
    return _central_difference(*args, **kwargs)
'''


@pytest.fixture(scope="module")
def hand_ins(tmp_path_factory) -> pathlib.Path:
    folder = tmp_path_factory.mktemp("queue") / "hand-ins"
    write_package(folder / "ana" / "minitorch")
    shutil.copytree(ROOT / "minitorch", folder / "bo" / "minitorch")  # the stubs: nothing done
    write_package(folder / "cy" / "minitorch", [("ops_unary.py", "return grad / x", "return grad * x")])
    slow = write_package(folder / "slow" / "minitorch")
    (slow / "numerical.py").write_text((slow / "numerical.py").read_text() + SLOW)
    on_import(HOSTILE_IMPORTS["stray-process"])(folder, "stray")          # confined on a worker too
    stubbed_with(CHEATS["empties-checks"])(folder, "writes-checks")
    return folder


@pytest.fixture(scope="module")
def local_grades(hand_ins, tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("local")
    done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(hand_ins), "--out", str(out), "--jobs", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    grades = (out / "grades.csv").read_text()
    assert [row[1:3] for row in csv.reader(grades.splitlines()) if row[0] == "graded"] == [
        ["ana", FULL], ["bo", "0"], ["cy", f"{TOTAL - 0.5:g}"], ["slow", FULL], ["stray", FULL], ["writes-checks", "0"]]
    return grades


class Redis:
    """A redis-server of its own on a free port, keeping nothing on disk: a restart loses
    every queued message and every stored result."""

    def __init__(self, folder: pathlib.Path) -> None:
        if shutil.which("redis-server") is None:
            pytest.fail("redis-server is not installed (apt-get install redis-server; .ci/run does it)")
        self.folder, self.process = folder, None
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                         "--save", "", "--appendonly", "no", "--dir", str(self.folder)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.1)
        pytest.fail("redis-server did not start")

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture
def broker(tmp_path):
    redis = Redis(tmp_path)
    yield redis
    redis.kill()


@pytest.fixture
def workers(broker, tmp_path):
    started = {}
    for name in ("w1", "w2"):
        log = tmp_path / f"{name}.log"
        started[name] = (subprocess.Popen(
            [sys.executable, "-m", "grader", "worker", "--broker", broker.url, "--concurrency", "1", "--lease", LEASE,
             "--name", f"{name}@test"], cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT,
            start_new_session=True), log)
    for _, log in started.values():
        wait_for(lambda: "ready." in log.read_text(), 60, f"the worker of {log} did not start")
    yield started
    for process, _ in started.values():
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


def wait_for(condition, seconds: float, why: str) -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, why
        time.sleep(0.2)


def start_grading(hand_ins, out, broker) -> tuple[subprocess.Popen, pathlib.Path]:
    log = out.parent / f"{out.name}.log"
    process = subprocess.Popen([sys.executable, "-m", "grader", "autograde", str(hand_ins), "--out", str(out),
                                "--broker", broker.url, "--lease", LEASE], cwd=ROOT, stdout=log.open("w"),
                               stderr=subprocess.STDOUT)
    return process, log


def finish(process, log) -> str:
    assert process.wait(600) == 0, log.read_text()[-3000:]
    return log.read_text()


def graded_once(out: pathlib.Path, local_grades: str) -> None:
    """grades.csv as local grading wrote it, each learner once in nbgrader's gradebook, and
    once in the log, which replays to grades.csv."""
    from nbgrader.api import Gradebook

    from grader.term import log
    assert (out / "grades.csv").read_text() == local_grades
    assert log.rebuild(out) == log.read_grades(out / "grades.csv")
    rows = sorted(line["learner"] for line in log.read(out) if line["what"] == "row")
    assert rows == sorted(LEARNERS) and {line["why"] for line in log.read(out)} == {"a first hand-in"}
    assert sorted(p.name for p in (out / "feedback").iterdir()) == [f"{learner}.html" for learner in LEARNERS]
    with Gradebook(f"sqlite:///{out / 'course' / 'gradebook.db'}") as gradebook:
        totals = {s.id: sum(gradebook.find_submission(a.name, s.id).score for a in gradebook.assignments)
                  for s in gradebook.students}
    assert totals == {"ana": TOTAL, "bo": 0, "cy": TOTAL - 0.5, "slow": TOTAL, "stray": TOTAL, "writes-checks": 0}
    assert (ROOT / "grader" / "checks" / "__init__.py").read_bytes() == CHECKS, "a learner wrote to the checks"
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "minitorch-stray-marker" not in ps.replace("ps -eo args", ""), "a learner's process outlived its grading"


def test_two_workers_grade_as_local_grading_does(hand_ins, local_grades, workers, broker, tmp_path):
    out = tmp_path / "queued"
    text = finish(*start_grading(hand_ins, out, broker))
    graded_once(out, local_grades)
    assert "6/6" in text and "learners/min" in text and "s left" in text  # the progress bar
    assert text.count("Similarity: 6 hand-in(s)") == 1 and (out / "similarity.csv").is_file()  # once, at the end
    assert text.index("Similarity: ") > text.index("6/6")
    logs = {name: log.read_text() for name, (_, log) in workers.items()}
    assert all("graded " in log for log in logs.values()), "both workers took a share"


def test_a_worker_killed_mid_learner_leaves_it_to_the_other(hand_ins, local_grades, workers, broker, tmp_path):
    out = tmp_path / "killed"
    process, log = start_grading(hand_ins, out, broker)
    wait_for(lambda: any(" INFO grading slow" in w.read_text() for _, w in workers.values()), 120, "nobody took slow")
    victim = next(name for name, (_, w) in workers.items() if " INFO grading slow" in w.read_text())
    time.sleep(1)
    os.killpg(workers[victim][0].pid, signal.SIGKILL)
    text = finish(process, log)
    graded_once(out, local_grades)
    survivor = workers["w2" if victim == "w1" else "w1"][1].read_text()
    assert f"graded slow: {FULL} / {FULL}" in survivor and "delivery 2" in survivor
    assert "graded slow" not in workers[victim][1].read_text()
    assert text.count(f"slow: {FULL}") == 1
    wait_for(lambda: not learner_processes(), 30, "a learner's process outlived the worker killed under it")


def learner_processes() -> list[str]:
    """The confined processes (grader/learner/process.py) this checkout's grader has running."""
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return [line for line in ps.splitlines() if "import grader.learner.process" in line and repr(str(ROOT)) in line]


def test_a_broker_restart_loses_no_grade(hand_ins, local_grades, workers, broker, tmp_path):
    out = tmp_path / "restarted"
    process, log = start_grading(hand_ins, out, broker)
    wait_for(lambda: f"sent {len(LEARNERS)} hand-in(s)" in log.read_text(), 120, "the class was not sent")
    wait_for(lambda: all(" INFO grading " in w.read_text() for _, w in workers.values()), 120, "nobody started grading")
    os.killpg(workers["w1"][0].pid, signal.SIGKILL)   # a worker killed in the middle of a hand-in, then
    broker.kill()   # the broker: the hand-in being graded on w2 comes back; the four still queued are gone
    time.sleep(2)
    broker.start()
    text = finish(process, log)
    graded_once(out, local_grades)
    assert "outstanding hand-in(s) again" in text  # sent again after a lease without news
    # each learner's progress line (its score) once; the copying check's lines name learners too
    assert all(len(re.findall(rf"  {re.escape(learner)}: [\d.]+ / ", text)) == 1 for learner in LEARNERS), text[-3000:]
