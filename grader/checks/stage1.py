"""Stage 1: central differences and the scalar ops' local derivatives (the engine's checks are in
``stage1_engine.py``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.checks import part
from grader.checks.common import NONE, CheckFailure, call_learner, explain
from grader.checks.naming import judge_value, name_value_mistake, value_mistake_raised
from grader.checks.repair import located_value


def _central(w, f: str, shown: str, values: list, arg: int = 0, eps: float = 1e-6, **options) -> None:
    """The learner's central_difference of the probes' function ``f`` against ``expected``
    (``options``), naming the known mistake whose number it is."""
    kwargs = {k: v for k, v in (("arg", arg), ("eps", eps)) if v != {"arg": 0, "eps": 1e-6}[k]}
    call = f"central_difference({shown}, {', '.join(f'{v:.3g}' for v in values)}" + \
        "".join(f", {k}={v:g}" for k, v in kwargs.items()) + ")"
    got = call_learner(w, "central_difference", call, f=f, values=values, kwargs=kwargs)
    expected = options.pop("expected")
    try:
        if got is None:
            raise CheckFailure(f"{call}: {NONE}; expected a number", "returned None")
        if not isinstance(got, (int, float, np.floating)) or isinstance(got, bool):
            raise CheckFailure(f"{call} gave {got!r}, expected a number", "wrong type")
        judge_value(call, "central difference", {"f": f, "values": values, "arg": arg, "eps": eps}, np.float64(got),
                    np.float64(expected), **options)
    except CheckFailure as failure:  # a repair search on this case, every other kind of case and fresh points
        fresh = [float(x) for x in np.random.default_rng(17).uniform(-2, 2, 3)]
        calls = [{"f": f, "values": values, "kwargs": kwargs}, *({"f": "sin", "values": [x], "kwargs": {}} for x in fresh),
                 {"f": "poly", "values": [1.5, -2.0, 3.0], "kwargs": {"arg": 1}}, {"f": "square", "values": [1.0],
                                                                                  "kwargs": {"eps": 1e-2}}]
        right = [expected, *(math.cos(x) for x in fresh), -6.0, 2.0]
        raise located_value(failure, w, "central_difference", "central_difference", calls, right) from None


@part("1.1", "values")
def central_difference_values(w, rng):
    for x in rng.uniform(-2, 2, 4):
        _central(w, "sin", "sin", [float(x)], expected=math.cos(x), atol=1e-6)
    _central(w, "poly", "lambda a, b, c: a*b*b + c", [1.5, -2.0, 3.0], arg=1, expected=-6.0, atol=1e-5)


@part("1.1", "two-sided difference")
def central_difference_is_two_sided(w, rng):
    # for x*x the central difference has no error: exactly 2 at 1.0, whatever eps; an eps this large makes the
    # slope times eps squared plainly not 0 (an answer a hair from 0 is no evidence of any one mistake)
    _central(w, "square", "x*x", [1.0], eps=0.1, expected=2.0, rtol=0, atol=1e-9)


SCALAR_PARTS: dict[str, list[Any]] = {  # part: [(op name, float version, sample range)]
    "add, sub, neg": [("a + b", lambda a, b: a + b, (-2, 2)), ("a - b", lambda a, b: a - b, (-2, 2)),
                      ("a + 2", lambda a: a + 2, (-2, 2)), ("2 - a", lambda a: 2 - a, (-2, 2)),
                      ("-a", lambda a: -a, (-2, 2))],
    "mul": [("a * b", lambda a, b: a * b, (-2, 2)), ("3 * a", lambda a: 3 * a, (-2, 2))],
    "div": [("a / b", lambda a, b: a / b, (0.5, 2)), ("2 / a", lambda a: 2 / a, (0.5, 2))],
    "pow": [("a ** 3", lambda a: a ** 3, (-2, 2)), ("a ** -0.5", lambda a: a ** -0.5, (0.5, 2)),
            ("a ** 0", lambda a: a ** 0, (0.5, 2))],
    "exp, log": [("a.exp()", math.exp, (-2, 2)), ("a.log()", math.log, (0.5, 3))],
    "sin, cos": [("a.sin()", math.sin, (-3, 3)), ("a.cos()", math.cos, (-3, 3))],
    "tanh, sigmoid": [("a.tanh()", math.tanh, (-2, 2)), ("a.sigmoid()", lambda a: 1 / (1 + math.exp(-a)), (-3, 3))],
    "relu": [("a.relu()", lambda a: max(a, 0.0), (0.2, 2)), ("a.relu()", lambda a: max(a, 0.0), (-2, -0.2))],
}
KINKS = {  # part: [(op name, the input, its derivative there, why)], where the notebook fixes the answer
    "pow": [("a ** 0", 0.0, 0.0, "a ** 0 is the constant 1, so its derivative is 0, even at a = 0"),
            ("a ** 3", 0.0, 0.0, "3 a ** 2 is 0 at a = 0")],
    "relu": [("a.relu()", 0.0, 0.0, "at exactly 0 relu's derivative is taken to be 0, as in PyTorch")],
}


def _scalar_case(w, op: str, values: list, g: float) -> tuple[float, list, dict]:
    case = {"op": op, "point": values, "g": g}
    try:
        value, grads = call_learner(w, "scalar_op", f"the backward of {op} at {values}", name=op, values=values,
                                    upstream=g)
    except CheckFailure as failure:
        raise value_mistake_raised(failure, "scalar backward", case) from None
    return value, grads, case


def _derivatives(ref, values: list, g: float) -> list:
    found = []
    for i in range(len(values)):
        up, down = list(values), list(values)
        up[i] += 1e-6
        down[i] -= 1e-6
        found.append(g * (ref(*up) - ref(*down)) / 2e-6)
    return found


def _located_scalar(failure: CheckFailure, w, op: str, ref, span: tuple, values: list, g: float) -> CheckFailure:
    """``failure`` with the line of the op's method (``Scalar.__truediv__`` for ``a / b``) that a repair
    search points at: edits tried on this case and two fresh points, judged here."""
    method = "__neg__" if op.startswith("-") else op.split(".")[1].split("(")[0] if "." in op else \
        {"+": "__add__", "-": "__sub__", "*": "__mul__", "/": "__truediv__", "**": "__pow__"}[op.split()[1]]
    rng = np.random.default_rng(29)
    points = [(values, g), *(([float(v) for v in rng.uniform(span[0], span[1], len(values))], float(rng.uniform(0.5, 2)))
                             for _ in range(2))]
    calls = [{"name": op, "values": v, "upstream": up} for v, up in points]
    right = [[ref(*v), _derivatives(ref, v, up)] for v, up in points]

    def fits(got: Any, want: list) -> bool:
        try:
            return len(got[1]) == len(want[1]) and math.isclose(float(got[0]), want[0], rel_tol=1e-9, abs_tol=1e-12) \
                and bool(np.allclose(np.asarray(got[1], np.float64), want[1], rtol=1e-5, atol=1e-8))
        except (TypeError, ValueError, IndexError, KeyError):
            return False
    return located_value(failure, w, f"Scalar.{method}", "scalar_op", calls, right, right=fits)


def _scalar_part(name: str):
    def check(w, rng):
        for op, ref, (lo, hi) in SCALAR_PARTS[name]:
            values = [float(v) for v in rng.uniform(lo, hi, ref.__code__.co_argcount if hasattr(ref, "__code__") else 1)]
            g = float(rng.uniform(0.5, 2))
            value, grads, case = _scalar_case(w, op, values, g)
            explain(f"{op} at {values}", np.float64(value), np.float64(ref(*values)), rtol=1e-9)
            expected = _derivatives(ref, values, g)
            for i in range(len(values)):
                try:
                    explain(f"the backward of {op} at {values}, input {i}, upstream {g:.3g}", np.float64(grads[i]),
                            np.float64(expected[i]), rtol=1e-5, atol=1e-8)
                except CheckFailure as failure:
                    name_value_mistake("scalar backward", case, f"the backward of {op} at {values}, upstream {g:.3g}",
                              np.array(grads, np.float64), np.array(expected), rtol=1e-5, atol=1e-8)
                    raise _located_scalar(failure, w, op, ref, (lo, hi), values, g) from None
        for op, value, derivative, why in KINKS.get(name, []):
            _, grads, case = _scalar_case(w, op, [value], 2.0)
            judge_value(f"the backward of {op} at [{value}], upstream 2 ({why})", "scalar backward", case,
                        np.array(grads, np.float64), np.array([2.0 * derivative]))
    return check


for _name in SCALAR_PARTS:
    part("1.2", _name)(_scalar_part(_name))
