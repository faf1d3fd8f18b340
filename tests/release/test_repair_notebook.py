"""The notebook's repair search (minitorch/course/repair.py): with mistakes planted in a copy
of the reference that no known mistake names, the visible check names the learner's line
and the kind of change an edit of the error model makes there, never the edited code; for
a mistake outside the model it claims nothing. A raised error shows the learner's own line,
never a line of given code. One process per package runs its checks (a package holds one
mistake per task; ``FRESH``'s are of the kinds a fresh learner's were, issue 45, on ops or
lines the library of known mistakes does not know, since it names that learner's own)."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLANTED = {  # task: (file, the reference's text, the mistake, what the message must say, the mended code)
    "3.1": ("ops_unary.py", "return grad * out * (1 - out)", "return grad * out * (1 + out)",
            "A small edit of line 174 of minitorch/ops_unary.py (Sigmoid.backward) makes every case of this check "
            "pass: look there at the sign of one term.", "(1 - out)"),
    "2.3": ("ops_binary.py", "-grad * (a / b) / b", "-grad * a / b * b",
            "line 94 of minitorch/ops_binary.py (Div.backward)", "a / b / b"),
    "5.3": ("ops_softmax.py", "np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)",
            "np.exp(out) * np.sum(grad, axis=ctx.axis)", "line 112 of minitorch/ops_softmax.py (LogSoftmax.backward)",
            "keepdims=True"),
    # the mask inverted: no edit of the model mends a comparison, and no known mistake predicts it (x >= out, every
    # element for a Min, is one: "compared with >= or <=", tests/grader/variants_known.py)
    "3.3": ("ops_reduce.py", "hit = x == out", "hit = x != out", "", ""),
    # Adam's m corrected twice in the step moves the first step as "corrected m stored back" does: the later steps,
    # kept as evidence before the first is judged, tell them apart, so no mistake is named
    "6.3": ("optim.py", "p.data -= (self.lr / (1 - beta1 ** t)) * m / denom",
            "p.data -= (self.lr / (1 - beta1 ** t)) * m / (1 - beta1 ** t) / denom",
            "line 88 of minitorch/optim.py (Adam.step)", "* m / denom"),
    # the GPT's position table one row short: the learner's line, never the given shape check that raised
    "7.3": ("nn/transformer.py", "x = self.token(idx) + self.position(np.arange(idx.shape[1]))",
            "x = self.token(idx) + self.position(np.arange(idx.shape[1]))[:-1]", "", ""),
}
SIN_TO_COS = (ROOT / "solutions" / "minitorch" / "ops_unary.py").read_text()  # from Sin's rule to Cos's, both planted
SIN_TO_COS = SIN_TO_COS[SIN_TO_COS.index("return grad * np.cos(x)"):SIN_TO_COS.index("return -grad * np.sin(x)") + 24]
FRESH = [  # a fresh learner's kinds of mistake, on an op or a line the library does not know (its names for the very
    # mistakes that learner made are tests/grader/variants_known.py's); the kind said is the one of the edit accepted,
    # and no other
    {"1.2": ("scalar.py", "return g * b.data, g * a.data", "return g * b.data, -g * a.data",
             "line 110 of minitorch/scalar.py (Scalar.__mul__) makes every case of this check pass: look there at "
             "the sign of one term.", "g * a.data"),
     "3.1": ("ops_unary.py", "return grad / (2 * out)", "return grad / (2 * np.sqrt(out))",
             "line 87 of minitorch/ops_unary.py (Sqrt.backward) makes every case of this check pass: look there at "
             "a function applied once too often.", "(2 * out)"),
     "6.3": ("optim.py", 'm = state["m"] = beta1 * state.get("m", 0) + (1 - beta1) * g',
             'm = state["m"] = beta1 * state.get("m", 0) + (1 - beta1) * g * g',
             "line 85 of minitorch/optim.py (Adam.step) makes every case of this check pass: look there at "
             "one factor or divisor too many.", 'beta1 * state.get("m", 0) + (1 - beta1) * g'),
     # the task's functions that ran are searched the last to return first: GPT.forward, not the blocks it calls
     "7.3": ("nn/transformer.py",
             "        for block in self.blocks:\n            x = block(x)\n        return self.head(self.ln_f(x))",
             "        out = x\n        for block in self.blocks:\n            out = block(x)\n"
             "        return self.head(self.ln_f(out))",
             "line 115 of minitorch/nn/transformer.py (GPT.forward) makes every case of this check pass: look there "
             "at which variable is used.", "block(out)")},
    {"1.2": ("scalar.py", "return (g * math.cos(a.data),)", "return (g * math.cos(g),)",
             "line 190 of minitorch/scalar.py (Scalar.sin) makes every case of this check pass: look there at "
             "which variable is used.", "a.data"),
     "3.1": ("ops_unary.py", "return grad * np.cos(x)", "return np.cos(x)",
             "line 121 of minitorch/ops_unary.py (Sin.backward) makes every case of this check pass: look there at "
             "a factor missing (a variable or a named constant to multiply by).", "grad * np.cos(x)"),
     "5.3": ("ops_softmax.py", "return grad - np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)",
             "return grad - np.exp(out) * np.sum(grad, axis=-1, keepdims=True)",
             "line 112 of minitorch/ops_softmax.py (LogSoftmax.backward) makes every case of this check pass: look "
             "there at an axis, keepdims or a transpose.", "ctx.axis")},
    # fb6: one thing put for its usual twin (edit_swaps.py): an operator, a NumPy function, the variable whose shape is read
    {"1.2": ("scalar.py", "-g * a.data / (b.data * b.data)", "-g * a.data / (b.data * 2)",
             "line 122 of minitorch/scalar.py (Scalar.__truediv__) makes every case of this check pass: look there at "
             "an operator (* for ** and the like: * and /, + and *).", "b.data * b.data"),
     "3.1": ("ops_unary.py", "return grad * np.sign(x)", "return grad * np.abs(x)",
             "line 104 of minitorch/ops_unary.py (Abs.backward) makes every case of this check pass: look there at "
             "which function is applied (such as abs for sign, exp for log, sum for mean).", "np.sign"),
     "2.3": ("ops_binary.py", "unbroadcast(grad * a, b.shape)", "unbroadcast(grad * a, a.shape)",
             "line 76 of minitorch/ops_binary.py (Mul.backward) makes every case of this check pass: look there at "
             "which variable is used.", "b.shape")},
    # fb7: a helper of the module's for a value (the cdf where the density belongs), a 1/2 missing on one term of a sum
    # (the tanh gelu's, written with t), and b for a in pow's log (b of another shape than a: the result broadcasts)
    {"5.2": ("ops_activation.py", "return grad * (cdf + x * normal_pdf(x))", "return grad * (cdf + x * cdf)",
             "line 114 of minitorch/ops_activation.py (Gelu.backward) makes every case of this check pass: look there "
             "at which function or variable is used (a helper's value, such as a density, for another value).",
             "normal_pdf")},
    {"5.2": ("ops_activation.py", "            return grad * (cdf + 2 * x * cdf * (1 - cdf) * du)",
             "            t = 2 * cdf - 1\n            return grad * (cdf + x * (1 - t * t) * du)",
             "line 114 of minitorch/ops_activation.py (Gelu.backward) makes every case of this check pass: look there "
             "at a constant factor on one term (a 1/2 or a 2 missing or too many).", "0.5"),
     "2.3": ("ops_binary.py", "                log_a = np.where((a == 0) & (b >= 0), 0, np.log(a))\n"
             "                grad_b = unbroadcast(grad * (out * log_a).astype(grad.dtype, copy=False), b.shape)",
             "                grad_b = unbroadcast(grad * np.where((a == 0) & (b >= 0), np.zeros_like(out), "
             "out * np.log(b)), b.shape)",
             "line 122 of minitorch/ops_binary.py (Pow.backward) makes every case of this check pass: look there at "
             "which variable is used.", "np.log(a)")},
    # walk 7's L3.1b and k3.1e together: Sin's rule and Cos's both wrong; an edit of Sin's line mends the failing case
    # and fresh ones, and the cell then fails at Cos, another op's method the edit never runs
    {"3.1": ("ops_unary.py", SIN_TO_COS, SIN_TO_COS.replace("return grad * np.cos(x)", "return grad * np.sin(x)")
             .replace("return -grad * np.sin(x)", "return -grad * np.cos(x)"), "line 121 of "
             "minitorch/ops_unary.py (Sin.backward) makes this case and fresh random ones right (a later case of another "
             "op still fails): look there at which function is applied (such as abs for sign, exp for log, sum for mean).",
             "grad * np.cos(x)")},
]
RUNNER = r"""
import json, sys, pathlib
from minitorch.course import progress
found = {}
for task in sys.argv[2:]:
    path = next(pathlib.Path(sys.argv[1]).glob(f"0{task[0]}_*.ipynb"))
    setup, checks, _, _ = progress._cells(path)
    names = {"__name__": "__check__"}
    exec(compile("\n".join(l for l in setup.splitlines() if not l.lstrip().startswith(("%", "!"))), "setup", "exec"), names)
    try:
        exec(compile(dict(checks)[task], f"check {task}", "exec"), names)
        found[task] = ""
    except Exception as error:
        found[task] = f"{type(error).__name__}: {error}"
print(json.dumps(found))
"""


TYPED_OVER = {  # learner 3's mistakes (issue 45), in a package whose every "# Task" label the learner typed over:
    # (file, the reference's text, the mistake, the function and the kind the message names)
    "3.1": ("ops_unary.py", "        return grad * out\n", "        return out\n", "(Exp.backward)", "a factor missing"),
    "2.3": ("ops_binary.py", "np.where((a == 0) & (b >= 0), 0, np.log(a))", "np.where((a == 0) & (b >= 0), 0, np.log(b))",
            "(Pow.backward)", "which variable is used"),
    "5.1": ("ops_linalg.py", "grad2 @ np.swapaxes(b2, -1, -2)", "grad2 @ b2.T", "(MatMul.backward)", "a transpose"),
    "5.2": ("ops_activation.py", "du = SQRT_2_OVER_PI * (1 + 3 * TANH_CUBIC * x * x)", "du = 1 + 3 * TANH_CUBIC * x * x",
            "(Gelu.backward)", "a factor missing"),
    "5.3": ("ops_softmax.py", "np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)",
            "np.exp(out) * np.sum(grad, axis=ctx.axis)", "(LogSoftmax.backward)", "whether a reduction keeps its reduced axis"),
}


def _type_over_labels(package: pathlib.Path) -> None:
    """The package as learner 3 left it (issue 45): each label and stub typed over with the code, the release's
    regions.json beside the course's machinery."""
    import re
    for path in package.rglob("*.py"):
        if "course" in path.parts:
            continue
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(line for i, line in enumerate(lines) if "SOLUTION" not in line and not (
            re.match(r"\s*# Task \d+\.\d+:", line) and i + 1 < len(lines) and "BEGIN SOLUTION" in lines[i + 1])))
    shutil.copyfile(ROOT / "minitorch" / "course" / "regions.json", package / "course" / "regions.json")


def _messages(root: pathlib.Path, planted: dict, typed_over: bool = False) -> dict:
    """Each planted task's visible check's message, the mistakes planted in one copy of the reference."""
    from grader.tasks import STAGES
    if set(STAGES) != {str(n) for n in range(1, 8)}:   # a course adapted by its instructor (docs/INSTRUCTOR.md)
        pytest.skip("the planted mistakes and their lines are the kit's own seven stages'")
    package = root / "minitorch"
    shutil.copytree(ROOT / "solutions" / "minitorch", package, ignore=shutil.ignore_patterns("__pycache__"))
    if typed_over:
        _type_over_labels(package)
    for file, old, new, *_ in planted.values():
        text = (package / file).read_text()
        assert text.count(old) == 1, old
        (package / file).write_text(text.replace(old, new))
    done = subprocess.run([sys.executable, "-c", RUNNER, str(ROOT / "notebooks"), *planted], capture_output=True,
                          text=True, cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, timeout=120)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("group", range(len(FRESH)))
def test_a_fresh_learners_one_edit_mistakes_are_located_with_the_kind_of_the_edit(tmp_path, group):
    from minitorch.course.edit_kinds import KINDS
    messages = _messages(tmp_path, FRESH[group])
    for task, (_, _, _, words, mended) in FRESH[group].items():
        message = messages[task]
        assert message.startswith("CheckFailed") and "known mistake" not in message, message
        assert words in message and mended not in message.split("A small edit", 1)[1], message
        assert [w for w in KINDS.values() if w in message] == [words.rsplit("look there at ", 1)[1][:-1]], message


def test_the_visible_check_names_the_line_an_edit_mends_and_only_then(tmp_path):
    messages = _messages(tmp_path, PLANTED)
    for task, (_, _, _, words, mended) in PLANTED.items():
        message = messages[task]
        assert message.startswith("CheckFailed") and "known mistake" not in message, message
        if words:
            assert message.splitlines()[1].strip().startswith("A small edit of line") and words in message, message
            assert mended not in message, message  # the line and the kind, never the edited code
        else:
            assert "A small edit" not in message, message
    assert "your line: minitorch/nn/transformer.py, line 112, in forward" in messages["7.3"], messages["7.3"]
    assert "shapes.py" not in messages["7.3"] and "check_broadcast" not in messages["7.3"], messages["7.3"]


def test_a_learner_who_typed_over_the_labels_still_has_their_line_found(tmp_path):
    """Learner 3 (issue 45) typed their code over each "# Task" label with its stub: the lines the release gave
    above the label (regions.json) still tell their own lines, for the repair search and for "your line"."""
    messages = _messages(tmp_path, TYPED_OVER, typed_over=True)
    for task, (_, _, _, function, kind) in TYPED_OVER.items():
        message = messages[task]
        assert message.startswith("CheckFailed") and "known mistake" not in message, message
        assert "A small edit of line" in message and function in message and f"look there at {kind}" in message, message
    for task in ("5.1", "5.3"):  # raised: the learner's line is theirs, not "raised" in given code
        assert "your line: minitorch/" in messages[task] and "  raised:" not in messages[task], messages[task]


def test_a_dtype_drift_names_the_first_line_that_makes_another_dtype(tmp_path):
    """Learner 3's count of ties from a bool mask (issue 45): int64, it turns a float32 gradient into float64; the
    message names the line and the value, in a package with its labels typed over too."""
    planted = {"3.3": ("ops_reduce.py", "ties = np.sum(hit, axis=ctx.axes, keepdims=True).astype(grad.dtype)",
                       "ties = np.sum(hit, axis=ctx.axes, keepdims=True)")}
    for typed_over, line in ((False, 122), (True, 117)):
        message = _messages(tmp_path / str(typed_over), planted, typed_over)["3.3"]
        assert "dtype drift" in message and "The first value of another dtype than float32 in your code is made at " \
            f"line {line} of minitorch/ops_reduce.py (_to_extremes): ties is int64 there" in message, message


def test_a_value_a_given_call_refused_names_the_line_that_made_it(tmp_path):
    """A fourth fresh learner's 5.1e (issue 45): a 1-D b's gradient read as row 0 of the (k, 1) column's, shape (1,);
    the given unbroadcast refuses it two lines below, and the message names the line of the learner's that made it."""
    planted = {"5.1": ("ops_linalg.py",
                       "            grad_b = unbroadcast(product_like(np.swapaxes(a2, -1, -2), grad2, b2), b2.shape)"
                       ".reshape(b.shape)",
                       "            grad_b = product_like(np.swapaxes(a2, -1, -2), grad2, b2)\n            if b.ndim == 1:\n"
                       "                grad_b = grad_b[..., 0, :]\n            grad_b = unbroadcast(grad_b, b.shape)")}
    message = _messages(tmp_path, planted)["5.1"]
    assert "grad_b, of shape (1,), which that line passes on, was made at line 49 of minitorch/ops_linalg.py " \
        "(MatMul.backward): grad_b = grad_b[..., 0, :]" in message, message
    assert "your line: minitorch/ops_linalg.py, line 50" in message, message


def test_a_nan_and_numpy_words_name_the_line_of_yours_that_made_the_value(tmp_path):
    """fb6: the first NaN of the learner's own code, and how its line makes it (Pow's b * out / a, 0/0 at a = 0),
    and what NumPy's "Probabilities do not sum to 1" means, with the line that made p (normalised over every row)."""
    planted = {"2.3": ("ops_binary.py", "grad * np.where(b == 0, 0, b * a ** (b - 1)).astype(grad.dtype, copy=False)",
                       "grad * b * out / a"),
               "7.4": ("language.py", "p /= p.sum(axis=-1, keepdims=True)", "p = p / p.sum()")}
    messages = _messages(tmp_path, planted)
    assert "The first NaN or inf of your code on this case is made at line 119 of minitorch/ops_binary.py " \
        "(Pow.backward): grad_a holds one there; that line divides 0 by 0 (a is 0 on this case)." in messages["2.3"]
    assert "NumPy's words mean: the probabilities of one draw (one row) must sum to 1: normalise each row by its own " \
        "sum (axis=-1, keepdims=True). p was made at line 112 of minitorch/language.py (sample_next): p = p / p.sum()" \
        in messages["7.4"], messages["7.4"]



def test_a_shape_error_a_plain_functions_drift_and_a_0_by_0_name_the_learners_line(tmp_path):
    """fb7: learner 7's 6.2c (the momentum buffer read from the first parameter's state: NumPy's words at the update
    line, the value of the shape they name made two lines above), 2.2f (unbroadcast's sum in float64: its line, never
    a repair edit that only casts at the return) and 2.3d (b * out / a inside np.where: 0/0 at a = 0)."""
    planted = {"6.2": ("optim.py", 'buffer = state.get("momentum_buffer")', 'buffer = self.state[0].get("momentum_buffer")'),
               "2.2": ("shapes.py", "    return grad.sum(axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
                       "    out = grad.sum(axis=(*range(extra), *stretched), keepdims=True, dtype=np.float64)\n"
                       "    return out.reshape(shape)"),
               "2.3": ("ops_binary.py", "grad * np.where(b == 0, 0, b * a ** (b - 1))",
                       "grad * np.where(b == 0, np.zeros_like(out), b * out / a)")}
    messages = _messages(tmp_path / "a", {t: planted[t] for t in ("6.2", "2.2")}) | _messages(tmp_path / "b", {
        "2.3": planted["2.3"]})   # Task 2.3's check waits for Task 2.2's
    assert "your line: minitorch/optim.py, line 65, in step: p.data -= self.lr * g" in messages["6.2"], messages["6.2"]
    assert "NumPy's words mean: an update in place (-=, +=, *=, /=) of an array of shape (1,) by a value of shape (2,)" \
        in messages["6.2"] and "g has shape (2,), made at line 63 of minitorch/optim.py (SGD.step) from buffer" in \
        messages["6.2"] and "buffer is held in the state of another parameter (self.state[0], of a parameter of shape " \
        "(2,)), not in this one's (of shape (1,))" in messages["6.2"], messages["6.2"]
    assert "The first value of another dtype than float32 in your code is made at line 68 of minitorch/shapes.py " \
        "(unbroadcast): out is float64 there" in messages["2.2"] and "A small edit" not in messages["2.2"], messages["2.2"]
    assert "made at line 119 of minitorch/ops_binary.py (Pow.backward): grad_a holds one there; that line divides 0 by 0 " \
        "(a is 0 on this case)" in messages["2.3"], messages["2.3"]
