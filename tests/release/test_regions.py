"""The reference package's solution regions: well formed, labelled, covering every task,
and a package with them stubbed out imports and names its tasks."""

import pathlib
import subprocess
import sys

import pytest

from grader.release.regions import RegionError, find_regions, stub
from grader.tasks import TASKS, marker

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "solutions" / "minitorch"
SOURCES = sorted(PACKAGE.rglob("*.py"))


def all_regions():
    return {str(path.relative_to(PACKAGE)): find_regions(path.read_text(), str(path)) for path in SOURCES}


def test_every_task_has_a_region_and_every_region_a_known_task():
    tasks = {r.task for regions in all_regions().values() for r in regions}
    assert tasks == set(TASKS)


def test_each_task_is_filled_in_one_file():
    """A notebook section names the one file its task is in."""
    files: dict[str, set[str]] = {}
    for name, regions in all_regions().items():
        for region in regions:
            files.setdefault(region.task, set()).add(name)
    assert {task: sorted(names) for task, names in files.items() if len(names) > 1} == {}


def test_every_task_has_a_pytest_marker(pytestconfig):
    declared = {line.split(":")[0] for line in pytestconfig.getini("markers")}  # tests/conftest.py adds the tasks'
    assert {marker(t) for t in TASKS} <= declared


def test_every_task_is_tested():
    tests = (ROOT / "tests" / "reference").glob("test_*.py")
    text = "\n".join(p.read_text() for p in tests)
    missing = [t for t in TASKS if f"mark.{marker(t)}" not in text]
    assert not missing


@pytest.mark.parametrize("source, message", [
    ("def f():\n    ### BEGIN SOLUTION\n    pass\n    ### END SOLUTION\n", "must be a label"),
    ("def f():\n    # Task 1.1: f\n    ### BEGIN SOLUTION\n    pass\n", "never closed"),
    ("def f():\n    pass\n    ### END SOLUTION\n", "without"),
    ("# Task 1.1: f\n### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n", "inside a function"),
    ("def f():\n    # Task 1.1: f\n    ### BEGIN SOLUTION  \n    x = 1\n    ## END SOLUTION\n", "exactly"),
])
def test_malformed_regions_are_reported_with_their_line(source, message):
    with pytest.raises(RegionError, match=message):
        find_regions(source, "f.py")


def test_stubbed_package_imports_and_each_stub_names_its_task(tmp_path):
    package = tmp_path / "minitorch"
    package.mkdir()
    for path in SOURCES:
        stubbed = stub(path.read_text(), str(path))
        assert "BEGIN SOLUTION" not in stubbed and "END SOLUTION" not in stubbed
        target = package / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(stubbed)
    calls = {  # a task: a call that reaches its stub (the forwards work without any solution)
        "1.1": "lambda: mt.central_difference(abs, 1.0)", "1.2": "lambda: (mt.Scalar(1.0) * 2).chain_rule(1.0)",
        "1.3": "lambda: mt.topological_order(mt.Scalar(1.0))", "2.1": "lambda: mt.broadcast_shapes((1,), (2,))",
        "2.2": "lambda: mt.unbroadcast(np.ones((3, 2)), (2,))",
        "1.4": "lambda: (mt.Tensor(np.ones((2, 3)), requires_grad=True) * 2).sum().backward()",
        "6.1": "lambda: mt.nn.Linear(2, 3)"}
    lines = [f"fails({task!r}, {call})" for task, call in calls.items() if task in TASKS]  # a dropped stage's: given
    probe = """
import minitorch as mt, numpy as np
def fails(task, call):
    try:
        call()
    except NotImplementedError as error:
        assert str(error).startswith("Task " + task + ":"), str(error)
    else:
        raise AssertionError("no stub for task " + task)
""" + "\n".join(lines) + """
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
