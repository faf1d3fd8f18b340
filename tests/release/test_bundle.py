"""The learner bundle: what it holds, what it must not, and that it installs into a fresh
virtual environment and opens (notebook 01 runs, stopping only at the stubs)."""

import pathlib
import subprocess
import sys
import zipfile

import pytest

from grader import bundle
from test_release import solution_lines

ROOT = pathlib.Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # run by `make test`, not `make test-fast`


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    base = tmp_path_factory.mktemp("bundle")
    archive = bundle.build(base / "minitorch-course.zip")
    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        z.extractall(base)
    return base / "minitorch-course", names


def test_bundle_holds_the_release_and_nothing_secret(unpacked):
    folder, names = unpacked
    tops = {name.split("/")[1] for name in names}
    assert tops == {"notebooks", "minitorch", "environment.yml", "requirements.lock", "pyproject.toml",
                    "README.md", "Makefile", "etc"}
    assert "etc/jupyterlab-overrides.json" in (folder / "Makefile").read_text()
    assert (folder / "etc" / "jupyterlab-overrides.json").exists()
    assert len([n for n in names if n.endswith(".ipynb")]) == 6
    secret = solution_lines()
    for path in folder.rglob("*"):
        if path.suffix in (".py", ".ipynb", ".md"):
            text = path.read_text()
            assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text, path
            assert "from grader" not in text and "import grader" not in text, path
            assert not [line for line in secret if line in text], path


RUN_NOTEBOOK = """
import re, sys, nbformat, minitorch
from nbclient import NotebookClient

assert minitorch.__file__.startswith(sys.argv[1]), minitorch.__file__
nb = nbformat.read(sys.argv[1] + "/notebooks/01_chain_rule.ipynb", as_version=4)
NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
               resources={"metadata": {"path": sys.argv[1] + "/notebooks"}}).execute()
errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
assert errors and all(o.ename == "NotImplementedError" and re.match(r"Task 1\\.\\d: ", o.evalue) for o in errors), errors
print("opened", len(nb.cells), "cells,", len(errors), "stub errors")
"""


def test_bundle_installs_into_a_fresh_environment_and_opens(unpacked, tmp_path):
    folder, _ = unpacked
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    for args in (["-r", "requirements.lock"], ["--no-deps", "--no-build-isolation", "-e", "."]):
        done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *args],
                              cwd=folder, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-2000:]
    result = subprocess.run([str(python), "-c", RUN_NOTEBOOK, str(folder.resolve())], cwd=tmp_path,
                            capture_output=True, text=True, timeout=600,
                            env={"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)})
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "stub errors" in result.stdout
