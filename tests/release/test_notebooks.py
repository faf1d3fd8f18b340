"""The notebooks: the source ones run clean against the reference package; the release
ones, against the stub package, fail only where a stub is called, naming its task."""

import os
import pathlib
import re
import time

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from grader import release
from grader.tasks import POINTS, STAGES, TASKS, marker

ROOT = release.ROOT
TASK_ERROR = re.compile(r"NotImplementedError: Task (\d+\.\d+): ")
SOURCE_SECONDS: dict[str, float] = {}


GPT_TEST_STEPS = "300"  # notebook 07 trains for 300 steps here; benchmarks/bench_gpt.py times the full run


def execute(notebook, pythonpath: list[pathlib.Path], cwd: pathlib.Path, allow_errors: bool):
    os.environ["PYTHONPATH"] = os.pathsep.join(str(p) for p in pythonpath)
    os.environ["MINITORCH_GPT_STEPS"] = GPT_TEST_STEPS
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    client = NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=allow_errors,
                            resources={"metadata": {"path": str(cwd)}})
    client.execute()
    return notebook


def errors(notebook):
    return [(i, output) for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"
            for output in cell.get("outputs", []) if output.output_type == "error"]


@pytest.fixture(autouse=True)
def restore_pythonpath():
    saved = os.environ.get("PYTHONPATH")
    yield
    os.environ.pop("MINITORCH_GPT_STEPS", None)
    if saved is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = saved


def test_every_stage_has_a_source_notebook():
    assert [p.stem for p in release.source_notebooks()] == list(STAGES.values())


@pytest.mark.slow
@pytest.mark.parametrize("path", release.source_notebooks(), ids=lambda p: p.stem)
def test_source_notebook_runs_clean_against_the_reference(path, tmp_path):
    start = time.perf_counter()
    notebook = execute(release.read_source_notebook(path), [ROOT / "solutions", ROOT], tmp_path, False)
    SOURCE_SECONDS[path.stem] = time.perf_counter() - start
    assert not errors(notebook)
    images = sum("image/png" in o.get("data", {}) for c in notebook.cells for o in c.get("outputs", []))
    assert images >= 2, "every notebook draws pictures"
    warned = [o.text for c in notebook.cells for o in c.get("outputs", []) if o.get("name") == "stderr"]
    assert not warned, f"a cell printed to stderr (a NumPy or matplotlib warning?): {warned}"
    printed = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", [])
                      if o.get("name") != "stderr")
    accuracies = [float(a) for a in re.findall(r"validation accuracy (\d\.\d+)", printed)]
    if path.stem == "06_training":
        print(printed)
        # chance is 1/3 on the spirals and 1/10 on the digits
        assert len(accuracies) == 3 and min(accuracies) > 0.8 and accuracies[1:] > [0.95, 0.95]
    if path.stem == "01_chain_rule":  # the text: five orders of magnitude, weights near (0.3, 0.1, 0.05)
        first, last = (float(v) for v in re.search(r"loss ([\d.e+-]+) -> ([\d.e+-]+);", printed).groups())
        assert last < 1e-4 < 10 < first, printed
        learned = [float(v) for v in re.findall(r"w\d = (-?\d\.\d+)", printed)]
        assert np.allclose(learned, [0.3, 0.1, 0.05], atol=0.01), learned
    if path.stem == "07_gpt":  # even a short run must beat guessing (ln 27 = 3.30) by far
        losses = [float(v) for v in re.findall(r"validation loss (\d\.\d+) nats", printed)]
        assert len(losses) == 1 and losses[0] < 2.6, printed[-2000:]


@pytest.mark.slow
def test_source_notebooks_take_under_two_minutes_together():
    if len(SOURCE_SECONDS) < len(STAGES):
        pytest.skip("needs the source notebooks to have run first")
    print(f"source notebooks: {SOURCE_SECONDS}")
    assert sum(SOURCE_SECONDS.values()) < 120


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.stem)
def test_release_notebook_fails_only_at_stubs(path, tmp_path):
    notebook = execute(nbformat.read(path, as_version=4), [ROOT], tmp_path, True)
    found = errors(notebook)
    assert found, "a release notebook against the stubs must show where work is needed"
    for index, output in found:
        text = f"{output.ename}: {output.evalue}"
        assert TASK_ERROR.match(text), f"cell {index} failed with {text}, not with a stub naming its task"
    # Each task's graded cell stops at that task's stub, or at an earlier task it builds on.
    key = lambda task: tuple(int(n) for n in task.split("."))  # noqa: E731
    failed = {i: TASK_ERROR.match(f"{o.ename}: {o.evalue}").group(1) for i, o in found}
    for index, cell in enumerate(notebook.cells):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if grade_id.endswith("_visible"):
            task = grade_id[4:-8].replace("_", ".")
            assert index in failed, f"the check of Task {task} passes against a stub"
            assert key(failed[index]) <= key(task)
            if task.split(".")[0] != "7":  # the capstone's checks build on every earlier stage
                assert failed[index].split(".")[0] == task.split(".")[0]


@pytest.mark.parametrize("path", release.source_notebooks(), ids=lambda p: p.stem)
def test_each_task_has_a_visible_check_and_a_cell_naming_its_points(path):
    """Only the package is graded: the visible checks are read-only cells worth nothing,
    and one graded cell per task tells the learner its points (those of grader/tasks.py)."""
    notebook = release.read_source_notebook(path)
    cells = {c.metadata["nbgrader"]["grade_id"]: c for c in notebook.cells if "nbgrader" in c.metadata}
    stage = path.stem[:2].lstrip("0")
    tasks = [t for t in TASKS if t.split(".")[0] == stage]
    assert sorted(cells) == sorted(g for t in tasks for g in (marker(t), f"{marker(t)}_visible"))
    for t in tasks:
        visible, graded = cells[f"{marker(t)}_visible"], cells[marker(t)]
        assert not visible.metadata["nbgrader"]["grade"] and visible.metadata["nbgrader"]["locked"]
        assert graded.metadata["nbgrader"]["grade"] and graded.metadata["nbgrader"]["points"] == POINTS[t]
        assert f"worth {POINTS[t]:g} points" in graded.source and "HIDDEN" not in graded.source
        assert f"Task {t}" in visible.source and "HIDDEN" not in visible.source
    headings = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    for t in tasks:
        assert f"Your task {t}" in headings
