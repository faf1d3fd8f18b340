"""The notebooks: the source ones run clean against the reference package; the release
ones, against the stub package, fail only where a stub is called, naming its task."""

import os
import pathlib
import re

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from grader.release import build as release
from grader.tasks import POINTS, STAGES, TASKS, marker

ROOT = release.ROOT
TASK_ERROR = re.compile(r"NotImplementedError: Task (\d+\.\d+): ")


GPT_TEST_STEPS = "300"  # notebook 07 trains for 300 steps here; benchmarks/bench_gpt.py times the full run


def execute(notebook, pythonpath: list[pathlib.Path], cwd: pathlib.Path, allow_errors: bool,
            steps: str = GPT_TEST_STEPS):
    os.environ["PYTHONPATH"] = os.pathsep.join(str(p) for p in pythonpath)
    os.environ["MINITORCH_GPT_STEPS"] = steps
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")  # as make lab runs the kernels (see the Makefile)
    client = NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=allow_errors,
                            resources={"metadata": {"path": str(cwd)}})
    client.execute()
    return notebook


# matplotlib's font cache (~/.cache/matplotlib) belongs to the machine, not to the notebook: one
# written by another process on it may lack fonts, and every figure then says so on stderr.
FONT_CACHE = "findfont: Font family"


def errors(notebook):
    return [(i, output) for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"
            for output in cell.get("outputs", []) if output.output_type == "error"]


SET_BY_EXECUTE = ("PYTHONPATH", "MINITORCH_GPT_STEPS", "MPLBACKEND", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                  "MKL_NUM_THREADS")


@pytest.fixture(autouse=True)
def restore_pythonpath():
    """What ``execute`` sets in the environment, as it was: later tests in this worker run with it."""
    saved = {name: os.environ.get(name) for name in SET_BY_EXECUTE}
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def test_every_stage_has_a_source_notebook():
    assert [p.stem for p in release.source_notebooks()] == list(STAGES.values())


@pytest.mark.slow
@pytest.mark.parametrize("path", release.source_notebooks(), ids=lambda p: p.stem)
def test_source_notebook_runs_clean_against_the_reference(path, tmp_path):
    notebook = execute(release.read_source_notebook(path), [ROOT / "solutions", ROOT], tmp_path, False)
    assert not errors(notebook)
    images = sum("image/png" in o.get("data", {}) for c in notebook.cells for o in c.get("outputs", []))
    assert images >= 2, "every notebook draws pictures"
    warned = [line for c in notebook.cells for o in c.get("outputs", []) if o.get("name") == "stderr"
              for line in o.text.splitlines() if not line.startswith(FONT_CACHE)]
    assert not warned, f"a cell printed to stderr (a NumPy or matplotlib warning?): {warned}"
    printed = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", [])
                      if o.get("name") != "stderr")
    CLAIMS.get(path.stem, lambda printed: None)(printed)  # a stage added since: no claims of its text yet
    for cell in notebook.cells:  # a long training cell: its one progress line tops the output, at the last step
        if "training.Progress(" in cell.source:
            first = cell.outputs[0]
            assert first.output_type == "display_data", cell.outputs[:3]
            assert re.match(r"step ([\d,]+) of \1, loss [\d.]+; \d+ s so far$", first.data["text/plain"]), first


def numbers(pattern: str, text: str) -> list[float]:
    """The numbers the pattern's groups capture at its first match (it must match)."""
    found = re.search(pattern, text)
    assert found, f"nothing printed matches {pattern!r}:\n{text[-3000:]}"
    return [float(v.replace(",", "")) for v in found.groups()]


def array(label: str, text: str) -> np.ndarray:
    """The array NumPy printed as ``[...]`` right after ``label``."""
    found = re.search(re.escape(label) + r"\s*\[([^\]]*)\]", text)
    assert found, f"nothing printed after {label!r}:\n{text[-3000:]}"
    return np.array(found.group(1).split(), dtype=float)


def claims_01(printed: str) -> None:
    """Five orders of magnitude, and weights near the (0.3, 0.1, 0.05) that made the targets."""
    first, last = numbers(r"loss ([\d.e+-]+) -> ([\d.e+-]+);", printed)
    assert last < 1e-4 < 10 < first, printed
    learned = numbers(r"w1 = (-?\d\.\d+), w2 = (-?\d\.\d+), w3 = (-?\d\.\d+)", printed)
    assert np.allclose(learned, [0.3, 0.1, 0.05], atol=0.01), learned


def claims_02(printed: str) -> None:
    """The engine catches the first two classic mistakes, naming the op, the input and both
    shapes; the third turns the caller's array of ones into fives; gradcheck says True."""
    assert ("MulForgetsToSum.backward: the gradient for input 1 (`b`) has shape (4, 3), but that input has "
            "shape (3,): the input was broadcast") in printed, printed
    assert ("MulLosesKeepdims.backward: the gradient for input 1 (`b`) has shape (4,), but that input has "
            "shape (4, 1)") in printed, printed
    assert np.array_equal(array("the upstream gradient after backward:", printed), [5, 5, 5])
    assert printed.count("gradcheck: True") == 1


def claims_03(printed: str) -> None:
    """The hard maximum gives the whole gradient to the winner; the softened one a little to
    every element, most to the winner, adding up to the same 1."""
    assert np.array_equal(array("max:", printed), [0, 1, 0, 0])
    soft = array("log-sum-exp (scaled):", printed)
    assert np.all(soft > 0) and soft.argmax() == 1 and abs(soft.sum() - 1) < 1e-3, soft


def claims_04(printed: str) -> None:
    """`full[index] += grad` keeps one of element 0's three gradients and np.add.at all
    three; the windows use each element as often as they cover it."""
    assert np.array_equal(array("full[index] += grad      ->", printed), [1, 0, 1])
    assert np.array_equal(array("np.add.at(full, ...)     ->", printed), [3, 0, 1])
    assert np.array_equal(array("times each element was used:", printed), [1, 2, 3, 4, 4, 4, 4, 3, 2, 1])


def claims_05(printed: str) -> None:
    """GELU dips below zero near x = -0.75; the naive softmax of scores near 1000 is nan and
    the stable one a distribution; one step moves probability to the true class;
    gradcheck passes a whole classifier."""
    where, lowest = numbers(r"GELU is lowest at x = (-?[\d.]+), where it is (-?[\d.]+)", printed)
    assert -0.8 <= where <= -0.7 and -0.18 < lowest < -0.16
    assert np.all(np.isnan(array("naive :", printed)))
    stable = array("stable:", printed)
    assert abs(stable.sum() - 1) < 1e-6 and np.all(np.diff(stable) > 0)
    before, after = numbers(r"probability of class 2: ([\d.]+) before the step, ([\d.]+) after", printed)
    assert before < 0.1 and after > 0.4, (before, after)
    assert printed.count("gradcheck: True") == 1


def claims_06(printed: str) -> None:
    """600 points with 20% held out; Adam's validation loss below SGD's after 10 epochs and
    several times lower after 60; 1,797 digit images of 64 pixels in [0, 1]; accuracies
    far above chance (1/3 on the spirals, 1/10 on the digits)."""
    assert "600 points: 480 to train on, 120 held out" in printed
    runs = re.findall(r"validation loss ([\d.]+) after 10 epochs, ([\d.]+) after 60; spirals validation accuracy "
                      r"([\d.]+)", printed)
    assert len(runs) == 2, printed
    (sgd_10, sgd_60, sgd_accuracy), (adam_10, adam_60, adam_accuracy) = [[float(v) for v in run] for run in runs]
    assert adam_10 < sgd_10 and adam_60 < sgd_60 / 3, runs
    assert sgd_accuracy > 0.8 and adam_accuracy > 0.95
    assert "1797 images of 64 pixels, values from 0 to 1" in printed
    assert numbers(r"digits validation accuracy ([\d.]+)", printed)[0] > 0.95


def claims_07(printed: str, steps: int = int(GPT_TEST_STEPS)) -> None:
    """About 32,000 names and 27 tokens; the worked examples' gradients; the two GELUs within
    0.0005 of each other; about 105,000
    numbers to learn; a first step near ln 27; a validation loss far below guessing that
    the training loss follows; at temperature 0.5, more names from the list, fewer new ones and
    more repeats than at 1.0; nothing above the attention's diagonal. After the full 2,000
    steps: a validation loss of about 2.1, over half of the names at 0.5 from the list and
    about a fifth at 1.0."""
    assert "32033 names" in printed and "vocabulary of 27 tokens" in printed
    assert np.array_equal(array("gradient:", printed), [10, 0, 30])
    assert np.array_equal(array("rows 1 and 4 get gradient", printed), [2, 1])
    gap, where = numbers(r"the two GELUs differ by at most ([\d.]+), at x = ±([\d.]+)", printed)
    assert 0.0004 < gap < 0.0005 and 2.5 < where < 2.9, (gap, where)
    count, first = numbers(r"([\d,]+) numbers to learn; the first step's loss ([\d.]+)", printed)
    assert 100_000 < count < 110_000 and abs(first - np.log(27)) < 0.3, (count, first)
    validation, training = numbers(rf"{steps} steps in \d+ s; validation loss ([\d.]+) nats per character, "
                                   r"training loss ([\d.]+)", printed)
    assert validation < 2.6 and abs(validation - training) < (0.05 if steps >= 2000 else 0.15), (validation, training)
    made = [[float(v) for v in m] for m in re.findall(r"(\d+) names made: (\d+)% are in the list, (\d+) are new "
                                                       r"\(not in the list, each counted once\), (\d+) repeat", printed)]
    assert len(made) == 2 and all(count > 250 for count, *_ in made), made
    (_, known_cold, new_cold, repeats_cold), (_, known_warm, new_warm, repeats_warm) = made
    assert known_cold > known_warm + 10 and new_warm > 1.3 * new_cold and repeats_cold > repeats_warm, made
    if steps >= 2000:  # the text's numbers: 58% and 22 repeats at 0.5; 17% at 1.0; 250 new names against 124
        assert 2.0 < validation < 2.2 and 51 <= known_cold <= 66 and 12 <= known_warm <= 24, (validation, made)
        assert 12 <= repeats_cold <= 36 and 1.6 < new_warm / new_cold < 2.6 and repeats_warm <= 5, made
    assert numbers(r"the largest weight above the diagonal, over all heads: ([\d.e+-]+)", printed) == [0.0]
    assert "the parameters' dtypes after training: float32\n" in printed  # the text: it trains in float32


CLAIMS = {"01_chain_rule": claims_01, "02_broadcasting": claims_02, "03_reductions": claims_03,
          "04_indexing": claims_04, "05_matmul_softmax": claims_05, "06_training": claims_06,
          "07_gpt": claims_07}


@pytest.mark.slow
def test_the_gpt_notebook_after_its_full_training_shows_what_its_text_says(tmp_path):
    """The text describes the full run of 2,000 steps (about 23 s in float32 on an idle
    machine; benchmarks/bench_gpt.py times it), which the test above shortens."""
    path = ROOT / "solutions" / "notebooks" / "07_gpt.py"
    notebook = execute(release.read_source_notebook(path), [ROOT / "solutions", ROOT], tmp_path, False,
                       steps="2000")
    assert not errors(notebook)
    printed = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    claims_07(printed, steps=2000)


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
    """Only the package is graded: the visible checks are read-only cells worth nothing.
    After each one the release builder (never a notebook by hand) writes, from the task
    manifest, a read-only markdown cell telling the learner the task's points, and the
    task's graded cell for nbgrader: locked, one comment line saying what it is, holding
    the points."""
    assert "is worth" not in path.read_text() and '"grade": true' not in path.read_text()
    notebook = release.read_source_notebook(path)
    cells = {c.metadata["nbgrader"]["grade_id"]: c for c in notebook.cells if "nbgrader" in c.metadata}
    stage = path.stem[:2].lstrip("0")
    tasks = [t for t in TASKS if t.split(".")[0] == stage]
    assert sorted(cells) == sorted(g for t in tasks for g in (marker(t), f"{marker(t)}_visible", f"{marker(t)}_points"))
    for t in tasks:
        visible, points, graded = cells[f"{marker(t)}_visible"], cells[f"{marker(t)}_points"], cells[marker(t)]
        assert not visible.metadata["nbgrader"]["grade"] and visible.metadata["nbgrader"]["locked"]
        at = notebook.cells.index(visible)
        assert notebook.cells[at + 1] is points and notebook.cells[at + 2] is graded
        assert points.cell_type == "markdown" and points.metadata["nbgrader"]["locked"]
        assert not points.metadata["nbgrader"]["grade"] and points.metadata["minitorch"]["points"] == POINTS[t]
        assert points.source == release.points_text(t, POINTS[t])
        assert points.source.startswith(f"**Task {t}** is worth {POINTS[t]:g} point")
        # one comment line saying what the cell is: an empty or folded cell looks like scratch space
        assert graded.cell_type == "code" and graded.source == release.graded_text(t)
        assert graded.source.startswith(f"# Task {t}: ") and "\n" not in graded.source and "jupyter" not in graded.metadata
        assert graded.metadata["nbgrader"]["grade"] and graded.metadata["nbgrader"]["points"] == POINTS[t]
        assert f"Task {t}" in visible.source and "HIDDEN" not in visible.source
    headings = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    for t in tasks:
        assert f"Your task {t}" in headings


def test_each_helper_a_solution_uses_is_named_in_its_notebook():
    """A given helper of a task's module that the reference's solution calls (as_matrices,
    product_like, normal_pdf, _walk...) is named in the notebook that sets the task, so
    that a learner knows it is there to use."""
    import ast
    import textwrap

    from grader.release.regions import find_regions
    missing = []
    for path in sorted((ROOT / "solutions" / "minitorch").rglob("*.py")):
        text = path.read_text()
        tree = ast.parse(text)
        defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        lines = text.splitlines()
        for region in find_regions(text, path.name):
            body = textwrap.dedent("\n".join(lines[region.begin + 1:region.end]))
            used = {node.id for node in ast.walk(ast.parse(body)) if isinstance(node, ast.Name)}
            notebook = next((ROOT / "solutions" / "notebooks").glob(f"0{region.task.split('.')[0]}_*.py")).read_text()
            own = {n for n in defined if f"def {n}(" in "\n".join(lines[:region.begin]) and n in region.label}
            missing += [f"{region.label}: {name}" for name in sorted(used & defined - own) if name not in notebook]
    assert not missing, missing
