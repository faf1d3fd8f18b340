"""The course-reshaping tools (grader/course_edit/) on a copy of the sources: what each
changes, and a clear refusal, naming what was wrong, for what it cannot do. The recipes
that use them are followed end to end by test_instructor_guide.py."""

import pathlib
import shutil
import tomllib

import pytest

from grader.commands import stage as stage_command
from grader.commands import task as task_command
from grader.course_edit import manifest
from grader.course_edit.drop import drop_stage, given
from grader.course_edit.scaffold import add_stage, add_task
from grader.release.regions import find_regions

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = ["grader/tasks.toml", "grader/checks", "solutions", "tests/reference", "docs/CURRICULUM.md"]


@pytest.fixture
def root(tmp_path):
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def data(root):
    return tomllib.loads((root / "grader/tasks.toml").read_text())


def test_a_region_becomes_given_code():
    text = "def f(x):\n    y = 1\n    # Task 9.1: f\n    ### BEGIN SOLUTION\n    return x + y\n    ### END SOLUTION\n"
    assert given(text, {"9.1"}, "f.py") == "def f(x):\n    y = 1\n    return x + y\n"
    assert given(text, {"9.2"}, "f.py") == text


def test_dropping_a_stage_leaves_no_region_test_or_table_of_it(root):
    changed = drop_stage("5", root)
    assert "5" not in data(root)["stage"] and not [t for t in data(root)["task"] if t.startswith("5.")]
    assert {"6", "7"} <= set(data(root)["stage"])  # the manifest's other tables stay as they were
    regions = {r.task for p in (root / "solutions/minitorch").rglob("*.py") for r in find_regions(p.read_text())}
    assert regions and not [t for t in regions if t.startswith("5.")]
    assert "def backward" in (root / "solutions/minitorch/ops_activation.py").read_text()  # the code stays, given
    assert not list((root / "grader/checks").glob("stage5*.py")) and not list((root / "tests/reference").glob("test_stage5_*"))
    assert not (root / "solutions/notebooks/05_matmul_softmax.py").exists()
    assert "| 5 | `" not in (root / "docs/CURRICULUM.md").read_text()
    assert any("deleted grader/checks/stage5.py" in line for line in changed)


def test_adding_a_task_places_it_in_its_stage(root):
    add_task("3.4", "Softplus.backward", "ops_unary.py", ["ops_unary.Softplus"], {"Softplus": 1.0, "at 0": 0.5}, root,
             swaps=["ops_binary.unbroadcast"])
    tasks = data(root)["task"]
    assert list(tasks).index("3.4") == list(tasks).index("3.3") + 1
    assert tasks["3.4"] == {"title": "Softplus.backward", "calls": ["ops_unary.Softplus"],
                            "swaps": ["ops_binary.unbroadcast"], "parts": {"Softplus": 1, "at 0": 0.5}}
    checks = (root / "grader/checks/stage3.py").read_text()
    assert '@part("3.4", \'Softplus\')' in checks and '@part("3.4", \'at 0\')' in checks
    assert '"grade_id": "task3_4_visible"' in (root / "solutions/notebooks/03_reductions.py").read_text()
    assert "@pytest.mark.task3_4" in (root / "tests/reference/test_stage3_reductions.py").read_text()


def test_a_new_stage_and_a_task_in_a_new_file(root):
    add_stage("8", "08_extras", "extra activations", root)
    add_task("8.1", "Softsign.backward", "ops_extra.py", ["ops_extra.Softsign"], {"Softsign": 1.0}, root)
    assert data(root)["stage"]["8"] == {"notebook": "08_extras", "title": "extra activations"}
    assert "from . import ops_extra" in (root / "solutions/minitorch/__init__.py").read_text()
    for path in ["solutions/notebooks/08_extras.py", "grader/checks/stage8.py", "tests/reference/test_stage8_extras.py"]:
        assert "8.1" in (root / path).read_text(), path
    assert "| 8 | `08_extras`" in (root / "docs/CURRICULUM.md").read_text()


@pytest.mark.parametrize("call, message", [
    (lambda r: add_task("3.3", "again", "ops_reduce.py", [], {"p": 1}, r), "in the manifest already"),
    (lambda r: add_task("9.1", "x", "ops_unary.py", [], {"p": 1}, r), "no stage 9"),
    (lambda r: add_task("3", "x", "ops_unary.py", [], {"p": 1}, r), "STAGE.N"),
    (lambda r: add_task("3.4", "x", "../evil.py", [], {"p": 1}, r), "relative to minitorch/"),
    (lambda r: add_task("3.4", "x", "ops_unary.py", [], {"p": 1}, r, swaps=["nope"]), "no given helper"),
    (lambda r: add_stage("3", "03_again", "x", r), "stage 3 already"),
    (lambda r: add_stage("8", "8_extras", "x", r), "NN_name"),
    (lambda r: drop_stage("9", r), "no stage '9'"),
])
def test_what_cannot_be_done_is_refused_saying_why(root, call, message):
    before = (root / "grader/tasks.toml").read_text()
    with pytest.raises(manifest.EditError, match=message):
        call(root)
    assert (root / "grader/tasks.toml").read_text() == before


def test_the_commands_say_what_was_wrong(capsys):
    assert task_command.main(task="3.4", title="x", file="ops_unary.py", calls=[], parts=["Softplus"]) == 2
    assert "expected NAME=POINTS" in capsys.readouterr().err
    assert stage_command.main(action="add", stage="8") == 2
    assert "--notebook" in capsys.readouterr().err
