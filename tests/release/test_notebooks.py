"""The notebooks: the source ones run clean against the reference package; the release
ones, against the stub package, fail only where a stub is called, naming its task."""

import os
import pathlib
import re
import time

import nbformat
import pytest
from nbclient import NotebookClient

from grader import release
from grader.tasks import POINTS, STAGES, TASKS, marker

ROOT = release.ROOT
TASK_ERROR = re.compile(r"NotImplementedError: Task (\d+\.\d+): ")
SOURCE_SECONDS: dict[str, float] = {}


def execute(notebook, pythonpath: list[pathlib.Path], cwd: pathlib.Path, allow_errors: bool):
    os.environ["PYTHONPATH"] = os.pathsep.join(str(p) for p in pythonpath)
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
    if saved is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = saved


def test_every_stage_has_a_source_notebook():
    assert [p.stem for p in release.source_notebooks()] == list(STAGES.values())


@pytest.mark.parametrize("path", release.source_notebooks(), ids=lambda p: p.stem)
def test_source_notebook_runs_clean_against_the_reference(path, tmp_path):
    start = time.perf_counter()
    notebook = execute(release.read_source_notebook(path), [ROOT / "solutions", ROOT], tmp_path, False)
    SOURCE_SECONDS[path.stem] = time.perf_counter() - start
    assert not errors(notebook)
    images = sum("image/png" in o.get("data", {}) for c in notebook.cells for o in c.get("outputs", []))
    assert images >= 2, "every notebook draws pictures"


def test_source_notebooks_take_under_two_minutes_together():
    if len(SOURCE_SECONDS) < len(STAGES):
        pytest.skip("needs the source notebooks to have run first")
    print(f"source notebooks: {SOURCE_SECONDS}")
    assert sum(SOURCE_SECONDS.values()) < 120


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.stem)
def test_release_notebook_fails_only_at_stubs(path, tmp_path):
    notebook = execute(nbformat.read(path, as_version=4), [ROOT], tmp_path, True)
    found = errors(notebook)
    assert found, "a release notebook against the stubs must show where work is needed"
    for index, output in found:
        text = f"{output.ename}: {output.evalue}"
        assert TASK_ERROR.match(text), f"cell {index} failed with {text}, not with a stub naming its task"
    stage = path.stem[:2].lstrip("0")
    named = {TASK_ERROR.match(f"{o.ename}: {o.evalue}").group(1) for _, o in found}
    assert {t for t in TASKS if t.split(".")[0] == stage} <= named, "every task of the stage is reached"


@pytest.mark.parametrize("path", release.source_notebooks(), ids=lambda p: p.stem)
def test_graded_cells_carry_the_task_points(path):
    notebook = release.read_source_notebook(path)
    graded = {c.metadata["nbgrader"]["grade_id"]: c for c in notebook.cells
              if c.metadata.get("nbgrader", {}).get("grade")}
    stage = path.stem[:2].lstrip("0")
    tasks = [t for t in TASKS if t.split(".")[0] == stage]
    assert sorted(graded) == sorted(marker(t) for t in tasks)
    for t in tasks:
        cell = graded[marker(t)]
        assert cell.metadata["nbgrader"]["points"] == POINTS[t]
        assert f'check("{t}")' in cell.source and "### BEGIN HIDDEN TESTS" in cell.source
        assert f"Task {t}" in cell.source
    headings = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    for t in tasks:
        assert f"Your task {t}" in headings
