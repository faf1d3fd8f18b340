"""Every saved edit reaches a running kernel (``%load_ext minitorch.course.notebook``), however
the edited code is reached: through a re-export, a ``from ..x import f`` in a subpackage, a
method of an object made before the edit; tracebacks point at the edited file's lines;
where an edit cannot be brought in place, the cell says which cell to run again.

Each test runs a real kernel on a copy of the reference package, edits a file between
cells (as a learner saving in Lab) and reads the next cell's output."""

import os
import pathlib
import re
import shutil
import time

import pytest
from jupyter_client.manager import start_new_kernel

from grader.release.regions import stub

pytestmark = pytest.mark.slow  # kernels: run by `make test`, not `make test-fast`

ROOT = pathlib.Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Kernel:
    """A kernel whose cells run one at a time; ``run`` returns what a cell showed, as text."""

    def __init__(self, course: pathlib.Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(course), MPLBACKEND="agg")
        self.manager, self.client = start_new_kernel(kernel_name="python3", cwd=str(course), env=env)

    def run(self, code: str) -> str:
        sent = self.client.execute(code)
        shown = []
        while True:
            message = self.client.get_iopub_msg(timeout=60)
            if message["parent_header"].get("msg_id") != sent:
                continue
            kind, content = message["msg_type"], message["content"]
            if kind == "stream":
                shown.append(content["text"])
            elif kind == "error":
                shown.append("\n".join(content["traceback"]))
            elif kind in ("execute_result", "display_data"):
                shown.append(content["data"].get("text/plain", ""))
            elif kind == "status" and content["execution_state"] == "idle":
                return ANSI.sub("", "".join(shown))

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@pytest.fixture
def course(tmp_path):
    shutil.copytree(ROOT / "solutions" / "minitorch", tmp_path / "minitorch",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


@pytest.fixture
def kernel(course):
    started = Kernel(course)
    assert started.run("%load_ext minitorch.course.notebook\nimport numpy as np\nimport minitorch as mt\n"
                       "from minitorch import nn, language") == ""
    yield started
    started.close()


def edit(path: pathlib.Path, old: str, new: str) -> str:
    text = path.read_text()
    assert old in text, f"{old!r} is not in {path.name}"
    time.sleep(0.05)  # a new modification time, even on a coarse clock
    path.write_text(text.replace(old, new, 1))
    return path.read_text()


def test_a_fix_to_sample_next_reaches_gpt_generate_through_its_from_import(course):
    """The learner's case: ``language.sample_next`` and ``nn/transformer.py`` filled in
    together over their stubs, then ``sample_next`` fixed; ``GPT.generate`` calls it
    through ``from ..language import sample_next``, and runs each saved version."""
    language, transformer = course / "minitorch" / "language.py", course / "minitorch" / "nn" / "transformer.py"
    filled = {path: path.read_text() for path in (language, transformer)}
    for path in filled:
        path.write_text(stub(filled[path], path.name))
    kernel = Kernel(course)
    try:
        kernel.run("%load_ext minitorch.course.notebook\nimport numpy as np\nimport minitorch as mt\nfrom minitorch import nn")
        time.sleep(0.05)
        transformer.write_text(filled[transformer])
        language.write_text(filled[language].replace("chosen = logits.argmax(axis=-1)", "chosen = np.full(len(logits), 3)"))
        kernel.run("mt.manual_seed(0)\nmodel = nn.GPT(5, 4, 8, 2, 1)\nstart = np.zeros((1, 1), dtype=np.int64)")
        assert kernel.run("print(model.generate(start, 2, temperature=0).tolist())").strip() == "[[0, 3, 3]]"
        edit(language, "np.full(len(logits), 3)", "np.full(len(logits), 4)")
        assert kernel.run("print(model.generate(start, 2, temperature=0).tolist())").strip() == "[[0, 4, 4]]"
        assert kernel.run("import minitorch.nn.transformer as T\n"
                          "print(T.sample_next is mt.language.sample_next)").strip() == "True"
    finally:
        kernel.close()


def test_an_edit_reaches_every_name_a_function_was_imported_under(kernel, course):
    """``central_difference`` is re-exported by the package's ``__init__`` and imported by
    name into the notebook before the edit: every one of those names runs the new code."""
    kernel.run("from minitorch import central_difference\nkept = mt.central_difference")
    edit(course / "minitorch" / "numerical.py", "    return (f(*up) - f(*down)) / (2.0 * eps)",
         "    return 42.0")
    shown = kernel.run("print(central_difference(abs, 1.0), kept(abs, 1.0), mt.central_difference(abs, 1.0),"
                       " mt.numerical.central_difference(abs, 1.0))")
    assert shown.split() == ["42.0"] * 4, shown


def test_a_new_function_and_a_new_file_arrive_without_a_restart(kernel, course):
    """The learner's README says so: a helper added to a file, and a new file imported by an
    edited one, both reach the running kernel at the next cell."""
    package = course / "minitorch"
    (package / "helpers_of_mine.py").write_text("def twice(x):\n    return 2 * x\n")
    edit(package / "numerical.py", "    return (f(*up) - f(*down)) / (2.0 * eps)",
         "    return (f(*up) - f(*down)) / (2.0 * eps)\n\n\ndef brand_new():\n    from .helpers_of_mine import twice\n"
         "    return twice(21)")
    shown = kernel.run("print(mt.numerical.brand_new())")
    assert shown.strip() == "42", shown


def test_a_method_and_a_constant_change_for_objects_made_before_the_edit(kernel, course):
    """A Linear made before an edit of ``Linear.forward`` runs the new forward and is
    still a ``nn.Linear``; a dict re-exported by ``nn/__init__`` is the new one."""
    modules = course / "minitorch" / "nn" / "modules.py"
    kernel.run("layer = nn.Linear(2, 3)")
    edit(modules, "        out = x @ self.weight.T\n", "        out = x @ self.weight.T * 0 + 7\n")
    edit(modules, 'ACTIVATIONS = {"relu": ops_unary.relu,', 'ACTIVATIONS = {"twice": lambda x: 2 * x, "relu": ops_unary.relu,')
    shown = kernel.run("print((layer(mt.Tensor([[1.0, 2.0]])) - layer.bias).data.tolist(), isinstance(layer, nn.Linear),"
                       " type(nn.Linear(2, 3)) is type(layer), 'twice' in nn.ACTIVATIONS, 'twice' in mt.nn.ACTIVATIONS)")
    assert shown.strip() == "[[7.0, 7.0, 7.0]] True True True True", shown


def test_a_traceback_points_at_the_lines_of_the_saved_file(kernel, course):
    """Lines added above a function move it down: the traceback names the line where the
    error is in the saved file, for the edited function and for one left as it was."""
    numerical = course / "minitorch" / "numerical.py"
    text = edit(numerical, "from typing import Callable\n", "from typing import Callable\n\n# a note\n# another\n")
    text = edit(numerical, "    if not 0 <= arg < len(values):",
                "    raise RuntimeError('edited here')\n    if not 0 <= arg < len(values):")
    line = text.splitlines().index("    raise RuntimeError('edited here')") + 1
    shown = kernel.run("mt.central_difference(abs, 1.0)")
    assert f"numerical.py:{line}" in shown and "raise RuntimeError('edited here')" in shown, shown
    scalar = course / "minitorch" / "scalar.py"  # Scalar.__pow__ refuses a Scalar exponent
    before = kernel.run("mt.Scalar(1.0) ** mt.Scalar(2.0)")
    edit(scalar, "from __future__ import annotations\n", "from __future__ import annotations\n# 1\n# 2\n# 3\n")
    shown = kernel.run("mt.Scalar(1.0) ** mt.Scalar(2.0)")
    lines = [int(n) for n in re.findall(r"scalar\.py:(\d+)", before)]
    assert lines and "TypeError" in before, before
    assert [int(n) for n in re.findall(r"scalar\.py:(\d+)", shown)] == [n + 3 for n in lines], shown


def test_a_class_that_cannot_be_updated_in_place_names_the_cells_to_run_again(kernel, course):
    """New base classes cannot be given to objects that exist: the next cell says so and
    names the variable holding one and the cell that made it."""
    kernel.run("x = 1")
    kernel.run("layer = nn.Linear(2, 3)")  # cell [3] (the first cell is [1])
    edit(course / "minitorch" / "nn" / "modules.py", "class Linear(Module):", "class Linear(Module, object):")
    shown = kernel.run("print('ran')")
    assert "the class Linear was replaced, not updated (its base classes changed)" in shown, shown
    assert "layer (cell [3])" in shown and "Run the cells that make them again" in shown, shown
    assert shown.strip().endswith("ran"), shown
    assert kernel.run("print(isinstance(nn.Linear(2, 3), nn.Linear), nn.Linear is nn.modules.Linear)").split() == \
        ["True", "True"]


def test_an_error_at_a_files_top_level_stops_each_cell_until_the_fix_is_saved(kernel, course):
    """The package keeps the version that loaded: no half-run module, no stale cell run."""
    numerical = course / "minitorch" / "numerical.py"
    text = edit(numerical, "from typing import Callable\n", "from typing import Callable\nundefined_name\n")
    line = text.splitlines().index("undefined_name") + 1
    for _ in range(2):
        shown = kernel.run("print('ran')")
        assert shown.startswith(f"minitorch/numerical.py, line {line}: NameError: name 'undefined_name' is not defined"), shown
        assert "ran" not in shown and "Traceback" not in shown, shown
    edit(numerical, "undefined_name\n", "")
    assert kernel.run("print('ran', round(mt.central_difference(lambda x: x * x, 3.0), 6))").strip() == "ran 6.0"
