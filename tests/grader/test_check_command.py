"""``python -m grader check`` as a learner uses it: on a .zip of the whole working folder
(with its .venv, caches and checkpoints) it grades exactly what the clean hand-in zip
grades, says what it ignored, shows progress and a table, and writes a feedback page."""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from grader.tasks import PARTS, TOTAL

pytestmark = pytest.mark.slow  # run by `make test`, not `make test-fast`

ROOT = pathlib.Path(__file__).resolve().parents[2]


def zip_folder(folder: pathlib.Path, target: pathlib.Path) -> pathlib.Path:
    with zipfile.ZipFile(target, "w") as z:
        for path in sorted(folder.rglob("*")):
            z.write(path, pathlib.Path(folder.name) / path.relative_to(folder))
    return target


def check(path: pathlib.Path, out: pathlib.Path) -> str:
    done = subprocess.run([sys.executable, "-m", "grader", "check", str(path), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_whole_folder_grades_as_the_clean_hand_in(tmp_path):
    work = tmp_path / "minitorch-course"
    shutil.copytree(ROOT / "solutions" / "minitorch", work / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "notebooks", work / "notebooks")
    ops = work / "minitorch" / "ops_binary.py"
    ops.write_text(ops.read_text().replace("return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)",
                                           "return grad * b, grad * a"))
    clean = zip_folder(work, tmp_path / "handin.zip")
    for junk in [".venv/lib/python3.11/site-packages/minitorch", "minitorch/__pycache__", "notebooks/.ipynb_checkpoints",
                 "build/minitorch", ".git"]:
        (work / junk).mkdir(parents=True)
    (work / ".venv/lib/python3.11/site-packages/minitorch/__init__.py").write_text("raise SystemExit('wrong one')")
    (work / "build/minitorch/__init__.py").write_text("raise SystemExit('wrong one')")
    (work / "minitorch/__pycache__/ops_binary.cpython-311.pyc").write_bytes(b"\0" * 100)
    whole = zip_folder(work, tmp_path / "whole.zip")
    first, second = check(clean, tmp_path / "out1"), check(whole, tmp_path / "out2")
    table = lambda text: text[text.index("Grades for"):text.index("Feedback:")]  # noqa: E731
    assert "ignored" in table(second) and ".venv/" in table(second)
    assert [line for line in table(first).splitlines() if "Task" in line or "Total" in line] == \
        [line for line in table(second).splitlines() if "Task" in line or "Total" in line]
    assert "stage 6 (06_training) ..." in first
    assert re.search(r"Task 2\.3 +5 / 6 ", first) and "still needs a sum over axes" in " ".join(first.split())
    assert (tmp_path / "out1" / "feedback.html").is_file()


def test_the_grader_runs_from_any_folder(tmp_path):
    """An instructor grades from the class's own folder: the grader is installed with the
    course's environment, and its default output lands in the folder it runs from."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", "grader", "check", str(ROOT / "solutions")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"Total: {TOTAL:g} / {TOTAL:g}" in done.stdout and (tmp_path / "grader-output" / "feedback.html").is_file()


def test_check_with_no_path_grades_this_folder_or_says_how_to_name_one(tmp_path):
    """An instructor's own folder is not the course repository: `check` grades the folder it
    runs in when that holds minitorch/, and otherwise grades nothing and says what to name."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    empty = tmp_path / "instructor"
    empty.mkdir()
    done = subprocess.run([sys.executable, "-m", "grader", "check"], cwd=empty, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 2 and "Grading" not in done.stdout, done.stdout
    assert f"{empty} holds no minitorch/ folder to grade" in done.stderr
    assert "python -m grader check PATH" in done.stderr and str(ROOT / "solutions") in done.stderr
    learner = tmp_path / "learner"
    shutil.copytree(ROOT / "minitorch", learner / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, "-m", "grader", "check"], cwd=learner, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"Grading {learner} ..." in done.stdout and f"Total: 0 / {TOTAL:g}" in done.stdout  # the blank release


def test_the_references_hand_in_zip_grades_at_full_marks(tmp_path):
    """`python -m grader handin --reference` (docs/PLATFORMS.md: the zip to try a platform
    with) holds what `make handin` puts in a zip, and `check` gives it every point."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", "grader", "handin", "--reference", "--out", "try/handin.zip"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    made = tmp_path / "try" / "handin.zip"
    names = zipfile.ZipFile(made).namelist()
    package = sorted(p.relative_to(ROOT / "solutions").as_posix() for p in (ROOT / "solutions" / "minitorch").rglob("*")
                     if p.is_file() and "__pycache__" not in p.parts and (p.suffix == ".py" or "data" in p.parts))
    assert sorted(n for n in names if n.startswith("minitorch/")) == package
    assert sorted(n for n in names if n.startswith("notebooks/")) == \
        sorted(f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert f"Total: {TOTAL:g} / {TOTAL:g}" in check(made, tmp_path / "out")
    done = subprocess.run([sys.executable, "-m", "grader", "handin"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 2 and "holds no minitorch/ folder to zip" in done.stderr and "--reference" in done.stderr


def test_a_package_that_does_not_import_is_told_once_on_the_feedback_page(tmp_path):
    """A syntax error fails every part the same way: the page says the error once, at the top,
    and each part only points at it (a fresh learner once read the same error about 60 times)."""
    work = tmp_path / "course"
    shutil.copytree(ROOT / "solutions" / "minitorch", work / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    ops = work / "minitorch" / "ops_unary.py"
    ops.write_text(ops.read_text() + "\ndef broken(x:\n    return x\n")
    check(zip_folder(work, tmp_path / "handin.zip"), tmp_path / "out")
    page = (tmp_path / "out" / "feedback.html").read_text()
    assert page.count("SyntaxError") == 1 and "ops_unary.py" in page, page[:3000]
    assert page.count("the error is at the top of this page") == sum(len(parts) for parts in PARTS.values())
