"""The whole pipeline on a small class: real nbgrader course, real kernels, two jobs.

The class: the reference (full marks), the blank release (zero), a package with a syntax
error, a submission without a package, one that disarms the hidden checks when imported,
one that does everything wrong at once (kills its kernel in stage 4, loops forever in
stage 5, exhausts memory in stage 6, writes to stderr, sets off a NumPy RuntimeWarning,
deletes and edits test cells, ships a corrupt notebook), and a vandal, graded first, whose correct package tries on import to
rewrite the grader's checks for everyone after it, delete the course's source notebooks,
empty the gradebook and write outside the course. Each gets a clear message and loses
only what it breaks; nobody's grade depends on anybody else's.
"""

import csv
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

from grader.sandbox import landlock_abi
from grader.tasks import POINTS, STAGES, TASKS

ROOT = pathlib.Path(__file__).resolve().parents[2]


def write_package(target: pathlib.Path, source: pathlib.Path, patches=()):
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    for file, old, new in patches:
        text = (target / file).read_text()
        assert text.count(old) == 1, (file, old)
        (target / file).write_text(text.replace(old, new))


def write_notebooks(target: pathlib.Path):
    shutil.copytree(ROOT / "notebooks", target, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))


CHAOS = [
    ("ops_unary.py", "        return grad * out * (1 - out)",
     "        import sys\n        print('debugging on stderr', file=sys.stderr)\n"
     "        np.log(np.zeros(1))  # a NumPy RuntimeWarning on the way costs nothing\n"
     "        return grad * out * (1 - out)"),
    ("ops_index.py", "        full = np.zeros(ctx.shape, dtype=ctx.dtype)",
     "        import os\n        os._exit(3)\n        full = np.zeros(ctx.shape, dtype=ctx.dtype)"),
    ("ops_activation.py", "        if ctx.approximate == \"tanh\":\n            t = np.tanh",
     "        while True:\n            pass\n        if ctx.approximate == \"tanh\":\n            t = np.tanh"),
    ("optim.py", "            g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad\n            t = state",
     "            hoard = [np.ones(2**25) for _ in range(400)]\n"
     "            g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad\n            t = state"),
]


VANDAL_MARK = pathlib.Path("/tmp/minitorch-vandal-was-here")
VANDALISM = f"""
import os as _os, pathlib as _pathlib, shutil as _shutil
import grader.registry as _registry

def _try(action):
    try:
        action()
    except OSError:
        pass

_try(lambda: _pathlib.Path(_registry.__file__).write_text("def check(*args, **kwargs):\\n    pass\\n"))
_try(lambda: _os.remove(_registry.__file__))
for _parent in _pathlib.Path.cwd().parents:
    if (_parent / "gradebook.db").exists():
        _try(lambda: open(_parent / "gradebook.db", "w").close())
        _try(lambda: _shutil.rmtree(_parent / "source"))
        _try(lambda: (_parent / "VANDALIZED").write_text("x"))
_try(lambda: open({str(VANDAL_MARK)!r}, "w").write("x"))
"""
SANDBOXED = landlock_abi() > 0  # without Landlock the vandal would succeed: it is left out


def make_class(folder: pathlib.Path) -> None:
    reference = folder / "ref"
    write_package(reference / "minitorch", ROOT / "solutions" / "minitorch")
    write_notebooks(reference / "notebooks")

    blank = folder / "blank_work"
    write_package(blank / "minitorch", ROOT / "minitorch")
    write_notebooks(blank / "notebooks")
    with zipfile.ZipFile(folder / "blank.zip", "w") as archive:
        for path in blank.rglob("*"):
            archive.write(path, path.relative_to(blank))
    shutil.rmtree(blank)

    broken = folder / "syntax"
    write_package(broken / "minitorch", ROOT / "solutions" / "minitorch",
                  [("ops_index.py", "class Cat(Function):", "class Cat(Function)")])
    write_notebooks(broken / "notebooks")

    write_notebooks(folder / "nopackage" / "notebooks")

    cheat = folder / "cheater"  # the blank stubs, plus an import that disarms the checks
    write_package(cheat / "minitorch", ROOT / "minitorch")
    init = cheat / "minitorch" / "__init__.py"
    init.write_text(init.read_text() + "\nimport numpy as _np\nimport grader.registry as _r\n"
                    "_r.check = lambda *args, **kwargs: None\n_np.allclose = lambda *args, **kwargs: True\n")
    write_notebooks(cheat / "notebooks")

    chaos = folder / "chaos"
    write_package(chaos / "minitorch", ROOT / "solutions" / "minitorch", CHAOS)
    write_notebooks(chaos / "notebooks")
    first = chaos / "notebooks" / "01_chain_rule.ipynb"
    notebook = json.loads(first.read_text())
    notebook["cells"] = [c for c in notebook["cells"]
                         if c["metadata"].get("nbgrader", {}).get("grade_id") not in ("task1_2", "task1_3_visible")]
    first.write_text(json.dumps(notebook))
    third = chaos / "notebooks" / "03_reductions.ipynb"
    notebook = json.loads(third.read_text())
    for cell in notebook["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "task3_2_visible":
            cell["source"] = "raise AssertionError('the learner edited a locked cell')"  # restored by nbgrader
    third.write_text(json.dumps(notebook))
    (chaos / "notebooks" / "02_broadcasting.ipynb").write_text('{"cells": [ this is not json')

    if SANDBOXED:
        vandal = folder / "a_vandal"  # first in order, so everyone after would suffer
        write_package(vandal / "minitorch", ROOT / "solutions" / "minitorch")
        init = vandal / "minitorch" / "__init__.py"
        init.write_text(init.read_text() + VANDALISM)
        write_notebooks(vandal / "notebooks")


def digest(folder: pathlib.Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return h.hexdigest()


def run_autograde(submissions, out):
    return subprocess.run([sys.executable, "-m", "grader", "autograde", str(submissions), "--jobs", "2",
                           "--out", str(out), "--timeout", "8"], cwd=ROOT, capture_output=True, text=True,
                          timeout=1200)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("class")
    VANDAL_MARK.unlink(missing_ok=True)
    make_class(base / "submissions")
    before = digest(base / "submissions")
    first = run_autograde(base / "submissions", base / "out")
    assert first.returncode == 0, first.stdout + first.stderr
    grades_first = (base / "out" / "grades.csv").read_text()
    second = run_autograde(base / "submissions", base / "out")
    assert second.returncode == 0, second.stdout + second.stderr
    return base, before, grades_first, first.stdout


def rows(base):
    with (base / "out" / "grades.csv").open() as file:
        return {row["learner"]: row for row in csv.DictReader(file)}


def test_reference_scores_everything_and_blank_scores_nothing(graded):
    table = rows(graded[0])
    assert float(table["ref"]["total"]) == sum(POINTS.values())
    assert float(table["blank"]["total"]) == 0


def test_broken_submissions_get_zero_with_a_clear_message(graded):
    table = rows(graded[0])
    assert float(table["syntax"]["total"]) == 0
    assert "ops_index.py has a syntax error" in table["syntax"]["problems"]
    assert float(table["nopackage"]["total"]) == 0
    assert "no minitorch/ package" in table["nopackage"]["problems"]


def test_chaos_loses_only_what_it_breaks(graded):
    row = rows(graded[0])["chaos"]
    lost = {t for t in TASKS if float(row[f"task{t}"]) < POINTS[t]}
    assert lost == {"4.2", "4.3", "5.2", "6.3"}, row  # 4.1 ran before the kernel died
    assert float(row["stage4"]) == POINTS["4.1"] and float(row["stage1"]) == 13 and float(row["stage2"]) == 12
    page = (graded[0] / "out" / "feedback" / "chaos" / f"{STAGES['4']}.html").read_text()
    assert "the kernel died while running this cell" in page and "not run: the kernel died in an earlier" in page
    assert float(row["stage3"]) == 11  # stderr output and RuntimeWarnings cost nothing; the edited cell was restored
    assert "02_broadcasting.ipynb is not a valid notebook" in row["problems"]
    assert "01_chain_rule.ipynb lacks graded cells (task1_2, task1_3_visible)" in row["problems"]


def test_tampering_with_the_checks_earns_nothing(graded):
    row = rows(graded[0])["cheater"]
    assert float(row["total"]) == 0, row


def test_rerunning_is_idempotent_and_submissions_are_untouched(graded):
    base, before, grades_first, _ = graded
    assert (base / "out" / "grades.csv").read_text() == grades_first
    assert digest(base / "submissions") == before
    assert len(rows(base)) == 7 + SANDBOXED  # the learners and the row of maxima


def test_feedback_and_plot_without_hidden_test_source(graded):
    base = graded[0]
    assert (base / "out" / "scores.png").stat().st_size > 1000
    for learner in ("ref", "chaos", "blank"):
        pages = sorted((base / "out" / "feedback" / learner).glob("*.html"))
        assert [p.stem for p in pages] == sorted(STAGES.values()), learner
        for page in pages:
            assert "grader.registry" not in page.read_text()


def test_course_is_a_real_nbgrader_course(graded):
    course = graded[0] / "out" / "course"
    assert (course / "gradebook.db").exists() and (course / "nbgrader_config.py").exists()
    assert sorted(p.name for p in (course / "source").iterdir()) == sorted(STAGES.values())
    assert not list((course / "source").rglob("*.py")), "no solution file may sit in source/"


@pytest.mark.skipif(not SANDBOXED, reason="this Linux kernel has no Landlock, so writes cannot be confined")
def test_vandal_cannot_write_outside_its_folder(graded):
    """The vandal's correct package keeps its full marks; its attempts all failed: the
    learners graded after it got their right grades (the blank release still 0, so the
    checks were not replaced), and the course and /tmp are as they were."""
    base = graded[0]
    table = rows(base)
    assert float(table["a_vandal"]["total"]) == sum(POINTS.values())
    assert float(table["blank"]["total"]) == 0 and float(table["ref"]["total"]) == sum(POINTS.values())
    course = base / "out" / "course"
    assert (course / ".trusted" / "grader" / "registry.py").read_text() == \
        (ROOT / "grader" / "registry.py").read_text()
    assert sorted(p.name for p in (course / "source").iterdir()) == sorted(STAGES.values())
    assert (course / "gradebook.db").stat().st_size > 0
    assert not (course / "VANDALIZED").exists() and not VANDAL_MARK.exists()


def test_nbgraders_own_autograde_gives_the_same_grades(graded, tmp_path):
    """An instructor may regrade with nbgrader's own command in the course folder; through
    the course's ``nbgrader_config.py`` it must give what ``python -m grader autograde``
    gave. (Before that file loaded the grader's configuration, it gave the reference 3 of 12
    in stage 2: the hidden tests could not import the grader.) Stage 4 holds a kernel death
    (chaos), a package that disarms the checks on import (cheater) and the vandal."""
    course = tmp_path / "course"
    shutil.copytree(graded[0] / "out" / "course", course, symlinks=True)
    bin_dir = pathlib.Path(sys.executable).parent
    env = dict(os.environ, PATH=os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")]))
    for command in (["autograde", STAGES["4"], "--force"], ["export", "--to", str(tmp_path / "nbgrader.csv")]):
        done = subprocess.run([str(bin_dir / "nbgrader"), *command], cwd=course, env=env, capture_output=True,
                              text=True, timeout=900)
        assert done.returncode == 0, done.stdout + done.stderr
    with (tmp_path / "nbgrader.csv").open() as file:
        theirs = {row["student_id"]: float(row["score"]) for row in csv.DictReader(file)
                  if row["assignment"] == STAGES["4"]}
    ours = {learner: float(row["stage4"] or 0) for learner, row in rows(graded[0]).items() if learner != "(maximum)"}
    assert theirs == ours
    assert ours["ref"] == sum(p for t, p in POINTS.items() if t.startswith("4.")) and ours["cheater"] == 0
    assert not VANDAL_MARK.exists()


def test_nbgrader_in_a_course_whose_grader_has_moved_stops_with_a_message(tmp_path):
    """nbgrader only logs an error for a config file that fails and then grades with its
    defaults (wrong grades here); the course's config file stops it instead."""
    from grader.course import NBGRADER_CONFIG
    (tmp_path / "nbgrader_config.py").write_text(NBGRADER_CONFIG.format(
        grader=str(tmp_path / "moved"), timeout=8, memory_mb=1024))
    bin_dir = pathlib.Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(bin_dir / "nbgrader"), "autograde", STAGES["1"]], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "could not be loaded" in done.stderr and str(tmp_path / "moved") in done.stderr, done.stderr
