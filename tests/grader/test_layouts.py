"""Where a class's work comes from: an nbgrader course's ``submitted/`` holds each stage in
its own folder, with the package the learner submitted beside that stage's notebook; each
stage is graded with its own package. Notebooks saved under another name are found by
their graded cells. The submissions and the output may not overlap."""

import csv
import pathlib
import shutil
import subprocess
import sys

from grader.submission import locate
from grader.tasks import POINTS, STAGES, TASKS

ROOT = pathlib.Path(__file__).resolve().parents[2]
MEAN_BUG = ("ops_reduce.py", "return np.broadcast_to(_with_reduced_axes(grad, ctx) / count, ctx.shape)",
            "return np.broadcast_to(_with_reduced_axes(grad, ctx), ctx.shape)")
SYNTAX_BUG = ("ops_index.py", "class Cat(Function):", "class Cat(Function)")
TAMPERING = ("__init__.py", "\n__all__", "\nimport numpy as _np\n_np.allclose = lambda *a, **k: True\n__all__")


def package(target: pathlib.Path, patch=None) -> None:
    shutil.copytree(ROOT / "solutions" / "minitorch", target, ignore=shutil.ignore_patterns("__pycache__"))
    if patch:
        file, old, new = patch
        text = (target / file).read_text()
        assert text.count(old) == 1
        (target / file).write_text(text.replace(old, new))


def nbgrader_submitted(folder: pathlib.Path) -> None:
    """One learner, as nbgrader's exchange collects: stage 2 was submitted with a package
    that does not compile, stage 3 with a bug in Mean's backward, stage 6 with a correct
    package that tampers with NumPy when imported (which only the re-run of the hidden
    tests on stage 6's own package notices), and stage 5's notebook was saved as
    "Copy of 05_....ipynb"."""
    for stage, name in STAGES.items():
        work = folder / "learner1" / name
        work.mkdir(parents=True)
        (work / "timestamp.txt").write_text("2026-11-20 10:00:00.000000 UTC")
        notebook = f"Copy of {name}.ipynb" if stage == "5" else f"{name}.ipynb"
        shutil.copyfile(ROOT / "notebooks" / f"{name}.ipynb", work / notebook)
        package(work / "minitorch", {"2": SYNTAX_BUG, "3": MEAN_BUG, "6": TAMPERING}.get(stage))


def test_each_stage_is_found_with_its_own_package_and_renamed_notebooks(tmp_path):
    nbgrader_submitted(tmp_path)
    found = locate(tmp_path / "learner1", "learner1")
    for stage, name in STAGES.items():
        assert found.package_for(stage) == tmp_path / "learner1" / name / "minitorch"
    assert found.notebooks["5"].name == f"Copy of {STAGES['5']}.ipynb"
    assert found.broken_for("2") and "ops_index.py has a syntax error" in found.broken_for("2")
    assert not found.broken_for("1") and not found.broken_for("3")
    assert any("(stage 2)" in p for p in found.problems), found.problems
    assert any(f"Copy of {STAGES['5']}.ipynb holds its graded cells" in p for p in found.problems)


def test_a_repository_layout_uses_one_package_for_every_stage(tmp_path):
    package(tmp_path / "work" / "minitorch")
    shutil.copytree(ROOT / "notebooks", tmp_path / "work" / "notebooks")
    found = locate(tmp_path / "work", "me")
    assert {found.package_for(s) for s in STAGES} == {tmp_path / "work" / "minitorch"}
    assert not found.problems


def test_autograde_an_nbgrader_submitted_folder(tmp_path):
    submitted = tmp_path / "course" / "submitted"
    nbgrader_submitted(submitted)
    overlap = subprocess.run([sys.executable, "-m", "grader", "autograde", str(submitted), "--out",
                              str(submitted / "grades")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert overlap.returncode == 2 and "overlap" in overlap.stderr
    assert not (submitted / "grades").exists()

    done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(submitted), "--out",
                           str(tmp_path / "out"), "--timeout", "20"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    with (tmp_path / "out" / "grades.csv").open() as file:
        row = {r["learner"]: r for r in csv.DictReader(file)}["learner1"]
    lost = {t for t in TASKS if float(row[f"task{t}"]) < POINTS[t]}
    stage6 = {t for t in TASKS if t.startswith("6.")}
    assert lost == {t for t in TASKS if t.startswith("2.")} | {"3.2"} | stage6, row
    assert float(row["stage6"]) == len(stage6)  # the visible checks' points only
    assert float(row["stage5"]) == sum(POINTS[t] for t in TASKS if t.startswith("5."))
    assert "ops_index.py has a syntax error" in row["problems"] and "Copy of" in row["problems"]
