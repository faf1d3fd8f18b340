"""The autograder's repair search (grader/checks/repair.py, its probe grader/learner/
probes_repair.py and the error model grader/learner/mutants.py), run on small planted
Functions with the probe called in this process: it names the one line an edit mends, says
the kind of change and never the edited code, claims nothing for a mistake outside its
model, and never sends an expected value to the learner's side. (The variants of
tests/grader/variants_repair.py run it through the real learner's process.)"""

import importlib.util
import pathlib
import types

import numpy as np
import pytest

from grader.boundary import wire
from grader.checks import repair
from grader.checks.common import CheckFailure
from grader.checks.numeric import numeric_vjp
from grader.learner import mutants, own_lines, probes_repair

PLANTED = '''
import numpy as np


class Planted:
    @staticmethod
    def forward(ctx, *arrays):
        ctx.saved = arrays
        return FORWARD

    @staticmethod
    def backward(ctx, grad):
        x, *rest = ctx.saved
        # Task 9.9: Planted.backward
        BACKWARD
'''
CASES = {  # name: (forward, the learner's backward, the reference, the inputs, the line, the kind, the mended code)
    "sign": ("1 / (1 + np.exp(-arrays[0]))", "return grad * (1 / (1 + np.exp(-x))) * (1 + 1 / (1 + np.exp(-x)))",
             lambda x: 1 / (1 + np.exp(-x)), [np.linspace(-2, 2, 6).reshape(2, 3)], "the sign of one term",
             "(1 - 1 / (1 + np.exp(-x)))"),
    "precedence": ("arrays[0] / arrays[1]", "return grad / rest[0], -grad * x / rest[0] * rest[0]",
                   np.divide, [np.array([1.0, -2.0, 3.0]), np.array([0.5, 2.0, -1.5])], "which operations group first",
                   "(rest[0] * rest[0])"),
    "axis": ("arrays[0] - arrays[0].mean(axis=-1, keepdims=True)", "return grad - np.mean(grad, axis=-1)",
             lambda x: x - x.mean(axis=-1, keepdims=True), [np.arange(12.0).reshape(3, 4) ** 0.5],
             "whether a reduction keeps its reduced axis as size 1", "keepdims=True)"),
    "outside the model": ("np.sin(arrays[0])", "return grad * np.tanh(x)", np.sin, [np.array([0.3, 1.2, -0.7])], "", ""),
    # the kinds added for a fresh learner's mistakes (issue 45): each written as that learner wrote it
    "grad forgotten": ("np.log(arrays[0])", "return 1 / x", np.log, [np.array([0.5, 1.5, 3.0])],
                       "a factor missing (a variable or a named constant to multiply by)", "grad * "),
    "a call too many": ("np.exp(arrays[0])", "return grad * np.exp(np.exp(x))", np.exp, [np.array([0.3, -1.2, 0.7])],
                        "a function applied once too often", "np.exp(x))"),
    "a call missing": ("np.exp(arrays[0])", "return grad * x", np.exp, [np.array([0.3, -1.2, 0.7])],
                       "a function missing (such as exp or log)", "np.exp(x)"),
    "a divisor too many": ("arrays[0] ** 2 / 2", "return grad * x / (1 - 0.5)", lambda x: x ** 2 / 2,
                           [np.array([0.3, -1.2, 0.7])], "one factor or divisor too many", "grad * x\n"),
    # fb6's: one thing put for its usual twin (edit_swaps.py)
    "a function for its twin": ("np.sin(arrays[0])", "return grad * np.sin(x)", np.sin, [np.array([0.3, 1.2, -0.7])],
                                "which function is applied (such as abs for sign, exp for log, sum for mean)", "np.cos(x)"),
    "an operator for its twin": ("arrays[0] ** 3", "return grad * 3 * (x * 2)", lambda x: x ** 3,
                                 [np.array([0.3, -1.2, 0.7])], "an operator (* for ** and the like: * and /, + and *)", "x ** 2"),
    # fb7's: a 1/2 missing on one term of a sum
    "a half missing on one term": ("arrays[0] ** 2 / 4 + np.exp(arrays[0])", "return grad * (np.exp(x) + x)",
                                   lambda x: x ** 2 / 4 + np.exp(x), [np.array([0.3, -1.2, 0.7])],
                                   "a constant factor on one term (a 1/2 or a 2 missing or too many)", "0.5"),
}
ONLY = {"grad forgotten", "a call too many", "a call missing", "a divisor too many", "a function for its twin",
        "an operator for its twin", "a half missing on one term"}  # no other kind is accepted


class Context:
    def __init__(self, needs):
        self.needs = needs


class Learner:
    """A stand-in for the learner's process: each call runs the probe here, and is kept."""

    def __init__(self, mt):
        self.mt, self.sent = mt, []

    def call(self, probe, doing="", **args):
        self.sent.append(args)
        return getattr(probes_repair, probe)(self.mt, **args)


def planted(tmp_path: pathlib.Path, name: str) -> types.SimpleNamespace:
    forward, backward = CASES[name][:2]
    path = tmp_path / name / "minitorch" / "planted.py"
    path.parent.mkdir(parents=True)
    path.write_text(PLANTED.replace("FORWARD", forward).replace("BACKWARD", backward))
    spec = importlib.util.spec_from_file_location(f"planted_{name.replace(' ', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return types.SimpleNamespace(Planted=module.Planted, function=types.SimpleNamespace(Context=Context),
                                 __file__=str(path.parent / "__init__.py"))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # edits that take the mean of nothing
@pytest.mark.parametrize("name", list(CASES))
def test_the_search_names_the_one_line_an_edit_mends_and_only_then(tmp_path, monkeypatch, name):
    _, backward, reference, arrays, kind, mended = CASES[name]
    learner = Learner(planted(tmp_path, name))
    upstream = np.random.default_rng(0).standard_normal(np.shape(reference(*arrays)))
    expected = []  # every expected value the search computes: outputs and gradients
    monkeypatch.setattr(repair, "numeric_vjp", lambda *a, **k: expected.append(numeric_vjp(*a, **k)) or expected[-1])
    failure = CheckFailure("Planted.backward: the gradient for input 0 is wrong.")
    message = str(repair.located(failure, learner, "Planted", lambda *a: expected.append(reference(*a)) or expected[-1],
                                 arrays, upstream, None, {}))
    if not kind:
        assert message == str(failure)  # no edit of the model mends it: nothing claimed
    else:
        assert "line 15 of minitorch/planted.py (Planted.backward)" in message and kind in message, message
        assert mended not in message and backward not in message  # the line and the kind, never the code
        if name in ONLY:  # the kind said is the kind of the edit accepted: x / (1 - b) -> x / 1 drops a divisor, not a term
            assert [w for w in repair.WORDS.values() if w in message] == [kind], message
    # the learner's side got the inputs and upstream gradients, never an expected value
    sent = [a for args in learner.sent for case in args["cases"] for a in [*case["arrays"], case["upstream"]]]
    assert len(expected) >= 6 and len(sent) >= 6
    assert not any(np.shape(a) == np.shape(e) and np.allclose(a, e) for a in sent for e in expected)
    assert all(set(args) == {"function", "cases", "params", "swaps", "views", "seconds", "task"} for args in learner.sent)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_a_learner_who_typed_over_the_label_still_has_their_line_searched(tmp_path, monkeypatch):
    """Learner 3 (issue 45) typed their code over each "# Task" label: the lines the release gave above it
    (grader/learner/regions.json) tell the learner's own lines, and the search names the line as before."""
    global PLANTED
    kept = PLANTED
    PLANTED = PLANTED.replace("        # Task 9.9: Planted.backward\n", "")
    try:
        learner = Learner(planted(tmp_path, "grad forgotten"))
    finally:
        PLANTED = kept
    given = ["@staticmethod", "def backward(ctx, grad):", "x, *rest = ctx.saved"]
    module = learner.mt.Planted.__module__
    monkeypatch.setattr(own_lines, "_REGIONS", {mutants.key(module, "Planted.backward"): {"task": "9.9", "given": given}})
    arrays = [np.array([0.5, 1.5, 3.0])]
    failure = CheckFailure("Planted.backward: the gradient for input 0 is wrong.")
    message = str(repair.located(failure, learner, "Planted", np.log, arrays, np.ones(3), None, {}))
    assert "line 14 of minitorch/planted.py (Planted.backward)" in message and "a factor missing" in message, message
    monkeypatch.setattr(own_lines, "_REGIONS", {})  # no release's file: no line of its own, nothing claimed
    assert str(repair.located(failure, Learner(learner.mt), "Planted", np.log, arrays, np.ones(3), None, {})) == \
        str(failure)


def test_a_search_stops_when_the_hand_ins_budget_is_spent(tmp_path):
    learner = Learner(planted(tmp_path, "sign"))
    learner.repair_seconds = repair.BUDGET
    failure = CheckFailure("wrong")
    assert repair.located(failure, learner, "Planted", np.exp, [np.ones(2)], np.ones(2), None, {}) is failure
    assert learner.sent == []


def test_a_search_sends_no_more_arrays_than_a_frame_carries(tmp_path, monkeypatch):
    """An answer of more arrays than a frame carries would not decode, and the grader would end the learner's
    process (Adam's search did, once the optimizer probe sent the arrays held before each step too): the search
    stops short, says so, and names no line."""
    learner = Learner(planted(tmp_path, "sign"))
    x = np.linspace(-2, 2, 6).reshape(2, 3)
    cases = [{"arrays": [x], "upstream": np.ones_like(x)}]
    whole = probes_repair.rule_edits(learner.mt, "Planted", cases, {}, seconds=60)
    assert not whole.get("incomplete") and len(whole["edits"]) > 10
    monkeypatch.setattr(wire, "MAX_ARRAYS", 20)
    cut = probes_repair.rule_edits(learner.mt, "Planted", cases, {}, seconds=60)
    assert cut["incomplete"] and 0 < len(cut["edits"]) < len(whole["edits"]), cut
    assert wire.decode(wire.encode({"ok": wire.bounded(cut)}))["ok"]["incomplete"]  # it crosses the boundary
    failure = CheckFailure("Planted.backward: the gradient for input 0 is wrong.")
    reference = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    assert repair.located(failure, learner, "Planted", reference, [x], np.ones_like(x), None, {}) is failure


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_the_first_nan_of_the_learners_own_code_is_named_with_how_its_line_makes_it(tmp_path, monkeypatch):
    """A NaN where the answer is finite (0/0 at x = 0): the learner's process runs the case once more under a tracer
    and names the line and the divisor that holds a 0; the grader words it (nothing expected is sent)."""
    monkeypatch.setitem(CASES, "nan", ("arrays[0]", "return grad * x / x", lambda x: x, [np.array([0.0, 1.0])], "", ""))
    learner = Learner(planted(tmp_path, "nan"))
    failure = CheckFailure("Planted.backward: the gradient for input 0 is wrong.", not_finite=True)
    message = str(repair.not_finite_located(failure, learner, "Planted", [np.array([0.0, 1.0])], np.ones(2), {}))
    assert "The first NaN or inf of your code on this case is made at line 15 of minitorch/planted.py " \
        "(Planted.backward): it returns one there; that line divides 0 by 0 (x is 0 on this case)." in message, message


def test_both_sides_word_each_kind_of_edit_alike():
    assert repair.WORDS == mutants.KINDS
    from grader.learner import made_at  # and where the first NaN is made
    for how in ("", "divides", "zero by zero", "log", "power", "exp"):
        for small in ([], ["a"], ["a", "b"]):
            found = (119, "minitorch/ops_binary.py", "Pow.backward", "grad_a", how, small)
            assert repair.not_finite_words(*found) == made_at.words(*found)


def test_a_value_check_is_searched_too_and_names_the_precedence_mistake(tmp_path):
    path = tmp_path / "minitorch" / "numerical.py"
    path.parent.mkdir()
    path.write_text("def central_difference(f, *values, arg=0, eps=1e-6):\n    # Task 1.1: central_difference\n"
                    "    up, down = list(values), list(values)\n    up[arg] += eps\n    down[arg] -= eps\n"
                    "    return (f(*up) - f(*down)) / 2 * eps\n")
    spec = importlib.util.spec_from_file_location("planted_numerical", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    learner = Learner(types.SimpleNamespace(central_difference=module.central_difference,
                                            __file__=str(path.parent / "__init__.py")))
    calls = [{"f": "sin", "values": [x], "kwargs": {}} for x in (0.3, -1.2)] + \
        [{"f": "square", "values": [1.0], "kwargs": {"eps": 1e-2}}]
    failure = CheckFailure("central_difference(sin, 0.3) is wrong.")
    message = str(repair.located_value(failure, learner, "central_difference", "central_difference", calls,
                                       [np.cos(0.3), np.cos(-1.2), 2.0]))
    assert "line 6 of minitorch/numerical.py (central_difference)" in message and "which operations group" in message
    assert "(2 * eps)" not in message and learner.sent[0]["calls"] == calls  # the calls' inputs, no expected value


def test_a_raised_error_shows_the_learners_own_line_never_given_code(tmp_path):
    from grader.learner.process import describe
    package = tmp_path / "minitorch"
    package.mkdir()
    (package / "shapes.py").write_text("def check_broadcast(a, b):\n    raise ValueError('cannot be broadcast')\n")
    (package / "model.py").write_text("# check_broadcast: given, from shapes.py\n\n\ndef forward(x):\n"
                                      "    # Task 7.3: GPT.forward\n    y = x + 1\n    return check_broadcast(y, x)\n")
    spec = importlib.util.spec_from_file_location("shapes", package / "shapes.py")
    shapes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shapes)
    model = types.ModuleType("model")
    model.__dict__["check_broadcast"] = shapes.check_broadcast
    exec(compile((package / "model.py").read_text(), str(package / "model.py"), "exec"), model.__dict__)
    with pytest.raises(ValueError) as raised:
        model.forward(1)
    where = describe(raised.value, package)["where"]
    assert where == "minitorch/model.py, line 7, in forward: return check_broadcast(y, x)", where
