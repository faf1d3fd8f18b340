"""Stage 3: the unary ops' backward, sum and mean, max and min."""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import part
from grader.checks.common import CheckFailure, explain
from grader.checks.naming import judge, known_for, named_raise
from grader.checks.repair import drift_located
from grader.checks.rules import check_float32, check_large, check_rule, run_rule

UNARY: dict[str, Any] = {  # Function name: (trusted NumPy function, range of the inputs)
    "Exp": (np.exp, (-2, 2)), "Log": (np.log, (0.3, 3)), "Sqrt": (np.sqrt, (0.3, 3)),
    "Abs": (np.abs, (0.2, 2)), "Sin": (np.sin, (-3, 3)), "Cos": (np.cos, (-3, 3)), "Tanh": (np.tanh, (-2, 2)),
    "Sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-4, 4)), "Relu": (lambda x: np.maximum(x, 0), (0.2, 2)),
}
SHAPES = [(4,), (2, 3), (2, 1, 3), ()]  # several elements first: a constant factor can be seen
AT_ZERO = {"Abs": 0.0, "Relu": 0.0}
LARGE = {  # inputs far from 1, where a rule written another way can overflow or lose every digit
    "Exp": [-100.0, -30.0, 30.0, 80.0], "Log": [1e-30, 1e-5, 1e5, 1e30], "Sqrt": [1e-30, 1e-5, 1e5, 1e30],
    "Abs": [-1e30, -1e5, 1e5, 1e30], "Sin": [-3e3, -40.0, 40.0, 1e4], "Cos": [-3e3, -40.0, 40.0, 1e4],
    "Tanh": [-50.0, -20.0, 20.0, 50.0], "Sigmoid": [-100.0, -40.0, 40.0, 100.0], "Relu": [-1e30, -1e5, 1e5, 1e30],
}  # the gradient at the kink, as PyTorch gives it


def _unary_part(name):
    def check(w, rng):
        reference, (lo, hi) = UNARY[name]
        for shape in SHAPES:
            x = rng.uniform(lo, hi, shape)
            if name in ("Abs", "Relu"):  # both sides of the kink
                x = x * rng.choice([-1.0, 1.0], shape)
            check_rule(w, f"ops_unary.{name}", reference, [x], rng)
        if name in AT_ZERO:
            _, grads = run_rule(w, f"ops_unary.{name}", [np.array([0.0, 1.0])], np.array([3.0, 3.0]), " at 0")
            judge(f"{name}.backward at x = 0 (the kink: the gradient there is {AT_ZERO[name]:g}, as in PyTorch)",
                  f"ops_unary.{name}", [np.array([0.0, 1.0])], np.array([3.0, 3.0]), {}, 0, grads[0],
                  np.array([3.0 * AT_ZERO[name], 3.0]))
        check_float32(w, f"ops_unary.{name}", [rng.uniform(lo, hi, (2, 3))], reference)
        check_large(w, f"ops_unary.{name}", reference, [np.array(LARGE[name])], f"x = {LARGE[name]}",
                    "At large magnitudes an intermediate overflows (exp of a large number is inf in float32 above "
                    "88) or divides 0 by 0: compute the derivative from what the forward saved.")
    return check


for _name in UNARY:
    part("3.1", _name)(_unary_part(_name))


AXIS_CASES = [((2, 3, 4), None, False), ((2, 3, 4), 1, False), ((2, 3, 4), -1, True), ((2, 3, 4), (0, 2), False),
              ((2, 3, 4), (0, -1), True), ((2, 3, 4), 0, True), ((5,), 0, False), ((), None, False),
              ((3, 1, 2), 1, False), ((3, 1, 2), -2, True), ((1, 4), (0, 1), True)]


# Max's and Min's: keepdims=True before False, so that an error where grad lines up as it came is not taken for a
# missing np.expand_dims (issue 45: a tie count without keepdims raises the same error where keepdims is False)
EXTREME_CASES = [AXIS_CASES[0], AXIS_CASES[2], AXIS_CASES[1], *AXIS_CASES[3:]]


def _reduce_part(name, reference):
    def check(w, rng):
        for shape, axis, keepdims in EXTREME_CASES if name in ("Max", "Min") else AXIS_CASES:
            x = rng.standard_normal(shape)
            if name in ("Max", "Min"):  # no ties here: those have their own case
                x = rng.permutation(np.arange(x.size, dtype=np.float64)).reshape(shape) / 3
            check_rule(w, f"ops_reduce.{name}", lambda a: reference(a, axis=axis, keepdims=keepdims), [x], rng,
                       label=f"(axis={axis}, keepdims={keepdims})", kind="reduction", axis=axis, keepdims=keepdims)
        check_float32(w, f"ops_reduce.{name}", [np.arange(6.0).reshape(2, 3)], lambda a: reference(a, axis=1),
                      axis=1, keepdims=False)
    return check


@part("3.3", "ties")
def ties_share_equally(w, rng):
    for name in ("Max", "Min"):
        _ties(w, name)


def _ties(w, name):
    sign = 1.0 if name == "Max" else -1.0
    x = sign * np.array([[1.0, 3.0, 3.0, 3.0], [2.0, 0.0, 2.0, 1.0]])
    for upstream, keepdims in [(np.array([[3.0], [1.0]]), True), (np.array([3.0, 1.0]), False)]:  # (EXTREME_CASES' order)
        params: dict[str, Any] = {"axis": 1, "keepdims": keepdims}
        try:
            _, grads = run_rule(w, f"ops_reduce.{name}", [x], upstream, " with ties", axis=1, keepdims=keepdims)
        except CheckFailure as failure:  # an error some known mistake raises here: named, on evidence
            raise named_raise(failure, known_for(f"ops_reduce.{name}", [x], upstream, params)) from None
        judge(f"{name}.backward with tied extremes (x of shape (2, 4), axis=1, keepdims={keepdims}, upstream [3, 1]; "
              "each of k ties gets 1/k of the gradient)", f"ops_reduce.{name}", [x], upstream,
              params, 0, grads[0], np.array([[0, 1, 1, 1], [0.5, 0, 0.5, 0]]), kind="reduction")
    _, grads = run_rule(w, f"ops_reduce.{name}", [np.ones((2, 2), np.float32)], np.float32(1.0),
                        " of a constant float32 array", axis=None, keepdims=False)
    try:
        explain(f"{name}.backward of a constant float32 (2, 2) array, axis=None (all four tie)", grads[0],
                np.full((2, 2), 0.25, np.float32))
    except CheckFailure as failure:
        if failure.mistake != "dtype drift":
            raise
        raise drift_located(failure, w, f"ops_reduce.{name}", [np.ones((2, 2), np.float32)], np.float32(1.0),
                            {"axis": None, "keepdims": False}) from None


for _name, _reference in (("Sum", np.sum), ("Mean", np.mean)):
    part("3.2", _name)(_reduce_part(_name, _reference))


@part("3.3", "without ties")
def max_and_min_without_ties(w, rng):
    """Max and Min share _to_extremes (the task): its cases without ties, then its ties."""
    for name, reference in (("Max", np.max), ("Min", np.min)):
        _reduce_part(name, reference)(w, rng)
