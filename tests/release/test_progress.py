"""The learner's progress table (`make progress`): every visible check of every notebook,
run against a package, in under 30 s; done, not started, or failing with the reason.
The visible checks deserve trust: each of the grader tests' planted bugs makes its task's
check fail, and each correct solution written differently passes them all."""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import pytest

from grader.tasks import STAGES, TASKS
from tests.messages_log import note_message

ROOT = pathlib.Path(__file__).resolve().parents[2]


def needs(*tasks: str):
    """A test of these tasks' checks: skipped, saying why, in a course without them."""
    missing = [t for t in tasks if t not in TASKS]
    return pytest.mark.skipif(bool(missing), reason=f"the course has no task {', '.join(missing)}")


def progress(package_parent: pathlib.Path) -> tuple[str, float]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "minitorch.course.progress"], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(package_parent)), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, time.perf_counter() - start


def rows(text: str) -> dict[str, str]:
    """Each task's row, its wrapped lines joined."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if line[:1].isdigit():
            found[line.split()[0]] = line
        elif line.startswith(" " * 29) and found:
            found[list(found)[-1]] += " " + line.strip()
    return found


@pytest.mark.slow  # every notebook's checks: benchmarks/bench_course.py times them
def test_reference_is_done_everywhere():
    text, _ = progress(ROOT / "solutions")
    assert len(rows(text)) == len(TASKS) and all(" done " in row for row in rows(text).values()), text


@pytest.mark.slow
def test_the_release_shows_where_work_is_needed():
    table = rows(progress(ROOT)[0])
    if {"2.3", "6.1", "6.4"} <= set(TASKS):  # the course's own examples
        assert "not started  Task 2.3: the binary ops' backward in minitorch/ops_binary.py" in table["2.3"]
        assert "(its check also needs Task 6.1 first)" in table["6.4"]
    assert len(table) == len(TASKS) and not [t for t, row in table.items() if " done " in row], table
    for task, row in table.items():  # every task untouched: not started, named by its notebook heading
        assert f"not started  Task {task}: " in row, row
        assert row.count("(") == row.count(")") and "…" not in row, f"a reason cut short: {row}"


@pytest.mark.slow
@needs("1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3", "6.1")
def test_a_bug_upstream_makes_the_tasks_using_it_wait_and_untouched_ones_not_started(tmp_path):
    """A wrong unbroadcast (2.2) with stages 1 and 2 written and the rest untouched: 2.2
    fails with its whole reason (what came back and what was expected), 2.3 waits on 2.2
    (no blame of its own rules), every later task is not started, each named once."""
    written = ["numerical.py", "scalar.py", "autodiff.py", "shapes.py", "ops_binary.py"]
    shutil.copytree(ROOT / "minitorch", tmp_path / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    for name in written:
        shutil.copy(ROOT / "solutions" / "minitorch" / name, tmp_path / "minitorch" / name)
    shapes = tmp_path / "minitorch" / "shapes.py"
    keepdims = "axis=(*range(extra), *stretched), keepdims=True).reshape(shape)"
    assert shapes.read_text().count(keepdims) == 1
    shapes.write_text(shapes.read_text().replace(keepdims, "axis=(*range(extra), *stretched))"))
    text = progress(tmp_path)[0]
    table = rows(text)
    assert all(" done " in table[t] for t in ("1.1", "1.2", "1.3", "1.4", "2.1")), text
    assert "failing" in table["2.2"] and "expected" in table["2.2"] and "keepdims" in table["2.2"], text
    assert "waits on 2.2" in table["2.3"] and "Sub" not in table["2.3"] and "unbroadcast" in table["2.3"], text
    for task in [t for t in table if int(t.split(".")[0]) > 2]:
        assert f"not started  Task {task}: " in table[task], table[task]
    assert "…" not in text
    assert "Task 6.1: Module.parameters, Linear and MLP in minitorch/nn/modules.py" in table["6.1"]
    assert "Linear.__init__" not in text and "MLP.__init__" not in text


@needs("1.3", "1.4")
def test_a_check_that_says_an_earlier_task_first_waits_on_it_as_the_readme_says():
    """Issue 45: a learner's package without the "# Task 1.3" labels (so no code of 1.3 is
    seen running) showed 1.4 as failing with "Task 1.3 first: ..."; the check's own words
    now make it wait on 1.3, the status the README names."""
    from minitorch.course import progress as table
    said = {"type": "CheckFailed", "error": "Task 1.3 first: Task 1.4's check runs your Task 1.3 code, and Task 1.3's "
            "own check fails (topological_order(long): came back as (0, 1)).", "used": []}
    row = table._status("1.4", said, set(), set(), {"1.3": "Task 1.3: topological_order"}, None)
    assert row["status"] == "waits on 1.3" and "fix Task 1.3 first" in row["why"], row
    wrong = {"type": "CheckFailed", "error": "backpropagate(y): x.grad came back with wrong values", "used": []}
    assert table._status("1.4", wrong, set(), set(), {}, None)["status"] == "failing"
    readme = (ROOT / "grader" / "release" / "learner" / "README.md").read_text()
    assert "waits\non an earlier task (`waits on 1.3`:" in readme


def test_the_readme_says_how_to_shut_down_the_kernels_lab_reopens():
    """Issue 45: Lab reopens every notebook, each with its own kernel (seven at once)."""
    readme = " ".join((ROOT / "grader" / "release" / "learner" / "README.md").read_text().split())
    for words in ("each open notebook starts a kernel of its own", "File > Close and Shut Down Notebook",
                  "Running Terminals and Kernels panel", "Kernel > Shut Down All Kernels"):
        assert words in readme, words


@needs("2.3", "3.1", "3.2")
def test_a_planted_bug_shows_as_failing_with_its_reason(tmp_path):
    shutil.copytree(ROOT / "solutions" / "minitorch", tmp_path / "minitorch")
    ops = tmp_path / "minitorch" / "ops_unary.py"
    ops.write_text(ops.read_text().replace("return grad / x", "return grad * x"))
    table = rows(progress(tmp_path)[0])
    assert "failing" in table["3.1"] and all(" done " in table[t] for t in ("2.3", "3.2"))


# ---- the visible checks' power: every planted bug of the grader's tests shows -------------
sys.path.insert(0, str(ROOT / "tests" / "grader"))
import variants
import variants_edges
import variants_known
import variants_stage7

BUGGY = [b for b in variants.BUGGY + variants_stage7.BUGGY + variants_edges.BUGGY + variants_known.BUGGY
         if b[2] in TASKS]  # a dropped stage's: out
ALTERNATIVES = variants.ALTERNATIVES + variants_stage7.ALTERNATIVES + variants_edges.ALTERNATIVES


def rows_with(patches, stages: set[str], tmp_path: pathlib.Path, monkeypatch) -> dict[str, dict]:
    """The progress rows of the given stages' notebooks, against the reference with patches."""
    from minitorch.course import progress
    package = tmp_path / "package" / "minitorch"
    shutil.copytree(ROOT / "solutions" / "minitorch", package, ignore=shutil.ignore_patterns("__pycache__"))
    for file, old, new in patches:
        text = (package / file).read_text()
        assert text.count(old) == 1, f"the patch does not apply to {file}: {old!r}"
        (package / file).write_text(text.replace(old, new))
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    for stage in stages:
        path = ROOT / "notebooks" / f"{STAGES[stage]}.ipynb"
        shutil.copy(path, notebooks / path.name)
    monkeypatch.setenv("PYTHONPATH", str(package.parent))
    return {row["task"]: row for row in progress.run(notebooks)}


def stages_of(patches) -> set[str]:
    """The stages whose tasks live in the patched files, and the capstone built on them."""
    found = {max(STAGES, key=int)}
    for file, _, _ in patches:
        found |= {t.split(".")[0] for t in re.findall(r"Task (\d+\.\d+)", (ROOT / "solutions" / "minitorch" / file).read_text())}
    return found & set(STAGES)


@pytest.mark.slow
@pytest.mark.parametrize("name, patch, task, phrase", BUGGY, ids=[b[0] for b in BUGGY])
def test_the_visible_check_of_a_task_catches_each_planted_bug(name, patch, task, phrase, tmp_path, monkeypatch):
    row = rows_with([patch], {task.split(".")[0]}, tmp_path, monkeypatch)[task]
    note_message("notebook", name, task, row["why"])
    assert row["status"] == "failing", f"{name}: the visible check of Task {task} passes"
    named = set(re.findall(r"\(known mistake: ([^)]+)\)", row["why"]))  # the same as the hidden checks name, never another
    assert named == variants_known.named_in_notebook(name), row["why"]


@pytest.mark.slow
@pytest.mark.parametrize("name, patches", ALTERNATIVES, ids=[a[0] for a in ALTERNATIVES])
def test_a_correct_solution_written_differently_passes_every_visible_check(name, patches, tmp_path, monkeypatch):
    rows = rows_with(patches, stages_of(patches), tmp_path, monkeypatch)
    assert all(row["status"] == "done" for row in rows.values()), {t: r["why"] for t, r in rows.items() if r["why"]}


@pytest.mark.parametrize("name, task, words", [
    ("unbroadcast loses keepdims", "2.2", ["unbroadcast(g, (4, 1))", "g of shape (2, 4, 3)", "came back with shape (4,)",
                                           "not (4, 1)", "keepdims", "got:", "expected:"]),
    ("sum loses keepdims", "3.2", ["Sum.backward", "input shape (2, 3, 4)", "keepdims=False", "gave shape",
                                   "expected (1, 3, 1)", "np.expand_dims"]),
    ("max gives every tie the full gradient", "3.3", ["Max.backward", "inputs of shape (2, 4)", "axis=1",
                                                       "keepdims=True", "tie", "wrong values", "got:", "expected:"]),
])
def test_a_visible_check_names_the_call_the_case_what_came_back_and_what_was_expected(name, task, words, tmp_path,
                                                                                       monkeypatch):
    if task not in TASKS:
        pytest.skip(f"the course has no task {task}")
    patch = next(b[1] for b in BUGGY if b[0] == name)
    row = rows_with([patch], {task.split(".")[0]}, tmp_path, monkeypatch)[task]
    assert row["status"] == "failing" and all(w in row["why"] for w in words), (words, row["why"])
    assert "AssertionError" not in row["why"] and "axis remapping" not in row["why"]


@pytest.mark.slow  # notebook 07's first cell is made 10 s slower
def test_each_row_is_printed_as_soon_as_its_check_has_run(tmp_path):
    """No silent wait: with notebook 07's first cell made 10 s slower, the rows of notebook
    01 reach the terminal before 07's checks have run, not all at once at the end."""
    import json
    shutil.copytree(ROOT / "solutions" / "minitorch", tmp_path / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "notebooks").mkdir()
    for name in ("01_chain_rule.ipynb", "07_gpt.ipynb"):
        notebook = json.loads((ROOT / "notebooks" / name).read_text())
        if name.startswith("07"):
            first = next(c for c in notebook["cells"] if c["cell_type"] == "code")
            first["source"] = "import time\ntime.sleep(10)\n" + "".join(first["source"])
        (tmp_path / "notebooks" / name).write_text(json.dumps(notebook))
    child = subprocess.Popen([sys.executable, "-m", "minitorch.course.progress"], cwd=tmp_path, stdout=subprocess.PIPE,
                             text=True, env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    arrived = {}
    assert child.stdout is not None
    for line in child.stdout:
        arrived.setdefault(line.split(" ")[0], time.perf_counter())
    assert child.wait(timeout=120) == 0
    assert set(arrived) >= {"task", "1.1", "1.4", "7.1", "7.4", "visible"}, arrived
    assert arrived["1.1"] - arrived["task"] < arrived["7.1"] - arrived["task"] - 5, arrived
    assert arrived["7.1"] - arrived["1.4"] > 5, "the rows of notebook 01 waited for notebook 07's checks"


def test_a_package_that_does_not_import_gets_one_line_not_a_traceback(tmp_path):
    """`make progress` on a package with a syntax error once printed Python's traceback (its
    own import of the package failed): now the error, its file and its line, in one line,
    as `make handin` says it, and no table of rows that each say the same."""
    course = tmp_path / "course"
    shutil.copytree(ROOT / "solutions" / "minitorch", course / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "notebooks", course / "notebooks")
    module = course / "minitorch" / "ops_unary.py"
    module.write_text(module.read_text() + "\ndef broken(x:\n    return x\n")
    makefile = (ROOT / "grader" / "release" / "learner" / "Makefile").read_text()
    command = re.search(r"^progress:.*\n\t\$\(BIN\)/python (.+)$", makefile, re.MULTILINE).group(1).split()
    done = subprocess.run([sys.executable, *command], cwd=course, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(course)))  # as `make progress` runs it
    assert done.returncode == 0 and done.stderr == "", done.stderr[-2000:]
    assert len(done.stdout.strip().splitlines()) == 1 and "Traceback" not in done.stdout, done.stdout
    assert "does not import: SyntaxError" in done.stdout and "(minitorch/ops_unary.py, line" in done.stdout, done.stdout
