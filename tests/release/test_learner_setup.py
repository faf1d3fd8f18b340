"""What the README's set-up promises a learner: ``import minitorch`` from notebooks/ finds
the learner's package, and edits to it reach a running kernel (autoreload)."""

import os
import pathlib
import subprocess
import sys
import textwrap

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # run by `make test`, not `make test-fast`

ROOT = pathlib.Path(__file__).resolve().parents[2]


def clean_env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def test_import_from_the_notebooks_folder_finds_the_learners_package():
    result = subprocess.run([sys.executable, "-c", "import minitorch; print(minitorch.__file__)"],
                            cwd=ROOT / "notebooks", env=clean_env(), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert pathlib.Path(result.stdout.strip()).resolve() == ROOT / "minitorch" / "__init__.py"


def test_edits_reach_a_running_kernel(tmp_path):
    package = tmp_path / "pkg_under_edit"
    package.mkdir()
    (package / "__init__.py").write_text("from .numbers import answer\n")
    (package / "numbers.py").write_text("def answer():\n    return 1\n")
    notebook = nbformat.v4.new_notebook()
    first = nbformat.v4.new_code_cell("%load_ext autoreload\n%autoreload 2\nimport pkg_under_edit\nbefore = pkg_under_edit.answer()")
    edit = nbformat.v4.new_code_cell(textwrap.dedent(f"""
        import pathlib, time
        time.sleep(1.1)  # a new modification time
        pathlib.Path({str(package / "numbers.py")!r}).write_text("def answer():\\n    return 2\\n")
    """))
    after = nbformat.v4.new_code_cell("print(before, pkg_under_edit.answer())")
    notebook.cells = [first, edit, after]
    env_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(tmp_path)
    try:
        NotebookClient(notebook, timeout=60, kernel_name="python3",
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
    finally:
        if env_path is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = env_path
    assert notebook.cells[2].outputs[0]["text"].strip() == "1 2"
