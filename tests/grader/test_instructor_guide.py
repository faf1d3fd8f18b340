"""docs/INSTRUCTOR.md's "adding a task", followed in a copy of the repository: a toy Task
3.4 (``Softplus.backward``) touches four files, the release builds, the reference earns
every point of it, a bug in the new op costs that task only, the progress table lists it,
and a course folder made before the task gains its graded cell."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from grader.tasks import TOTAL

ROOT = pathlib.Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

OP = '''

class Softplus(Function):
    """out = log(1 + e ** x)."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(x)
        return np.logaddexp(0, x)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        (x,) = ctx.saved
        # Task 3.4: Softplus.backward
        ### BEGIN SOLUTION
        return grad / (1 + np.exp(-x))
        ### END SOLUTION
'''
SECTION = '''

# %% [markdown]
# ## Your task 3.4: `Softplus.backward` in `minitorch/ops_unary.py`
#
# softplus(x) = log(1 + e^x); its derivative is the sigmoid of x.

# %% nbgrader={"grade": false, "grade_id": "task3_4_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 3.4
from minitorch import ops_unary  # noqa: E402
from minitorch.function import Context  # noqa: E402

ctx = Context((True,))
ops_unary.Softplus.forward(ctx, np.array([-1.0, 0.0, 2.0]))
got = ops_unary.Softplus.backward(ctx, np.ones(3))
assert np.allclose(got, 1 / (1 + np.exp(-np.array([-1.0, 0.0, 2.0])))), f"Softplus.backward: got {got}"
print("Task 3.4 passes the visible checks")
'''
MANIFEST = '''
[task."3.4"]
title = "Softplus.backward"
calls = ["ops_unary.Softplus"]
[task."3.4".parts]
"Softplus" = 1
'''
CHECK = '''

@part("3.4", "Softplus")
def softplus(w, rng):
    check_rule(w, "ops_unary.Softplus", lambda x: np.logaddexp(0, x), [rng.uniform(-3, 3, (2, 3))], rng)
'''


def run(copy: pathlib.Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(copy))  # the copy's grader and package, not this repository's
    done = subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True,
                          timeout=600, **kwargs)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


def git(copy: pathlib.Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=copy, capture_output=True, text=True, check=True).stdout


def make_course(copy: pathlib.Path, folder: pathlib.Path) -> None:
    run(copy, "-c", "import pathlib, sys; from grader.pipeline.course import Course; from grader.settings import "
        f"Settings; Course(pathlib.Path({str(folder)!r}), Settings()).create()")


def grade(copy: pathlib.Path, package_parent: pathlib.Path, out: pathlib.Path) -> dict[str, str]:
    """Task -> "earned / most" from `check`'s table."""
    done = run(copy, "-m", "grader", "check", str(package_parent), "--out", str(out))
    return dict(re.findall(r"Task (\d\.\d)\s+([\d.]+ / [\d.]+)", done.stdout))


def test_adding_a_task_as_the_guide_says(tmp_path):
    copy = tmp_path / "course-repo"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.splitlines()
    for name in listed:
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "before")
    course = tmp_path / "course"
    make_course(copy, course)

    # the guide's steps
    with (copy / "solutions/minitorch/ops_unary.py").open("a") as f:
        f.write(OP)
    with (copy / "solutions/notebooks/03_reductions.py").open("a") as f:
        f.write(SECTION)
    with (copy / "grader/tasks.toml").open("a") as f:
        f.write(MANIFEST)
    with (copy / "grader/checks/stage3.py").open("a") as f:
        f.write(CHECK)
    run(copy, "-m", "grader", "release")

    touched = {line[3:] for line in git(copy, "status", "--porcelain").splitlines()}
    released = {"minitorch/ops_unary.py", "notebooks/03_reductions.ipynb", "grader/release/released.json"}
    by_hand = touched - released
    assert by_hand == {"solutions/minitorch/ops_unary.py", "solutions/notebooks/03_reductions.py",
                       "grader/tasks.toml", "grader/checks/stage3.py"}
    assert touched - by_hand == released  # the release's files and its record of them
    stub = (copy / "minitorch/ops_unary.py").read_text()
    assert 'raise NotImplementedError("Task 3.4: Softplus.backward")' in stub and "1 + np.exp(-x)" not in stub
    notebook = json.loads((copy / "notebooks/03_reductions.ipynb").read_text())
    assert any("**Task 3.4** is worth 1 point." in "".join(c["source"]) for c in notebook["cells"])
    graded = [c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "task3_4"]
    assert len(graded) == 1 and graded[0]["metadata"]["nbgrader"]["points"] == 1

    # the reference keeps every point, the new one included
    scores = grade(copy, copy / "solutions", tmp_path / "reference")
    assert scores["3.4"] == "1 / 1" and all(a == b for a, b in (s.split(" / ") for s in scores.values()))
    assert len(scores) == len(__import__("grader.tasks").tasks.TASKS) + 1
    # a bug in the new op costs that task only
    buggy = tmp_path / "buggy"
    shutil.copytree(copy / "solutions" / "minitorch", buggy / "minitorch")
    source = (buggy / "minitorch/ops_unary.py").read_text()
    (buggy / "minitorch/ops_unary.py").write_text(source.replace("return grad / (1 + np.exp(-x))",
                                                                 "return grad / (1 + np.exp(x))"))
    scores = grade(copy, buggy, tmp_path / "buggy-out")
    lost = {task for task, s in scores.items() if s.split(" / ")[0] != s.split(" / ")[1]}
    assert lost == {"3.4"}
    done = run(copy, "-m", "grader", "check", str(buggy), "--out", str(tmp_path / "b2"))
    assert f"Total: {TOTAL:g} / {TOTAL + 1:g}" in done.stdout

    # the progress table lists it (the release's stub: not started)
    table = run(copy, "-m", "minitorch.progress").stdout
    assert re.search(r"3\.4.*not started", table), table[-1500:]

    # a course made before the task gains its graded cell
    make_course(copy, course)
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        cells = {(c.name, c.max_score) for n in gradebook.find_assignment("03_reductions").notebooks
                 for c in n.grade_cells}
    assert ("task3_4", 1.0) in cells
