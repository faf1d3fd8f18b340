"""The grading kernels: confinement (``grader/sandbox.py``) and start-up by forking
(``grader/forkserver.py``). A forked kernel must see what a freshly started one would,
and nothing a previous learner's kernel did."""

import asyncio
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from grader import forkserver
from grader.sandbox import landlock_abi

ROOT = pathlib.Path(__file__).resolve().parents[2]
needs_landlock = pytest.mark.skipif(landlock_abi() < 1, reason="this Linux kernel has no Landlock")


def run_confined(code: str, writable: pathlib.Path, memory_mb: int | None = None,
                 cpu_seconds: int | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, MINITORCH_WRITABLE=str(writable), PYTHONPATH=str(ROOT))
    if memory_mb:
        env["MINITORCH_MEMORY_LIMIT_MB"] = str(memory_mb)
    if cpu_seconds:
        env["MINITORCH_CPU_SECONDS"] = str(cpu_seconds)
    prelude = "from grader import sandbox\nsandbox.confine()\n"
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], env=env, capture_output=True,
                          text=True, timeout=60)


@needs_landlock
def test_confined_process_writes_only_in_its_folders(tmp_path):
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    (outside / "keep.txt").write_text("precious")
    done = run_confined(f"""
        import os, pathlib, subprocess
        pathlib.Path({str(inside)!r}, "new.txt").write_text("mine")
        open(os.devnull, "w").write("fine")
        for action in (lambda: pathlib.Path({str(outside)!r}, "new.txt").write_text("x"),
                       lambda: open({str(outside / "keep.txt")!r}, "w"),
                       lambda: os.remove({str(outside / "keep.txt")!r}),
                       lambda: os.rename({str(inside / "new.txt")!r}, {str(outside / "moved.txt")!r})):
            try:
                action()
                print("ALLOWED")
            except PermissionError:
                print("denied")
        child = subprocess.run(["sh", "-c", "echo x > {outside / 'child.txt'}"], capture_output=True)
        print("child", child.returncode)
    """, inside)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["denied"] * 4 + ["child", "2"], done.stdout
    assert (inside / "new.txt").read_text() == "mine"
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert (outside / "keep.txt").read_text() == "precious"


def test_memory_limit_turns_a_hoard_into_memory_error(tmp_path):
    done = run_confined("""
        try:
            hoard = bytearray(2 * 2**30)
            print("ALLOWED")
        except MemoryError:
            print("MemoryError")
    """, tmp_path, memory_mb=1024)
    assert done.stdout.strip() == "MemoryError", done.stdout + done.stderr


def test_cpu_limit_ends_a_runaway_process(tmp_path):
    start = time.monotonic()
    done = run_confined("while True:\n    pass", tmp_path, cpu_seconds=1)
    assert done.returncode == -signal.SIGXCPU and time.monotonic() - start < 20


@pytest.fixture()
def forking(tmp_path, monkeypatch):
    """Start kernels as grading does: through the fork server, from a trusted folder."""
    trusted = tmp_path / "trusted"
    (trusted / "grader").mkdir(parents=True)
    for name in ["__init__.py", "checks.py", "forkserver.py", "numeric.py", "registry.py", "sandbox.py"] + \
            [f"stage{n}.py" for n in range(1, 7)]:
        (trusted / "grader" / name).write_bytes((ROOT / "grader" / name).read_bytes())
    monkeypatch.setenv("MINITORCH_TRUSTED", str(trusted))
    return trusted


async def run_in_kernel(code: str, cwd: pathlib.Path, env: dict[str, str] | None = None) -> str:
    manager = forkserver._kernel_manager_class()(kernel_name="python3")
    for key, value in (env or {}).items():
        os.environ[key] = value
    await manager.start_kernel(cwd=str(cwd))
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=30)
        output = []
        reply = await client.execute_interactive(
            code, timeout=30, output_hook=lambda m: output.append(m["content"].get("text", "")))
        assert reply["content"]["status"] == "ok", reply["content"]
        return "".join(output)
    finally:
        client.stop_channels()
        await manager.shutdown_kernel()
        for key in env or {}:
            os.environ.pop(key, None)


def test_forked_kernel_sees_its_own_folder_path_and_environment(forking, tmp_path):
    folder = tmp_path / "learner"
    (folder / "minitorch").mkdir(parents=True)
    (folder / "minitorch" / "__init__.py").write_text("WHO = 'the learner'\n")
    env = {"PYTHONPATH": os.pathsep.join([str(folder), str(forking)]), "MINITORCH_UNDER_TEST": "x"}
    out = asyncio.run(run_in_kernel(
        "import os, sys, minitorch, grader\n"
        "print(os.getcwd()); print(minitorch.WHO); print(os.environ['MINITORCH_UNDER_TEST'])\n"
        "print(sys.path.index(os.environ['PYTHONPATH'].split(os.pathsep)[0]) < 3)\n"
        "print(grader.__file__); print(os.getpid() != os.getppid())", folder, env))
    lines = out.split("\n")
    assert lines[:4] == [str(folder), "the learner", "x", "True"], out
    assert lines[4] == str(forking / "grader" / "__init__.py")
    assert forkserver.ForkServer._instance is not None, "the kernel was not started by the fork server"


def test_a_kernel_cannot_leave_anything_to_the_next(forking, tmp_path):
    asyncio.run(run_in_kernel("import numpy, grader.registry\nnumpy.allclose = None\n"
                              "grader.registry.check = None\nimport builtins\nbuiltins.LEFT = 1", tmp_path))
    out = asyncio.run(run_in_kernel("import numpy, grader.registry, builtins\n"
                                    "print(numpy.allclose is None, grader.registry.check is None, "
                                    "hasattr(builtins, 'LEFT'))", tmp_path))
    assert out.split() == ["False", "False", "False"]


def test_a_killed_kernel_is_seen_dead(forking, tmp_path):
    async def scenario():
        manager = forkserver._kernel_manager_class()(kernel_name="python3")
        await manager.start_kernel(cwd=str(tmp_path))
        client = manager.client()
        client.start_channels()
        await client.wait_for_ready(timeout=30)
        assert await manager.is_alive()
        client.execute("import os; os._exit(3)")
        for _ in range(200):
            if not await manager.is_alive():
                break
            await asyncio.sleep(0.01)
        alive = await manager.is_alive()
        client.stop_channels()
        await manager.shutdown_kernel(now=True)
        return alive
    assert asyncio.run(scenario()) is False


@pytest.mark.parametrize("tamper", [
    "grader.registry.check = lambda *a, **k: None",
    "grader.registry.check.__code__ = (lambda *a, **k: None).__code__",
    "numpy.testing.assert_allclose.__code__ = (lambda *a, **k: None).__code__",
    "builtins.abs = lambda x: 0",
])
def test_verify_refuses_a_package_that_tampers_on_import(tmp_path, tamper):
    """``verify.py`` re-runs the hidden checks in a fresh process; a package that changes
    the grader or NumPy while being imported fails there, however it does it."""
    from grader.course import run_verify
    package = tmp_path / "minitorch"
    shutil.copytree(ROOT / "minitorch", package, ignore=shutil.ignore_patterns("__pycache__"))
    init = package / "__init__.py"
    init.write_text(init.read_text() + f"\nimport builtins, numpy, numpy.testing, grader.registry\n{tamper}\n")
    outcome = run_verify(ROOT, package, ["2.1"], timeout=30, memory_mb=4096)
    assert "changed the grader or NumPy" in (outcome["2.1"] or ""), outcome


def test_verify_passes_the_reference_and_fails_the_stubs(tmp_path):
    from grader.course import run_verify
    for source, passes in ((ROOT / "solutions" / "minitorch", True), (ROOT / "minitorch", False)):
        package = tmp_path / source.parent.name / "minitorch"
        shutil.copytree(source, package, ignore=shutil.ignore_patterns("__pycache__"))
        outcome = run_verify(ROOT, package, ["2.2", "5.3"], timeout=30, memory_mb=4096)
        assert all((error is None) == passes for error in outcome.values()), outcome


@pytest.mark.skipif(landlock_abi() < 6, reason="signal scoping needs Landlock ABI 6 (Linux 6.12)")
def test_confined_process_cannot_signal_the_grader(tmp_path):
    """Learner code cannot kill the processes that grade it (here a stand-in, started
    outside the confinement), but can still signal its own."""
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        done = run_confined(f"""
            import os, signal
            try:
                os.kill({bystander.pid}, signal.SIGKILL)
                print("ALLOWED")
            except PermissionError:
                print("denied")
            os.kill(os.getpid(), 0)
            print("self ok")
        """, tmp_path)
        assert done.stdout.split() == ["denied", "self", "ok"], done.stdout + done.stderr
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


def test_a_notebook_that_hangs_every_cell_is_stopped_by_the_stage_limit(tmp_path):
    """nbgrader limits each cell only; the grader also limits the notebook: 6 hanging
    cells with 2 s each and 3 s for the notebook end after about 3 s, not 12, and the
    cells never reached say why."""
    import time

    import nbformat

    from grader.course import explain_error, grading_execute
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('fine')")] +
                                  [nbformat.v4.new_code_cell("while True:\n    pass") for _ in range(6)])
    execute = grading_execute(notebook_seconds=3)(timeout=2, allow_errors=True, interrupt_on_timeout=True,
                                                  kernel_name="python3")
    start = time.monotonic()
    execute.preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    elapsed = time.monotonic() - start
    errors = [c.outputs[-1] for c in nb.cells[1:]]
    assert nb.cells[0].outputs[0]["text"] == "fine\n"
    assert all(e["output_type"] == "error" for e in errors)
    assert [e["ename"] for e in errors[2:]] == ["StageTimeLimit"] * 4
    assert "not run: the stage had used its 3 s" in explain_error(errors[-1], "2.2", 2)
    assert elapsed < 8, elapsed


@pytest.mark.parametrize("code, ename", [
    ("import time\nwhile True:\n    try:\n        time.sleep(0.05)\n    except:\n        pass", "KernelUnresponsive"),
    ("import os\nos._exit(3)", "KernelDied"),
])
def test_a_kernel_that_ignores_interrupts_or_dies_costs_only_the_cells_from_there(tmp_path, code, ename):
    """nbgrader fails the whole notebook when a kernel dies or keeps running after the
    interrupt at a cell's time limit (a bare ``except:`` swallows KeyboardInterrupt); the
    grader keeps the cells before, ends the kernel, and says why for the rest."""
    import nbformat

    from grader.course import explain_error, grading_execute
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('fine')"),
                                         nbformat.v4.new_code_cell(code, metadata={"nbgrader": {"grade_id": "task5_2"}}),
                                         nbformat.v4.new_code_cell("print('after')")])
    execute = grading_execute(notebook_seconds=20)(timeout=2, kernel_name="python3")
    start = time.monotonic()
    execute.preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    assert time.monotonic() - start < 15
    assert nb.cells[0].outputs[0]["text"] == "fine\n"
    assert nb.cells[1].outputs[-1]["ename"] == ename
    assert [o["ename"] for o in nb.cells[2].outputs] == ["KernelEnded"]
    words = explain_error(nb.cells[2].outputs[0], "5.3", 2)
    assert "not run" in words and "hidden tests of task 5.2" in words, words
    if ename == "KernelUnresponsive":
        assert "KeyboardInterrupt" in explain_error(nb.cells[1].outputs[-1], "5.2", 2)


def test_input_fails_only_the_cells_that_call_it(tmp_path):
    """``input()`` passes nbgrader's validation but cannot be answered while grading: the
    cell that calls it fails and says so, and the cells after it still run."""
    import nbformat

    from grader.course import explain_error, grading_execute
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("name = input('your name? ')"),
        nbformat.v4.new_code_cell("def ask():\n    return float(input('a number: '))\nask()",
                                  metadata={"nbgrader": {"grade_id": "task1_1"}}),
        nbformat.v4.new_code_cell("print('after')")])
    grading_execute(notebook_seconds=20)(timeout=10, kernel_name="python3").preprocess(
        nb, {"metadata": {"path": str(tmp_path)}})
    for cell in nb.cells[:2]:
        assert "remove the input() call" in explain_error(cell.outputs[-1], "1.1", 10), cell.outputs
    assert nb.cells[2].outputs[0]["text"] == "after\n"


def test_processes_a_kernel_detaches_do_not_outlive_it(forking, tmp_path):
    """A learner's kernel starts a process in a new session (out of reach of the kernel's
    process group); once the kernel has ended, the next kernel start ends it."""
    out = asyncio.run(run_in_kernel(
        "import subprocess\nprint(subprocess.Popen(['sleep', '300'], start_new_session=True).pid)", tmp_path))
    stray = int(out.split()[0])
    assert pathlib.Path(f"/proc/{stray}").exists()
    asyncio.run(run_in_kernel("print('next learner')", tmp_path))
    for _ in range(100):
        if not pathlib.Path(f"/proc/{stray}").exists():
            break
        time.sleep(0.02)
    assert not pathlib.Path(f"/proc/{stray}").exists(), "the detached process is still running"


def test_verify_is_not_stalled_by_processes_the_package_leaves_running(tmp_path):
    from grader.course import run_verify
    package = tmp_path / "minitorch"
    shutil.copytree(ROOT / "solutions" / "minitorch", package, ignore=shutil.ignore_patterns("__pycache__"))
    marker = tmp_path / "stray.pid"
    init = package / "__init__.py"
    init.write_text(init.read_text() + "\nimport subprocess as _s, os as _o\n"
                    f"_p = _s.Popen(['sleep', '300'])\nprint(_p.pid, file=open({str(marker)!r}, 'w'))\n")
    start = time.monotonic()
    outcome = run_verify(ROOT, package, ["2.1"], timeout=30, memory_mb=4096)
    assert time.monotonic() - start < 20
    assert outcome == {"2.1": None}
    stray = int(marker.read_text())
    time.sleep(0.2)
    assert not pathlib.Path(f"/proc/{stray}").exists() or \
        pathlib.Path(f"/proc/{stray}/stat").read_text().split(")")[1].split()[0] == "Z"
