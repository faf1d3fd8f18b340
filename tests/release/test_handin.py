"""``make handin`` (python -m minitorch.course.handin): the zip holds exactly what is graded, and
a learner's slip at the command line gets a message, never a stray file."""

import pathlib
import re
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def handin(*args, cwd):
    return subprocess.run([sys.executable, "-m", "minitorch.course.handin", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60)


def test_help_prints_usage_and_writes_nothing(tmp_path):
    before = set(ROOT.iterdir())
    result = handin("--help", cwd=tmp_path)
    assert result.returncode == 0 and "usage: python -m minitorch.course.handin" in result.stdout
    assert list(tmp_path.iterdir()) == [] and set(ROOT.iterdir()) == before


def test_a_folder_gets_handin_zip_with_the_package_and_the_notebooks(tmp_path):
    result = handin(str(tmp_path), "--no-checks", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with zipfile.ZipFile(tmp_path / "handin.zip") as z:
        names = set(z.namelist())
    expected = {p.relative_to(ROOT).as_posix() for p in (ROOT / "notebooks").glob("*.ipynb")}
    expected |= {p.relative_to(ROOT).as_posix() for p in (ROOT / "minitorch").rglob("*.py")}
    assert expected <= names and all(n.startswith(("minitorch/", "notebooks/")) for n in names)
    assert not any("__pycache__" in n or ".ipynb_checkpoints" in n for n in names)


def test_a_name_that_is_not_a_zip_or_a_missing_folder_is_refused_by_name(tmp_path):
    result = handin("mywork.txt", cwd=tmp_path)
    assert result.returncode == 2 and "mywork.txt" in result.stderr and ".zip" in result.stderr
    result = handin(str(tmp_path / "nowhere" / "h.zip"), cwd=tmp_path)
    assert result.returncode == 2 and "nowhere" in result.stderr and "no such folder" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_labs_checkpoints_and_caches_stay_out(tmp_path):
    """JupyterLab keeps a copy of each file saved from it in .ipynb_checkpoints/ beside the
    file (minitorch/.ipynb_checkpoints/numerical-checkpoint.py): not part of the hand-in."""
    import shutil
    course = tmp_path / "course"
    shutil.copytree(ROOT / "minitorch", course / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "notebooks", course / "notebooks")
    for folder, name in (("minitorch", "numerical-checkpoint.py"), ("notebooks", "01_chain_rule-checkpoint.ipynb"),
                         ("minitorch/data", "digits-checkpoint.csv")):
        (course / folder / ".ipynb_checkpoints").mkdir(parents=True, exist_ok=True)
        (course / folder / ".ipynb_checkpoints" / name).write_text("{}")
    (course / "minitorch" / "__pycache__").mkdir()
    (course / "minitorch" / "__pycache__" / "stale.py").write_text("")
    result = subprocess.run([sys.executable, "-m", "minitorch.course.handin", "--no-checks"], cwd=course, capture_output=True,
                            text=True, timeout=60, env={**__import__("os").environ, "PYTHONPATH": str(course)})
    assert result.returncode == 0, result.stderr
    with zipfile.ZipFile(course / "handin.zip") as z:
        names = set(z.namelist())
    assert "minitorch/numerical.py" in names and "notebooks/01_chain_rule.ipynb" in names
    assert not [n for n in names if "checkpoint" in n or "__pycache__" in n], names


def test_a_visible_check_that_still_fails_is_listed_and_the_zip_is_written_anyway(tmp_path):
    """The reference package with a planted unbroadcast bug (Task 2.2): the hand-in names
    2.2 (and 2.3, which waits on it) as failing, no task that passes, and writes the zip."""
    import os
    import shutil
    course = tmp_path / "course"
    shutil.copytree(ROOT / "solutions" / "minitorch", course / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    (course / "notebooks").mkdir()
    for name in ("01_chain_rule.ipynb", "02_broadcasting.ipynb"):
        shutil.copy(ROOT / "notebooks" / name, course / "notebooks" / name)
    shapes = course / "minitorch" / "shapes.py"
    keepdims = "axis=(*range(extra), *stretched), keepdims=True).reshape(shape)"
    assert shapes.read_text().count(keepdims) == 1
    shapes.write_text(shapes.read_text().replace(keepdims, "axis=(*range(extra), *stretched))"))
    env = {**os.environ, "PYTHONPATH": str(course)}
    result = subprocess.run([sys.executable, "-m", "minitorch.course.handin"], cwd=course, capture_output=True, text=True,
                            timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    listed = [line.split()[0] for line in result.stdout.splitlines() if re.match(r"\d+\.\d+ ", line)]
    assert listed == ["2.2", "2.3"], result.stdout
    assert "2 visible checks still fail (tasks 2.2, 2.3)" in result.stdout and "keepdims" in result.stdout
    assert result.stdout.index("wrote ") < result.stdout.index("2.2")  # the zip first, then the checks
    with zipfile.ZipFile(course / "handin.zip") as z:
        assert z.read("minitorch/shapes.py").decode() == shapes.read_text()
    shapes.write_text(shapes.read_text().replace("axis=(*range(extra), *stretched))", keepdims))
    result = subprocess.run([sys.executable, "-m", "minitorch.course.handin", "--no-checks"], cwd=course, capture_output=True,
                            text=True, timeout=120, env=env)
    assert result.returncode == 0 and "visible check" not in result.stdout, result.stdout
