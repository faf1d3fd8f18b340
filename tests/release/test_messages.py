"""Every wrong answer names its pattern: one diagnosis (solutions/minitorch/course/diagnose.py,
whose grader copy the release generates: tests/release/test_release.py), the visible checks' messages for deliberate
mistakes (tests/release/mistakes.py), a failed check in a real kernel (its message first,
no traceback through the checks' machinery, heat maps after it) and the hints."""

import pathlib
import re
import shutil
import sys
import tomllib

import nbformat
import numpy as np
import pytest

from grader.tasks import STAGES
from minitorch.course import diagnose, failures, heatmaps, hints  # the release's copies: given code, no regions

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions" / "minitorch"

sys.path.insert(0, str(pathlib.Path(__file__).parent))
sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "grader"))
from mistakes import MISTAKES
from variants_known import named_in_notebook

from tests.messages_log import note_message

RNG = np.random.default_rng(3)
E = RNG.uniform(0.5, 2.0, (3, 4)) * np.where(RNG.random((3, 4)) < 0.5, -1, 1)
X = np.array([[1.0, -2.0, 3.0, -0.5], [2.0, 0.7, -1.0, 4.0], [-3.0, 1.5, 2.5, -0.2]])


@pytest.mark.parametrize("got, expected, known, mistake, words", [
    (-E, E, {}, "wrong sign", "wrong sign"),
    (2 * E, E, {}, "constant factor", "constant factor of 2"),
    (E / 3, E, {}, "constant factor", "constant factor of 0.3333"),
    (np.ascontiguousarray(E[:3, :3].T), E[:3, :3], {}, "transposed", "transpose"),
    (np.zeros_like(E), E, {}, "all zeros", "zero everywhere"),
    (np.where(X > 1, 0.0, E), E, {}, "zero where it should not be", "zero where it should not be"),
    (E + 1, E, {"swapped": E + 1}, "gradients swapped", "swapped"),
    (E, np.tril(E), {}, "nonzero where it should be zero", "nonzero where it should be 0"),
    (np.where(X > 0, E, 1.0), E, {"inputs": [X]}, "right only where inputs are positive", "only where the input is positive"),
    # relu's rule for abs (issue 45, learner 3): zero just where the input is negative
    (np.where(X > 0, E, 0.0), E, {"inputs": [X]}, "zero where the input is negative", "zero wherever the input is negative"),
    (np.where(X > 2, np.inf, E), E, {}, "overflow or nan", "NaN or inf"),
    (E + np.eye(3, 4) * 0.5, E, {}, "wrong values", ""),
])
def test_each_pattern_is_named(got, expected, known, mistake, words):
    found = diagnose.value_pattern(got, expected, **known)
    assert found.mistake == mistake and words in found.text, found
    worst = np.unravel_index(np.argmax(np.abs(np.nan_to_num(got - expected, posinf=1e300))), expected.shape)
    assert f"at index {tuple(int(i) for i in worst)}" in found.where


def test_a_yes_or_no_answer_bears_no_pattern():
    """[False, False] against [True, True] once read "It is zero everywhere"."""
    found = diagnose.value_pattern(np.array([False, False]), np.array([True, True]))
    assert found.mistake == "wrong values" and found.text == "" and "at index (0,)" in found.where


@pytest.mark.parametrize("got, expected, known, mistake, spoil", [
    (-E, E, {}, "wrong sign", (1, 2)), (2 * E, E, {}, "constant factor", (0, 0)),
    (np.ascontiguousarray(E[:3, :3].T), E[:3, :3], {}, "transposed", (2, 1)),
    (np.zeros_like(E), E, {}, "all zeros", (2, 3)), (np.where(X > 1, 0.0, E), E, {}, "zero where it should not be", (0, 1)),
    (E + 1, E, {"swapped": E + 1}, "gradients swapped", (1, 1)),
    (E, np.tril(E), {}, "nonzero where it should be zero", (1, 0)),
    (np.where(X > 0, E, 1.0), E, {"inputs": [X]}, "right only where inputs are positive", (0, 0)),
    (np.where(X > 0, E, 0.0), E, {"inputs": [X]}, "zero where the input is negative", (0, 0)),
])
def test_no_pattern_is_named_when_one_element_belies_it(got, expected, known, mistake, spoil):
    """The other direction: the same answer with one element off where the pattern says it
    is right (or off in the pattern's own way) is "wrong values", never the pattern."""
    spoilt = got.copy()
    spoilt[spoil] += 0.37
    assert diagnose.value_pattern(got, expected, **known).mistake == mistake
    assert diagnose.value_pattern(spoilt, expected, **known).mistake == "wrong values"


@pytest.mark.parametrize("got, expected, mistake", [
    ((2, 4, 3), (4, 1), "missing unbroadcast"), ((4,), (4, 1), "lost keepdims"), ((3, 2), (2, 3), "transposed"),
    ((5, 3, 2), (5, 2, 3), "transposed"), ((2, 4, 3), (3, 2, 4), "axes in the wrong order"),
    ((4, 1), (4, 3), "summed over the wrong axes"),
])
def test_each_shape_pattern_is_named(got, expected, mistake):
    assert diagnose.shape_pattern(got, expected).mistake == mistake


def test_the_not_summed_pattern_names_the_axes():
    assert "axes (0, 2)" in diagnose.shape_pattern((2, 4, 3), (4, 1)).text


# ---- deliberate mistakes against the visible checks -------------------------------------
def run_stage(patch, task: str, tmp_path: pathlib.Path, monkeypatch) -> dict:
    """The progress row of ``task``, its notebook's checks run against the patched reference."""
    from minitorch.course import progress
    package = tmp_path / "package" / "minitorch"
    shutil.copytree(SOLUTIONS, package, ignore=shutil.ignore_patterns("__pycache__"))
    for file, old, new in patch if isinstance(patch, list) else [patch]:   # a list: edits made together
        text = (package / file).read_text()
        assert text.count(old) == 1, f"the patch does not apply to {file}: {old!r}"
        (package / file).write_text(text.replace(old, new))
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    path = next((ROOT / "notebooks").glob(f"0{task[0]}_*.ipynb"))
    shutil.copy(path, notebooks / path.name)
    monkeypatch.setenv("PYTHONPATH", str(package.parent))
    return {row["task"]: row for row in progress.run(notebooks)}[task]


FAST = {"pow at 0.0 ** -1", "unbroadcast forgets the leading axes", "abs forgets the sign of x",
        "stack keeps the stacked axis", "matmul gradient transposed", "adam without the bias correction of m",
        "layer norm weight gradient not summed over the batch"}


@pytest.mark.parametrize("name, patch, task, words", [
    pytest.param(*m, marks=() if m[0] in FAST else pytest.mark.slow) for m in MISTAKES], ids=[m[0] for m in MISTAKES])
def test_a_deliberate_mistake_gets_a_message_naming_its_pattern(name, patch, task, words, tmp_path, monkeypatch):
    row = run_stage(patch, task, tmp_path, monkeypatch)
    note_message("notebook", name, task, row["why"])
    assert row["status"] == "failing", (name, row)
    missing = [w for w in words if w not in row["why"]]
    assert not missing, f"{name}: the message lacks {missing}:\n{row['why']}"
    named = set(re.findall(r"\(known mistake: ([^)]+)\)", row["why"]))  # named when made, and only then
    assert named == named_in_notebook(name), row["why"]
    assert "Traceback" not in row["why"] and "visible.py" not in row["why"]


def test_every_stage_has_four_or_more_mistakes():
    per_stage: dict[str, int] = {}
    for _, _, task, _ in MISTAKES:
        per_stage[task.split(".")[0]] = per_stage.get(task.split(".")[0], 0) + 1
    assert sorted(per_stage, key=int) == sorted(STAGES, key=int) and min(per_stage.values()) >= 4, per_stage


# ---- a failed check in a real kernel --------------------------------------------------------
def test_a_failed_check_shows_its_message_first_without_the_machinery_then_heat_maps(tmp_path):
    """In Jupyter, a wrong 2-D answer shows CheckFailed's message as the error's first
    line, no frame of visible.py, and after it a PNG of the heat maps at Lab's width; a
    learner's exception names the check's line, its case and the learner's own line."""
    from nbclient import NotebookClient
    package = tmp_path / "minitorch"
    shutil.copytree(SOLUTIONS, package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "mine.py").write_text("def shrink(a):\n    return a.reshape(5, 5)\n")
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import numpy as np\nfrom minitorch.course.visible import checking, same\n"
                                  "from minitorch import mine"),
        nbformat.v4.new_code_cell('with checking("2.2"):\n    g = np.arange(6.0).reshape(2, 3)\n'
                                  '    same(-g, g, "unbroadcast(g, (2, 3))", "a case")'),
        nbformat.v4.new_code_cell('with checking("3.1"):\n    for shape in [(2, 3), (3, 4)]:\n'
                                  '        same(mine.shrink(np.ones(shape)), np.ones(shape), "shrink")'),
    ])
    import os
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(tmp_path)
    try:
        NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
    finally:
        os.environ.pop("PYTHONPATH")
        if saved is not None:  # as it was: later tests in this worker run with it
            os.environ["PYTHONPATH"] = saved
    wrong, raised = notebook.cells[1].outputs, notebook.cells[2].outputs
    assert [o.output_type for o in wrong] == ["error", "display_data"], wrong
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in wrong[0].traceback]
    assert lines[0].startswith("CheckFailed: unbroadcast(g, (2, 3)) with a case: came back with wrong values. It has "
                               "the wrong sign"), lines
    assert not any("visible.py" in line or "Traceback" in line for line in lines), lines
    assert 'mt.hint("2.2")' in "\n".join(lines)
    picture = wrong[1].data
    assert "image/png" in picture and picture.get("metadata", {}) is not None
    text = "\n".join(re.sub(r"\x1b\[[0-9;]*m", "", line) for line in raised[0].traceback)
    assert raised[0].ename == "CheckFailed" and "raised ValueError: cannot reshape" in text, text
    assert "same(mine.shrink(np.ones(shape))" in text and "shape = (2, 3)" in text, text
    assert "minitorch/mine.py, line 2, in shrink: return a.reshape(5, 5)" in text, text
    # (Task 3.1's check: it runs no Task 2.2 code, so the failing 2.2 above does not make it say "Task 2.2 first")
    assert 'mt.hint("3.1")' in text and "Hint 1/" not in text and "failures.py" not in text  # no hint it did not ask for


def test_heat_maps_are_drawn_only_in_a_notebook():
    assert not heatmaps.in_notebook() and not heatmaps.show_after_cell(np.ones((2, 2)), np.zeros((2, 2)))
    png = heatmaps.png(np.ones((2, 3, 4)), np.full((2, 3, 4), np.nan), "a title")
    assert png.startswith(b"\x89PNG") and int.from_bytes(png[16:20], "big") == heatmaps.WIDTH_INCHES * heatmaps.DPI


def test_render_traceback_is_the_message():
    error = failures.CheckFailed("first line\n  second line")
    assert [re.sub(r"\x1b\[[0-9;]*m", "", s) for s in error._render_traceback_()] == [
        "CheckFailed: first line", "  second line"]


# ---- hints ---------------------------------------------------------------------------------
def solution_lines() -> list[str]:
    """Every line (whitespace normalised, 12 characters or more) between BEGIN and END SOLUTION."""
    found = []
    for path in SOLUTIONS.rglob("*.py"):
        inside = False
        for line in path.read_text().splitlines():
            if "### BEGIN SOLUTION" in line or "### END SOLUTION" in line:
                inside = "BEGIN" in line
                continue
            code = " ".join(line.split("#")[0].split())
            if inside and len(code) >= 12:
                found.append(code)
    return found


def test_every_task_has_three_hints_and_none_quotes_the_solution():
    manifest = tomllib.loads((ROOT / "grader" / "tasks.toml").read_text())
    assert set(hints.HINTS) == set(manifest["task"]), set(hints.HINTS) ^ set(manifest["task"])
    lines = solution_lines()
    assert len(lines) > 60
    for task, steps in hints.HINTS.items():
        assert len(steps) == 3 and all(len(step) > 40 for step in steps), task
        text = " ".join(" ".join(steps).split())
        quoted = [line for line in lines if line in text]
        assert not quoted, f"the hints of Task {task} quote the solution: {quoted}"


def test_hint_gives_the_next_step_each_call(capsys):
    hints._given.clear()
    hints.hint("2.2")
    hints.hint("2.2")
    hints.hint("2.2", 3)
    hints.hint("2.2")
    shown = capsys.readouterr().out
    assert [int(n) for n in re.findall(r"Hint (\d)/3 for Task 2.2", shown)] == [1, 2, 3, 3]
    with pytest.raises(ValueError, match="no task '9.9'"):
        hints.hint("9.9")


def test_the_notebooks_name_the_hints_near_each_task():
    for path in sorted((ROOT / "solutions" / "notebooks").glob("*.py")):
        text = path.read_text()
        for task in re.findall(r"^# ## Your task (\d+\.\d+)", text, re.MULTILINE):
            heading = text.index(f"# ## Your task {task}")
            assert f'mt.hint("{task}")' in text[heading:text.index("# %%", heading)], (path.name, task)


# ---- hints follow the diagnosis (item 6 of issue 45) ---------------------------------------
def test_a_checks_hint_is_shown_only_for_the_kind_of_failure_it_addresses():
    """Task 2.1's "a shape is a tuple" hint was shown for a tuple in the wrong order, a
    value's hint for an exception, and every unpredicted exception got its task's first
    hint (the idea, which addresses no error in particular)."""
    from minitorch.course import visible
    tuple_hint = {"type": "A shape is a tuple, as np.broadcast_shapes gives."}
    with pytest.raises(visible.CheckFailed) as in_the_wrong_order:
        visible.same((3, 2), (2, 3), "broadcast_shapes((3, 1), (2, 1))", hint=tuple_hint)
    with pytest.raises(visible.CheckFailed) as a_list:
        visible.same([2, 3], (2, 3), "broadcast_shapes((2, 1), (2, 3))", hint=tuple_hint)
    assert "a tuple" not in str(in_the_wrong_order.value) and "a tuple" in str(a_list.value)
    with pytest.raises(visible.CheckFailed) as raised:
        with visible.checking("2.2"):
            visible.same(ValueError("cannot reshape array of size 12 into shape (3,)"), np.ones(3), "unbroadcast(g, (3,))",
                         hint="Sum the leading axes away; sum the size-1 axes keeping them (keepdims=True).")
    text = str(raised.value)
    assert "raised ValueError" in text and "Sum the leading axes" not in text and "Hint 1/3" not in text, text
    assert 'mt.hint("2.2")' in text  # the hints stay a call away
    with pytest.raises(visible.CheckFailed) as addressed:
        visible.same(ValueError("probabilities contain NaN"), np.ones(3), "sample_next(logits, 0, rng)",
                     hint={"raised": "dividing by 0 gives NaN probabilities", "values": "take the argmax"})
    assert "dividing by 0" in str(addressed.value) and "argmax" not in str(addressed.value)


def test_the_topological_order_hints_mark_a_node_when_it_is_expanded_never_when_pushed():
    """Hints 2 and 3 of Task 1.3 described a walk that marks a node as seen when it pushes
    it (a wrong order: the node can be finished before a child that needs it) as the right step."""
    second, third = hints.HINTS["1.3"][1:]
    assert "mark a node when you expand it (when it pops), never when you push it" in second
    assert "add its id now, push it back marked done" in third and "post-order" in second


def test_hint_6_2_names_the_state_as_the_code_keeps_it():
    """Hint 6.2 said self.state[p]: the state is a list, one dict per parameter."""
    import minitorch as mt
    from minitorch import optim
    text = " ".join(hints.HINTS["6.2"])
    assert isinstance(optim.SGD([mt.nn.Parameter(np.zeros(2))], lr=0.1).state, list)
    assert "self.state[p]" not in text and 'state["momentum_buffer"]' in text and "a list" in text


def test_a_size_1_axis_is_kept_or_dropped_as_the_shapes_say_and_not_summed_only_of_an_unsummed_answer():
    """The generic "keep the size-1 axis" line was added beside a fix that drops one (an axis
    too many), and "Not summed" said of an answer summed over some of the axes already."""
    kept = diagnose.shape_pattern((1, 4), (4,), np.ones((1, 4)), np.ones(4)).text
    lost = diagnose.shape_pattern((4,), (4, 1), np.ones(4), np.ones((4, 1))).text
    assert "drop it" in kept and "keep it" not in kept and "keep it" in lost
    broadcast = "operands could not be broadcast together with shapes (4,) (4,1)"
    assert failures._shape_hint(broadcast, named=True) == "" and "size-1 axis" in failures._shape_hint(broadcast)
    g = np.ones((2, 4, 3))
    partly = diagnose.shape_pattern((4, 3), (4, 1), g.sum(0), g.sum((0, 2))[:, None], full=(2, 4, 3)).text
    assert "Not summed" not in partly and "axes (1,)" in partly, partly
    assert "Not summed" in diagnose.shape_pattern((2, 4, 3), (4, 1), g, g.sum((0, 2))[:, None], full=(2, 4, 3)).text


def test_one_number_where_an_array_of_several_was_due_says_so_and_not_asarray():
    """Learner 4's argmax with no axis: np.asarray of one number would only give shape ()."""
    from minitorch.course import mismatch
    EXTRA = dict(atol=0, rtol=0, hint="", swapped=None, inputs=(), moved_from=None, full=None)
    with pytest.raises(failures.CheckFailed) as raised:
        mismatch.compare(np.int64(0), np.array([0, 3, 1]), "sample_next(logits, 0, rng)", "3 rows", **EXTRA,
                         dtype=np.int64)
    assert "came back as one number" in str(raised.value) and "give it the axis" in str(raised.value)
    assert "np.asarray" not in str(raised.value)
    with pytest.raises(failures.CheckFailed) as raised:   # a 0-d answer due: asarray is the fix
        mismatch.compare([0.5], np.array(0.5), "f(x)", "one", **EXTRA, dtype=None)
    assert "np.asarray" in str(raised.value)


def test_a_gradient_in_the_outputs_shape_says_so_with_the_way_back_the_values_bear_out():
    """Issue 45 (a fourth fresh learner's Reshape.backward returning grad as it came): a gradient of the forward output's
    shape (the upstream gradient's, ``full``) is said to be that, in both kinds of check, with the way back to the
    input's shape its values bear out: a reshape, or moving the axes back; a broadcast one still needs its sum."""
    g = np.arange(24.0).reshape(4, 6)
    reshaped = diagnose.shape_pattern((4, 6), (2, 3, 4), g, g.reshape(2, 3, 4), full=(4, 6))
    assert reshaped.mistake == "gradient in the output's shape"
    assert reshaped.text.startswith("The gradient has the output's shape") and "reshape it back" in reshaped.text
    x = np.arange(24.0).reshape(2, 3, 4)
    moved = diagnose.shape_pattern((4, 2, 3), (2, 3, 4), x.transpose(2, 0, 1), x, full=(4, 2, 3)).text
    assert "each input's gradient has that input's shape" in moved and "move them back" in moved
    reduced = diagnose.shape_pattern((2, 4), (2, 3, 4), np.ones((2, 4)), np.ones((2, 3, 4)), full=(2, 4)).text
    assert reduced.startswith("The gradient has the output's shape") and "Summed over axes" not in reduced
    stretched = diagnose.shape_pattern((2, 3), (3,), np.ones((2, 3)), np.full(3, 2.0), full=(2, 3)).text
    assert stretched.startswith("Not summed over the broadcast axes: the gradient has the output's shape") and \
        "axes (0,)" in stretched
    assert "output's shape" not in diagnose.shape_pattern((4, 6), (2, 3, 4), g, g.reshape(2, 3, 4)).text  # no full


def test_a_broadcast_error_matches_a_prediction_whatever_order_or_0_d_operands():
    """NumPy names a broadcast error's operands in the order they meet: hit * g / count and hit * (g / count) differ,
    so the library keeps each order; a 0-d operand (np.where(hit, g, 0)) broadcasts with anything and is left out."""
    theirs = "operands could not be broadcast together with shapes (2,4) (2,) ()"
    assert diagnose.same_exception("ValueError", theirs, "ValueError", "operands could not be broadcast together with "
                                   "shapes (2,) (2,4)")
    assert not diagnose.same_exception("ValueError", theirs, "ValueError", "operands could not be broadcast together "
                                       "with shapes (2,4) (2,2)")


def test_a_refused_value_is_traced_to_the_line_that_made_it():
    """``own_lines.where_made``: a given call refusing a value the learner's line passed on names the line that made
    it, when the error names its shape (or its size); an error of the line's own operator names none."""
    from minitorch.course import own_lines

    def given(value):
        raise ValueError(f"a gradient of shape {value.shape} cannot come from broadcasting shape (3,)")

    def rule(grad):
        # Task 9.9: a learner's lines below this label
        made = grad[0:1]
        other = grad * 2
        return given(made) + other
    found = own_lines.where_made(lambda: _swallow(rule, np.ones(3)), [rule])
    assert found is not None and found[0] is rule
    read = [(name, shape, line, "minitorch/x.py", "rule", "code") for name, line, shape in found[2]]
    assert [r[0] for r in read] == ["made", "other"] and read[0][2] == rule.__code__.co_firstlineno + 2
    words = diagnose.made_words("rule(grad) with grad of shape (3,) raised ValueError: a gradient of shape (1,) cannot "
                                "come from broadcasting shape (3,)\n  your line: ...", read)
    assert words.startswith("made, of shape (1,), which that line passes on, was made at line") and "other" not in words
    assert diagnose.made_words("cannot reshape array of size 1 into shape (3,)", read).startswith("made, of shape (1,)")

    def own(grad):
        # Task 9.9: a learner's lines below this label
        made = grad[0:2]
        return made + grad
    assert own_lines.where_made(lambda: _swallow(own, np.ones(3)), [own]) is None  # raised by the line's own +


def _swallow(function, *args):
    try:
        function(*args)
    except ValueError:
        pass
