"""The boundary around a learner's code: what its process can read, write, reach and
leave behind, and how the grader survives it dying, hanging or lying."""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

from grader.boundary.cage import Cage, clear_abandoned
from grader.boundary.confinement import landlock_abi
from grader.boundary.runner import LearnerProcess, Lost, Raised, Unimportable
from grader.settings import Settings

ROOT = pathlib.Path(__file__).resolve().parents[2]
confined = pytest.mark.skipif(landlock_abi() < 6 and not os.environ.get("CI"), reason="needs Landlock ABI 6")

PROBING = '''
import os, socket, subprocess, sys

def attempt(action):
    try:
        action()
        return "done"
    except BaseException as error:
        return type(error).__name__

def probe(root, outside):
    return {
        "read the grader": attempt(lambda: open(root + "/grader/checks/stage2.py").read()),
        "read the solutions": attempt(lambda: open(root + "/solutions/minitorch/shapes.py").read()),
        "list a folder outside": attempt(lambda: os.listdir(outside)),
        "write outside": attempt(lambda: open(outside + "/planted", "w").write("x")),
        "write /dev/shm": attempt(lambda: open("/dev/shm/minitorch-planted", "w").write("x")),
        "write its own package": attempt(lambda: open(__file__, "a").write("#")),
        "chmod its own package": attempt(lambda: os.chmod(__file__, 0o777)),
        "utime its own package": attempt(lambda: os.utime(__file__, (0, 0))),
        "signal the grader": attempt(lambda: os.kill(os.getppid(), 0)),
        "connect over TCP": attempt(lambda: socket.create_connection(("127.0.0.1", 9), timeout=1)),
        "open a UDP socket": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)),
        "run a shell": attempt(lambda: subprocess.run(["/bin/sh", "-c", "true"])),
        "write its scratch folder": attempt(lambda: open("scratch.txt", "w").write("x")),
        "import scipy.special": attempt(lambda: __import__("scipy.special")),
    }

def leave_a_process_running():
    code = "import os, time\\nif os.fork() == 0:\\n    os.setsid()\\n    time.sleep(600)"
    subprocess.Popen([sys.executable, "-c", code + "  # minitorch-stray-marker"], start_new_session=True)
    return True

def hoard(children):
    import numpy as np
    for _ in range(children):
        if os.fork() == 0:
            try:
                blocks = [np.ones(2**26) for _ in range(8)]  # 4 GiB each
            finally:
                os._exit(0)
    os.wait()
    return "survived"

def spin():
    while True:
        pass

def environment():
    return dict(os.environ)

def spin_everywhere(children, seconds):
    import time
    start = time.monotonic()
    for _ in range(children):
        if os.fork() == 0:
            while time.monotonic() - start < seconds:
                pass
            os._exit(0)
    for _ in range(children):
        os.wait()
    used = os.times()
    return (used.children_user + used.children_system) / (time.monotonic() - start)

def die():
    os._exit(3)

def shout():
    print("x" * 10_000)
    os.write(1, b"garbage that is not a frame")
    sys.stderr.write("noise")
    return 42

def bomb():
    import time
    while True:
        try:
            if os.fork() == 0:
                while True:
                    time.sleep(1)
        except OSError:
            pass

def huge_beside_small():
    import numpy as np
    return [np.ones(3), np.ones(2**27), "fine"]  # 1 GiB beside two small values

def fill_disk():
    with open("big", "wb") as f:
        for _ in range(1000):
            f.write(b"x" * 2**20)
    return "wrote 1000 MiB"
'''


@pytest.fixture()
def package(tmp_path):
    folder = tmp_path / "minitorch"
    folder.mkdir()
    (folder / "__init__.py").write_text(PROBING)
    return folder


def call(package, function, *args, settings=None):
    with LearnerProcess(package, settings or Settings()) as w:
        return w.call("call", function=function, args=list(args))


@confined
def test_learner_code_reads_and_writes_only_what_it_is_given(package, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    seen = call(package, "probe", str(ROOT), str(outside))
    allowed = {"write its scratch folder", "import scipy.special"}
    assert {k: v for k, v in seen.items() if k in allowed} == dict.fromkeys(allowed, "done")
    assert {k for k, v in seen.items() if v == "done"} == allowed, seen
    assert list(outside.iterdir()) == []
    assert not pathlib.Path("/dev/shm/minitorch-planted").exists()


def test_the_whole_tree_gets_one_core(package):
    if os.geteuid() != 0 or not pathlib.Path("/sys/fs/cgroup/cpu").is_dir():
        pytest.skip("needs root and the cgroup v1 cpu controller")
    with Cage(64, 8, 4) as cage:  # the setting, which a busy machine could not show by measuring
        if not cage.groups:
            pytest.skip("this system lets the grader make no control groups")
        assert "cpu" in cage.groups, "a cage should have a cpu control group"
        quota, period = ((cage.groups["cpu"] / f"cpu.cfs_{name}_us").read_text() for name in ("quota", "period"))
        assert int(quota) == int(period)
    cores = call(package, "spin_everywhere", 4, 2.0)
    assert cores < 1.3, f"4 spinning processes used {cores:.2f} cores"


def test_the_graders_environment_does_not_reach_learner_code(package, monkeypatch):
    monkeypatch.setenv("INSTRUCTOR_TOKEN", "hunter2")
    seen = call(package, "environment")
    assert "hunter2" not in str(seen) and set(seen) <= {"PATH", "LANG", "LC_ALL", "HOME", "TMPDIR", "OMP_NUM_THREADS",
                                                         "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "MPLCONFIGDIR",
                                                         "MPLBACKEND", "LC_CTYPE"}, seen


def strays() -> list[str]:
    """The command lines of running processes that carry the stray's marker, read from
    /proc (ps cuts long lines to $COLUMNS, which would hide the marker)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            zombie = (entry / "stat").read_text().rsplit(") ", 1)[-1].startswith("Z")
        except OSError:
            continue
        if "minitorch-stray-marker" in line and not zombie:
            found.append(line)
    return found


def test_nothing_a_learner_starts_outlives_its_process(package):
    assert call(package, "leave_a_process_running") is True
    time.sleep(0.2)
    assert strays() == []


KILLED_GRADER = """
import json, os, signal, sys, time
sys.path.insert(0, sys.argv[1])
from grader.boundary.runner import LearnerProcess
from grader.settings import Settings
process = LearnerProcess(sys.argv[2], Settings())
process.call("call", function="leave_a_process_running", args=[])
def stray_running():  # the grandchild that made itself a session leader (not the child that forked it)
    for pid in process.cage.members():
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
            _, parent, _, session = open(f"/proc/{pid}/stat").read().rsplit(") ", 1)[1].split()[:4]
        except OSError:
            continue
        if b"minitorch-stray-marker" in cmdline and int(session) == pid and int(parent) != process.process.pid:
            return True
for _ in range(100):
    if stray_running():
        break
    time.sleep(0.1)
print(json.dumps({"scratch": str(process.cage.scratch), "groups": [str(g) for g in process.cage.groups.values()]}),
      flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # killed outright: no chance to close its cage
"""


def test_a_cage_left_by_a_killed_grader_is_cleared_by_the_next_one(package, tmp_path, monkeypatch):
    folder = tmp_path / "tmp"
    folder.mkdir()
    killed = subprocess.run([sys.executable, "-c", KILLED_GRADER, str(ROOT), str(package)], capture_output=True,
                            text=True, timeout=60, env={**os.environ, "TMPDIR": str(folder)})
    assert killed.returncode == -9, killed.stderr[-2000:]
    left = json.loads(killed.stdout)
    scratch, groups = pathlib.Path(left["scratch"]), [pathlib.Path(g) for g in left["groups"]]
    try:
        assert scratch.is_dir() and strays(), "the killed grader should have left its cage and the stray behind"
        monkeypatch.setattr(tempfile, "tempdir", str(folder))
        with Cage(64, 8, 4) as alive:  # making a cage clears the abandoned one
            assert not scratch.exists() and not any(g.exists() for g in groups)
            assert clear_abandoned(folder) == [] and alive.scratch.is_dir()  # its grader runs
        if groups:  # with control groups, what the learner left running is ended too
            time.sleep(0.2)
            assert strays() == []
    finally:
        subprocess.run(["pkill", "-9", "-f", "minitorch-stray-marker"])


def test_memory_is_bounded_for_the_whole_process_tree(package):
    start = time.monotonic()
    try:
        call(package, "hoard", 4, settings=Settings(memory_mb=512))
    except (Lost, Raised):
        pass
    assert time.monotonic() - start < 30
    used = subprocess.run(["free", "-g"], capture_output=True, text=True).stdout
    assert used  # the machine is still answering


def test_disk_is_bounded(package):
    with pytest.raises((Raised, Lost)):
        call(package, "fill_disk", settings=Settings(disk_mb=16))


def test_an_endless_loop_is_stopped_at_the_call_limit(package):
    start = time.monotonic()
    with pytest.raises(Lost, match="longer than 2 s"):
        call(package, "spin", settings=Settings(call_seconds=2))
    assert time.monotonic() - start < 10


def test_a_dying_process_is_reported_and_replaced(package):
    with LearnerProcess(package, Settings()) as w:
        with pytest.raises(Lost, match="died"):
            w.call("call", function="die", args=[])
        assert w.call("call", function="shout", args=[]) == 42  # a fresh process; its prints reach nobody


def test_restarts_per_stage_are_bounded(package):
    with LearnerProcess(package, Settings(restarts=2)) as w:
        for _ in range(3):
            with pytest.raises(Lost):
                w.call("call", function="die", args=[])
        with pytest.raises(Lost, match="restarted 2 times"):
            w.call("call", function="shout", args=[])


def test_stage_time_is_bounded(package):
    start, messages = time.monotonic(), []
    with LearnerProcess(package, Settings(call_seconds=1, stage_seconds=2.5, restarts=10)) as w:
        for _ in range(6):
            with pytest.raises(Lost) as error:
                w.call("call", function="spin", args=[])
            messages.append(str(error.value))
    assert any("used up" in m for m in messages), messages
    assert time.monotonic() - start < 8


def test_a_package_that_does_not_import_says_why(tmp_path):
    folder = tmp_path / "minitorch"
    folder.mkdir()
    (folder / "__init__.py").write_text("from . import ops\n")
    (folder / "ops.py").write_text("def f(:\n")
    with LearnerProcess(folder, Settings()) as w, pytest.raises(Unimportable) as error:
        w.call("call", function="f", args=[])
    assert error.value.type == "SyntaxError" and "ops.py" in error.value.message


def test_learner_exceptions_carry_the_learners_line(package):
    with pytest.raises(Raised) as error:
        call(package, "probe")  # missing arguments
    assert error.value.type == "TypeError"


def test_the_wire_carries_no_objects():
    from grader.boundary import wire
    assert wire.decode(wire.encode({"a": (1, [2.5, None]), "x": np.arange(3.0)}))["a"] == (1, [2.5, None])
    with pytest.raises(wire.Garbled):
        wire.decode(b"\x00" * 40)
    with pytest.raises(TypeError):
        wire.encode(object())
    obj = np.empty(2, dtype=object)
    with pytest.raises(ValueError):
        wire.encode(obj)


def test_each_value_of_an_answer_is_bounded_on_its_own():
    from grader.boundary import wire
    twelve = np.zeros(12 * 2**20 // 8)  # 12 MiB: under the limit for one value, but three exceed the answer's
    nested: list = []
    for _ in range(40):
        nested = [nested]
    answer = wire.bounded({"ok": [np.ones(2), np.empty(2, dtype=object), 2**70, "x" * (17 * 2**20),
                                  [0.5] * 200_000, nested, object(), twelve, twelve, twelve]})
    ok = answer["ok"]
    assert np.array_equal(ok[0], np.ones(2)) and ok[1] == {"unsupported": "array of Python objects"}
    assert ok[2] == {"oversized": {"bits": 71}} and ok[3] == {"oversized": {"characters": 17 * 2**20}}
    assert ok[4] == {"oversized": {"length": 200_000}} and "nested too deeply" in str(ok[5])
    assert ok[6] == {"unsupported": "object"} and ok[7] is twelve and ok[8] is twelve
    assert wire.oversized(ok[9]) == "an array of shape (1572864,) and dtype float64 (12 MiB)"
    assert len(wire.encode(answer)) < wire.MAX_FRAME
    many = wire.bounded({"ok": [np.zeros(1)] * (wire.MAX_ARRAYS + 5)})   # more arrays than a frame may carry
    assert many["ok"][-1] == {"oversized": {"arrays": "too many"}} and np.array_equal(many["ok"][0], np.zeros(1))
    assert len(wire.decode(wire.encode(many))["ok"]) == wire.MAX_ARRAYS + 5


def test_a_frame_cannot_make_the_grader_allocate_more_than_it_holds():
    import struct

    from grader.boundary import wire
    bomb = b"\x00" * 8   # an array whose shape promises 8 TiB, followed by 8 bytes
    head = b'["a", [0, "<f8", [1099511627776], false]]'
    frame = struct.pack("<QQ", len(head), 1) + head + struct.pack("<Q", len(bomb)) + bomb
    with pytest.raises(wire.Garbled, match="header"):
        wire.decode(frame)
    for descr in ("O", "|O", "V8", "<f8,<f8", "(2,)<f8"):   # nothing but plain numbers, strings and times
        head = json.dumps(["a", [0, descr, [1], False]]).encode()
        with pytest.raises(wire.Garbled, match="dtype"):
            wire.decode(struct.pack("<QQ", len(head), 1) + head + struct.pack("<Q", 8) + b"\x00" * 8)
    head = b'["a", [0, "<f8", [1], false]]'   # an array said to be longer than the frame
    with pytest.raises(wire.Garbled, match="past"):
        wire.decode(struct.pack("<QQ", len(head), 1) + head + struct.pack("<Q", 800) + b"\x00" * 8)
    big_tree = struct.pack("<QQ", wire.MAX_HEAD + 1, 0) + b"[" * 16
    with pytest.raises(wire.Garbled):
        wire.decode(big_tree)
    fine = wire.decode(wire.encode({"x": np.ones((3, 2), np.float32), "s": np.float64(2.5), "t": np.arange(6.0).T,
                                    "f": np.asfortranarray(np.arange(6).reshape(2, 3)), "e": np.zeros((0, 3)),
                                    "b": np.array([True, False]), "u": np.array(["ab", "c"]),
                                    "big": np.arange(3, dtype=">i4"), "d": np.array(["2026-11-28"], "M8[D]")}))
    assert fine["x"].dtype == np.float32 and fine["x"].shape == (3, 2) and fine["s"] == 2.5
    assert isinstance(fine["s"], np.float64) and np.array_equal(fine["f"], np.arange(6).reshape(2, 3))
    assert fine["f"].flags.f_contiguous and not fine["f"].flags.c_contiguous   # memory order travels too
    assert fine["e"].shape == (0, 3) and fine["b"].tolist() == [True, False] and fine["u"].tolist() == ["ab", "c"]
    assert fine["big"].tolist() == [0, 1, 2] and str(fine["d"][0]) == "2026-11-28"
    fine["x"][0, 0] = 5.0   # the arrays an answer brings are the grader's own, writable
    assert wire.bounded(np.zeros(2, "f8,f8")) == {"unsupported": "array of dtype [('f0', '<f8'), ('f1', '<f8')]"}


def test_an_answer_a_check_cannot_handle_costs_that_part_only():
    from grader.grading.stages import _run_part
    from grader.results import Failure

    def check(w, rng):
        return np.asarray(["not", "numbers"]) + 1.0  # a check meeting an answer it did not foresee

    failure = _run_part(check, None, "9.9/any")
    assert failure is not None and failure.kind is Failure.UNJUDGEABLE
    assert failure.keep == 0.0 and failure.mistake == "unjudgeable answer" and "could not judge" in str(failure)


def test_an_import_that_hung_gets_one_short_try_in_each_later_stage(tmp_path):
    """A hung import costs a stage's budget once; a later stage with the same files gives
    it one short try (it may import there: here, only the copy in `first/` hangs)."""
    from grader.grading.stages import HandInMemory, retry_seconds, run_stage
    memory = HandInMemory()
    code = "import os, time\nif os.path.basename(os.path.dirname(os.path.dirname(__file__))) == 'first':\n" \
           "    time.sleep(600)\n"
    for copy in ("first", "second"):
        (tmp_path / copy / "minitorch").mkdir(parents=True)
        (tmp_path / copy / "minitorch" / "__init__.py").write_text(code)
    quick = Settings(call_seconds=1.5, stage_seconds=10, restarts=1)
    first = run_stage(tmp_path / "first" / "minitorch", "1", quick, memory)
    assert "importing the package" in first[0].message and all(v.earned == 0 for v in first)
    start = time.monotonic()
    again = run_stage(tmp_path / "first" / "minitorch", "2", quick, memory)
    assert time.monotonic() - start < retry_seconds(quick) + 1.5
    assert all("one short try" in v.message and v.earned == 0 for v in again)
    elsewhere = run_stage(tmp_path / "second" / "minitorch", "3", quick, memory)  # same files, imports there
    assert not any("importing the package" in v.message or "short try" in v.message for v in elsewhere)
    assert {v.mistake for v in elsewhere} == {"raised an error"}  # the empty package has no Exp, no Sum...
    # the next hand-in (a memory of its own), even with the same files, is judged afresh
    assert all("short try" not in v.message for v in run_stage(tmp_path / "first" / "minitorch", "2", quick,
                                                                HandInMemory()))


@pytest.mark.parametrize("groups", [True, False], ids=["control groups", "sessions only"])
def test_a_process_bomb_in_a_call_is_stopped_at_once_and_charged_to_that_call(package, groups, monkeypatch):
    import grader.boundary.cage as cage
    if groups and (os.geteuid() != 0 or not pathlib.Path("/sys/fs/cgroup/pids").is_dir()):
        pytest.skip("needs root and the cgroup v1 pids controller")
    if not groups:
        monkeypatch.setattr(cage, "_make_cgroups", lambda *args: {})
    with LearnerProcess(package, Settings(call_seconds=20)) as w:
        start = time.monotonic()
        with pytest.raises(Lost, match="process bomb"):
            w.call("call", function="bomb", args=[])
        assert time.monotonic() - start < 5  # not the call's 20 s
        assert w.call("call", function="shout", args=[]) == 42  # a fresh process for the next call


def test_an_oversized_value_is_replaced_by_a_marker_and_costs_only_itself(package):
    from grader.checks.common import CheckFailure, explain
    with LearnerProcess(package, Settings()) as w:
        small, huge, text = w.call("call", function="huge_beside_small", args=[])
        assert np.array_equal(small, np.ones(3)) and text == "fine"
        assert huge == {"oversized": {"shape": [2**27], "dtype": "float64", "bytes": 2**30}}
        assert w.call("call", function="shout", args=[]) == 42  # the same process lives on
    with pytest.raises(CheckFailure, match="1,024 MiB") as failure:
        explain("the gradient for input 1", huge, np.ones(4))
    assert failure.value.mistake == "oversized answer"


def test_a_file_that_was_never_imported_and_does_not_compile_is_named(package):
    (package / "scratch.py").write_text("x = 1\n\ndef broken(:\n")
    (package / "tried.py").write_text("def broken(:\n")  # imported, and its error charged: not to be named
    (package / "fine.py").write_text("y = 2\n")
    with (package / "__init__.py").open("a") as init:
        init.write("\ndef use_tried():\n    from . import tried\n")
    with LearnerProcess(package, Settings()) as w:
        with pytest.raises(Raised, match="SyntaxError"):
            w.call("call", function="use_tried", args=[])
        found = w.call("unused_files", package=str(package))
    assert found == [["minitorch/scratch.py", 3, "a syntax error (invalid syntax)"]]
