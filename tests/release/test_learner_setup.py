"""What the set-up promises a learner (README.md, docs/LEARNER.md): ``import minitorch``
from notebooks/ finds the learner's package, and edits to it reach a running kernel
(autoreload)."""

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


def run_cells(steps: list, pythonpath: pathlib.Path, cwd: pathlib.Path) -> list:
    """Run code cells one by one in one kernel; a callable among ``steps`` runs here, in the
    test, between cells (as a learner saving a file in the editor)."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(s) for s in steps if isinstance(s, str)]
    env_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(pythonpath)
    client = NotebookClient(notebook, timeout=60, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(cwd)}})
    try:
        with client.setup_kernel():
            index = 0
            for step in steps:
                if callable(step):
                    step()
                else:
                    client.execute_cell(notebook.cells[index], index)
                    index += 1
    finally:
        if env_path is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = env_path
    return notebook.cells


def test_a_syntax_error_in_a_package_file_shows_one_short_message_naming_the_file_and_line(tmp_path):
    """The notebooks' first cell (``%load_ext minitorch.course.notebook``): a cell run while a
    package file does not compile stops with one line naming the file and the line (no
    autoreload traceback, no stale NotImplementedError); once the file is fixed and saved,
    the next cell sees the fix."""
    import shutil
    import time
    shutil.copytree(ROOT / "minitorch", tmp_path / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    numerical = tmp_path / "minitorch" / "numerical.py"
    stub = '    raise NotImplementedError("Task 1.1: central_difference")'
    value_mistake = "    return (f(values[0] + eps) - f(values[0] - eps) / (2 * eps)"
    broken = numerical.read_text().replace(stub, value_mistake)
    line = broken.splitlines().index(value_mistake) + 1
    fixed = numerical.read_text().replace(stub, "    return (f(values[0] + eps) - f(values[0] - eps)) / (2 * eps)")

    def save(text):
        def step():
            time.sleep(1.1)  # a new modification time
            numerical.write_text(text)
        return step

    first = next(c for c in nbformat.read(ROOT / "notebooks" / "01_chain_rule.ipynb", as_version=4).cells
                 if c.cell_type == "code").source
    cells = run_cells([first, save(broken), "mt.central_difference(lambda x: x * x, 3.0)",
                       "print('a cell without the package is stopped too')", save(fixed),
                       "print(round(mt.central_difference(lambda x: x * x, 3.0), 6))"], tmp_path, tmp_path)
    assert not cells[0].outputs, cells[0].outputs
    for cell in cells[1:3]:
        assert [o.output_type for o in cell.outputs] == ["error"], cell.outputs  # nothing on stderr besides
        text = "\n".join(cell.outputs[0].traceback)
        assert text.startswith(f"minitorch/numerical.py, line {line}: SyntaxError: '(' was never closed"), text
        assert "f(values[0] - eps) / (2 * eps)" in text and "save the file" in text and len(text.splitlines()) == 3
        assert "Traceback" not in text and "NotImplementedError" not in text
    assert [o.get("text", "").strip() for o in cells[3].outputs] == ["6.0"], cells[3].outputs
