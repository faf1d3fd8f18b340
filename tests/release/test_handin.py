"""``make handin`` (python minitorch/course/handin.py): the zip holds exactly what is graded, it
is written whatever the package does, and a learner's mistake at the command line gets a
message, never a stray file."""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def handin(*args, cwd, course=ROOT, timeout=60):
    """The hand-in as `make handin` runs it: the file by its path, never through the package."""
    env = {**os.environ, "PYTHONPATH": str(course)}
    return subprocess.run([sys.executable, str(course / "minitorch" / "course" / "handin.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=env)


def reference_course(tmp_path, notebooks=("01_chain_rule.ipynb", "02_broadcasting.ipynb")):
    """A course folder holding the reference package and a few released notebooks."""
    course = tmp_path / "course"
    shutil.copytree(ROOT / "solutions" / "minitorch", course / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    (course / "notebooks").mkdir()
    for name in notebooks:
        shutil.copy(ROOT / "notebooks" / name, course / "notebooks" / name)
    return course


def test_help_prints_usage_and_writes_nothing(tmp_path):
    before = set(ROOT.iterdir())
    result = handin("--help", cwd=tmp_path)
    assert result.returncode == 0 and "usage: python minitorch/course/handin.py" in result.stdout
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


BREAKS = {
    "a syntax error": ("def broken(x:\n    return x\n", "SyntaxError", "minitorch/ops_unary.py, line"),
    "an import that fails": ("import no_such_module_here\n", "ModuleNotFoundError", "minitorch/ops_unary.py, line"),
    "a crash at import": ("raise RuntimeError('half-written module')\n", "RuntimeError: half-written module",
                          "minitorch/ops_unary.py, line"),
}


@pytest.mark.parametrize("name, checks", [
    pytest.param(name, checks, id=f"{name}-{'checks' if checks else 'no-checks'}",
                 marks=() if (name, checks) == ("a syntax error", True) else pytest.mark.slow)
    for name in BREAKS for checks in (True, False)])
def test_a_package_that_does_not_import_still_gets_its_zip_and_the_error_once(tmp_path, name, checks):
    """A fresh learner's syntax error once crashed `make handin` before it wrote anything: the
    zip is written first, and the import error is said once, with its file and line."""
    course = reference_course(tmp_path)
    broken_line, error, where = BREAKS[name]
    module = course / "minitorch" / "ops_unary.py"
    module.write_text(module.read_text() + "\n" + broken_line)
    result = handin(*([] if checks else ["--no-checks"]), cwd=course, course=course)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    with zipfile.ZipFile(course / "handin.zip") as z:
        assert z.read("minitorch/ops_unary.py").decode() == module.read_text()
    assert result.stdout.count("does not import") == 1 and error in result.stdout and where in result.stdout, result.stdout
    said = next(line for line in result.stdout.splitlines() if "does not import" in line)
    assert str(course) not in said  # the path inside the course folder, as the learner sees it
    assert not re.search(r"^\d+\.\d+ ", result.stdout, re.MULTILINE)  # no row per task, each saying the same


@pytest.mark.slow
def test_a_check_that_kills_its_process_or_a_broken_notebook_never_stops_the_hand_in(tmp_path):
    """A learner's rule that ends the Python process in a check (os._exit): that task is
    listed as failing; a notebook file that is not JSON: the checks stop with a message. The
    zip is written in both."""
    course = reference_course(tmp_path)
    shapes = course / "minitorch" / "shapes.py"
    text = shapes.read_text()
    body = "def unbroadcast(grad: np.ndarray, shape: Sequence[int]) -> np.ndarray:\n"
    assert text.count(body) == 1
    shapes.write_text(text.replace(body, body + "    import os; os._exit(7)\n"))
    result = handin(cwd=course, course=course, timeout=180)
    assert result.returncode == 0 and (course / "handin.zip").is_file(), result.stderr
    assert re.search(r"^2\.2 .*did not finish", result.stdout, re.MULTILINE), result.stdout
    (course / "notebooks" / "02_broadcasting.ipynb").write_text("{ not json")
    (course / "handin.zip").unlink()
    result = handin(cwd=course, course=course, timeout=180)
    assert result.returncode == 0 and (course / "handin.zip").is_file(), result.stderr
    assert "The visible checks stopped: JSONDecodeError" in result.stdout and "zip is written" in result.stdout


def test_a_second_hand_in_keeps_the_previous_zip_numbered_and_says_so(tmp_path):
    """A second `make handin` once overwrote the first zip without a word: a previous
    handin.zip that differs is kept as handin-1.zip (then -2, one past the highest), the
    newest is always handin.zip, and one that is the same is simply replaced."""
    course = reference_course(tmp_path, notebooks=())
    first = handin("--no-checks", cwd=course, course=course)
    assert first.returncode == 0 and "previous" not in first.stdout, first.stdout + first.stderr
    module = course / "minitorch" / "ops_unary.py"
    module.write_text(module.read_text() + "\n# a later edit\n")
    (course / "handin-4.zip").write_bytes((course / "handin.zip").read_bytes())  # an older one, kept by hand
    second = handin("--no-checks", cwd=course, course=course)
    assert second.returncode == 0 and "Your previous handin.zip is kept as handin-5.zip" in second.stdout, second.stdout
    with zipfile.ZipFile(course / "handin-5.zip") as old, zipfile.ZipFile(course / "handin.zip") as new:
        assert "a later edit" not in old.read("minitorch/ops_unary.py").decode()
        assert "a later edit" in new.read("minitorch/ops_unary.py").decode()
        assert not [n for n in new.namelist() if n.endswith(".zip")]
    third = handin("--no-checks", cwd=course, course=course)  # nothing changed since
    assert "same as your previous handin.zip" in third.stdout and not (course / "handin-6.zip").exists(), third.stdout
    assert sorted(p.name for p in course.iterdir() if p.suffix == ".zip") == ["handin-4.zip", "handin-5.zip", "handin.zip"]
