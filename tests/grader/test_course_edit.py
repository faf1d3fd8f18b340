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
SOURCES = ["grader/tasks.toml", "grader/checks", "solutions", "tests/reference", "docs/CURRICULUM.md",
           "tests/grader/variants.py", "tests/grader/variants_edges.py", "tests/grader/variants_stage7.py",
           "tests/release/mistakes.py"]


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


# The stages and tasks the tests reshape, from the manifest, so that they hold in a course an
# instructor has adapted (docs/INSTRUCTOR.md): a stage with tasks gets a task after its last,
# a new stage comes after the last, and a middle stage is dropped.
MANIFEST = data(ROOT)
STAGE_NUMBERS = sorted(MANIFEST["stage"], key=int)
HOST = next(s for s in STAGE_NUMBERS if any(t.split(".")[0] == s for t in MANIFEST["task"]))
LAST = [t for t in MANIFEST["task"] if t.split(".")[0] == HOST][-1]
NEW_TASK = f"{HOST}.{max(int(t.split('.')[1]) for t in MANIFEST['task'] if t.split('.')[0] == HOST) + 1}"
NEW_STAGE = str(int(STAGE_NUMBERS[-1]) + 1)
NO_STAGE = str(int(NEW_STAGE) + 1)
DROPPED = STAGE_NUMBERS[len(STAGE_NUMBERS) // 2]
SWAP = next(iter(MANIFEST.get("given", {})), None)
marker = "task" + NEW_TASK.replace(".", "_")


def run_file(path: pathlib.Path) -> dict:
    """The names a Python file defines (hints.py, a variants file), run on its own."""
    names: dict = {"__name__": "companion"}
    exec(compile(path.read_text(), str(path), "exec"), names)
    return names


def test_a_region_becomes_given_code():
    text = "def f(x):\n    y = 1\n    # Task 9.1: f\n    ### BEGIN SOLUTION\n    return x + y\n    ### END SOLUTION\n"
    assert given(text, {"9.1"}, "f.py") == "def f(x):\n    y = 1\n    return x + y\n"
    assert given(text, {"9.2"}, "f.py") == text


def test_dropping_a_stage_leaves_no_region_test_or_table_of_it(root):
    notebook = MANIFEST["stage"][DROPPED]["notebook"]
    kept = {}  # file -> the dropped stage's solution lines, which stay as given code
    for path in (root / "solutions/minitorch").rglob("*.py"):
        lines = path.read_text().splitlines()
        for r in find_regions(path.read_text()):
            if r.task.startswith(f"{DROPPED}."):
                kept.setdefault(path, []).extend(line.strip() for line in lines[r.begin + 1:r.end] if line.strip())
    changed = drop_stage(DROPPED, root)
    assert DROPPED not in data(root)["stage"] and not [t for t in data(root)["task"] if t.startswith(f"{DROPPED}.")]
    assert set(STAGE_NUMBERS) - {DROPPED} == set(data(root)["stage"])  # the manifest's other tables stay as they were
    regions = {r.task for p in (root / "solutions/minitorch").rglob("*.py") for r in find_regions(p.read_text())}
    assert regions and not [t for t in regions if t.startswith(f"{DROPPED}.")]
    assert not list((root / "grader/checks").glob(f"stage{DROPPED}*.py"))
    assert not list((root / "tests/reference").glob(f"test_stage{DROPPED}_*"))
    assert not (root / f"solutions/notebooks/{notebook}.py").exists()
    assert f"| {DROPPED} | `" not in (root / "docs/CURRICULUM.md").read_text()
    assert any(f"deleted grader/checks/stage{DROPPED}.py" in line for line in changed)
    hints = run_file(root / "solutions/minitorch/course/hints.py")["HINTS"]
    assert set(hints) == set(data(root)["task"])  # the dropped tasks' hints went, the others stayed
    for name, listed in [("variants.py", "BUGGY"), ("variants_edges.py", "BUGGY"), ("variants_stage7.py", "BUGGY"),
                         ("../release/mistakes.py", "MISTAKES")]:
        entries = run_file(root / "tests/grader" / name)[listed]
        assert not [e for e in entries if e[2].startswith(f"{DROPPED}.")], name
    assert kept and all(line in path.read_text() for path, lines in kept.items() for line in lines)


def test_adding_a_task_places_it_in_its_stage(root):
    notebook = MANIFEST["stage"][HOST]["notebook"]
    swaps = [SWAP] if SWAP else []
    add_task(NEW_TASK, "Softplus.backward", "ops_unary.py", ["ops_unary.Softplus"], {"Softplus": 1.0, "at 0": 0.5}, root,
             swaps=swaps)
    tasks = data(root)["task"]
    assert list(tasks).index(NEW_TASK) == list(tasks).index(LAST) + 1
    assert tasks[NEW_TASK] == {"title": "Softplus.backward", "calls": ["ops_unary.Softplus"],
                               "swaps": swaps, "parts": {"Softplus": 1, "at 0": 0.5}}
    checks = "".join(p.read_text() for p in (root / "grader/checks").glob(f"stage{HOST}*.py"))
    assert f'@part("{NEW_TASK}", \'Softplus\')' in checks and f'@part("{NEW_TASK}", \'at 0\')' in checks
    assert f'"grade_id": "{marker}_visible"' in (root / f"solutions/notebooks/{notebook}.py").read_text()
    reference = "".join(p.read_text() for p in (root / "tests/reference").glob(f"test_stage{HOST}_*.py"))
    assert f"@pytest.mark.{marker}" in reference
    # its hint steps (mt.hint works at once, and the notebook's section names it) and a variant pair to write
    assert len(run_file(root / "solutions/minitorch/course/hints.py")["HINTS"][NEW_TASK]) == 3
    assert f'`mt.hint("{NEW_TASK}")`' in (root / f"solutions/notebooks/{notebook}.py").read_text()
    assert f"TODO Task {NEW_TASK}: BUGGY.append" in (root / "tests/grader/variants.py").read_text()


def test_a_new_stage_and_a_task_in_a_new_file(root):
    notebook = f"{int(NEW_STAGE):02d}_extras"
    add_stage(NEW_STAGE, notebook, "extra activations", root)
    add_task(f"{NEW_STAGE}.1", "Softsign.backward", "ops_extra.py", ["ops_extra.Softsign"], {"Softsign": 1.0}, root)
    assert data(root)["stage"][NEW_STAGE] == {"notebook": notebook, "title": "extra activations"}
    assert "from . import ops_extra" in (root / "solutions/minitorch/__init__.py").read_text()
    for path in [f"solutions/notebooks/{notebook}.py", f"grader/checks/stage{NEW_STAGE}.py",
                 f"tests/reference/test_stage{NEW_STAGE}_extras.py"]:
        assert f"{NEW_STAGE}.1" in (root / path).read_text(), path
    assert f"| {NEW_STAGE} | `{notebook}`" in (root / "docs/CURRICULUM.md").read_text()
    assert f"TODO Stage {NEW_STAGE}: four or more MISTAKES.append" in (root / "tests/release/mistakes.py").read_text()


@pytest.mark.parametrize("call, message", [
    (lambda r: add_task(LAST, "again", "ops_reduce.py", [], {"p": 1}, r), "in the manifest already"),
    (lambda r: add_task(f"{NO_STAGE}.1", "x", "ops_unary.py", [], {"p": 1}, r), f"no stage {NO_STAGE}"),
    (lambda r: add_task(HOST, "x", "ops_unary.py", [], {"p": 1}, r), "STAGE.N"),
    (lambda r: add_task(NEW_TASK, "x", "../evil.py", [], {"p": 1}, r), "relative to minitorch/"),
    (lambda r: add_task(NEW_TASK, "x", "ops_unary.py", [], {"p": 1}, r, swaps=["nope"]), "no given helper"),
    (lambda r: add_stage(HOST, f"{int(HOST):02d}_again", "x", r), f"stage {HOST} already"),
    (lambda r: add_stage(NEW_STAGE, "extras", "x", r), "NN_name"),
    (lambda r: drop_stage(NO_STAGE, r), f"no stage '{NO_STAGE}'"),
])
def test_what_cannot_be_done_is_refused_saying_why(root, call, message):
    before = (root / "grader/tasks.toml").read_text()
    with pytest.raises(manifest.EditError, match=message):
        call(root)
    assert (root / "grader/tasks.toml").read_text() == before


def test_the_commands_say_what_was_wrong(capsys):
    assert task_command.main(task=NEW_TASK, title="x", file="ops_unary.py", calls=[], parts=["Softplus"]) == 2
    assert "expected NAME=POINTS" in capsys.readouterr().err
    assert stage_command.main(action="add", stage=NEW_STAGE) == 2
    assert "--notebook" in capsys.readouterr().err
