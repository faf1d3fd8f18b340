"""Known mistakes of stage 3: the unary ops (Task 3.1), sum and mean (3.2), max and min (3.3)."""

from __future__ import annotations

import math

import numpy as np

from grader.checks.mistakes import Mistake


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _axes(x, axis):
    if axis is None:
        return tuple(range(x.ndim))
    return tuple(sorted(a % x.ndim for a in (axis if isinstance(axis, (tuple, list)) else (axis,))))


def _back(g, x, axis, keepdims):
    """The upstream gradient with the reduced axes put back (the right first step)."""
    return g if keepdims else np.expand_dims(g, _axes(x, axis))


def _shared(x, g, axis, keepdims, extreme, count_all=False, share=True):
    axes = _axes(x, axis)
    out = extreme(x, axis=axes, keepdims=True)
    hit = (x == out).astype(np.float64)
    count = hit.sum() if count_all else hit.sum(axis=axes, keepdims=True)
    return hit * _back(g, x, axis, keepdims) / (count if share else 1)


def _at_least(x, g, axis, keepdims, extreme):
    """The mask x >= out (or x <= out) for x == out: every element for a Min (for a Max, only the maximum)."""
    axes = _axes(x, axis)
    out = extreme(x, axis=axes, keepdims=True)
    hit = (x >= out if extreme is np.min else x <= out).astype(np.float64)
    return hit * _back(g, x, axis, keepdims) / hit.sum(axis=axes, keepdims=True)


def _count_flat(x, g, axis, keepdims, extreme):
    """The right rule, but with the ties counted without keepdims (the count lacks the reduced axes)."""
    axes = _axes(x, axis)
    hit = x == extreme(x, axis=axes, keepdims=True)
    return hit * (_back(g, x, axis, keepdims) / np.sum(hit, axis=axes))


def _unexpanded(x, g, axis, extreme):
    """The right rule, but with the upstream gradient used as it came (reduced axes missing)."""
    axes = _axes(x, axis)
    hit = x == extreme(x, axis=axes, keepdims=True)
    return hit * (g / np.sum(hit, axis=axes, keepdims=True))


def _unexpanded_first(x, g, axis, extreme):
    """``_unexpanded`` multiplied before the count divides (hit * g / count): NumPy's error names other shapes."""
    axes = _axes(x, axis)
    hit = x == extreme(x, axis=axes, keepdims=True)
    return hit * g / np.sum(hit, axis=axes, keepdims=True)


def _count_flat_first(x, g, axis, keepdims, extreme):
    """``_count_flat`` multiplied before the count divides (hit * g / count)."""
    axes = _axes(x, axis)
    hit = x == extreme(x, axis=axes, keepdims=True)
    return hit * _back(g, x, axis, keepdims) / np.sum(hit, axis=axes)


def _whole(x, g, axis, keepdims, extreme):
    """The rule with each element compared with the whole array's extreme, not its group's: a group whose extreme
    is not it counts no tie, 0 / 0 (None where every axis is reduced: the whole array's extreme is the right one)."""
    axes = _axes(x, axis)
    if len(axes) == x.ndim:
        return None
    hit = x == extreme(x)
    with np.errstate(all="ignore"):
        return hit * (_back(g, x, axis, keepdims) / np.sum(hit, axis=axes, keepdims=True))


def _exp_of_out(x, g):
    """grad * exp(out): None where it overflows (an infinite answer tells nothing apart)."""
    with np.errstate(over="ignore"):
        wrong = g * np.exp(np.exp(x[0]))
    return wrong if np.all(np.isfinite(wrong)) else None


MISTAKES = [
    Mistake("3.1", "ops_unary.Tanh", 0, "square missing",
            "tanh's derivative is taken as 1 - tanh(x), without the square", "tanh's derivative is 1 minus the output squared",
            lambda x, g: g * (1 - np.tanh(x[0]))),
    Mistake("3.1", "ops_unary.Tanh", 0, "derivative from the input",
            "tanh's derivative is taken as 1 - x ** 2 (the input squared, not the output)",
            "square the saved output, not the input", lambda x, g: g * (1 - x[0] ** 2)),
    Mistake("3.1", "ops_unary.Sqrt", 0, "operator precedence",
            "grad / 2 * out multiplies by the output: Python reads a / 2 * b as (a / 2) * b",
            "put parentheses around the whole denominator, twice the output", lambda x, g: g / 2 * np.sqrt(x[0])),
    Mistake("3.1", "ops_unary.Sqrt", 0, "the 2 missing",
            "sqrt's derivative is taken as 1 / sqrt(x), without the 2", "divide by twice the output",
            lambda x, g: g / np.sqrt(x[0])),
    Mistake("3.1", "ops_unary.Exp", 0, "derivative from the input",
            "exp's gradient is grad times the input; exp is its own derivative", "multiply by the saved output",
            lambda x, g: g * x[0]),
    Mistake("3.1", "ops_unary.Log", 0, "times x",
            "log's gradient is grad times x; the derivative of log x is 1 / x", "divide by x",
            lambda x, g: g * x[0]),
    Mistake("3.1", "ops_unary.Cos", 0, "sign lost",
            "cos's derivative is taken as sin x; it is -sin x", "put the minus sign back", lambda x, g: g * np.sin(x[0])),
    Mistake("3.1", "ops_unary.Sin", 0, "sign added",
            "sin's derivative is taken as -cos x; it is cos x", "drop the minus sign", lambda x, g: -g * np.cos(x[0])),
    Mistake("3.1", "ops_unary.Sigmoid", 0, "factor missing",
            "sigmoid's derivative is taken as out alone; it is out * (1 - out)", "multiply by one minus the output as well",
            lambda x, g: g * _sigmoid(x[0])),
    Mistake("3.1", "ops_unary.Abs", 0, "sign of x missing",
            "abs's gradient passes grad through unchanged; where x < 0 it is -grad", "multiply by the sign of x",
            lambda x, g: g if (x[0] < 0).any() else None),
    Mistake("3.1", "ops_unary.Relu", 0, "grad not multiplied",
            "relu's gradient is its 0/1 mask alone: the upstream gradient was never multiplied in",
            "multiply grad by the mask (x > 0)", lambda x, g: (x[0] > 0).astype(np.float64)),
    Mistake("3.1", "ops_unary.Relu", 0, "mask from grad",
            "relu's mask is taken from grad, not from the input x: the gradient passes where grad > 0, not where x > 0",
            "multiply grad by the mask of the input, (x > 0)", lambda x, g: g * (g > 0)),
    Mistake("3.1", "ops_unary.Relu", 0, "1 at the kink",
            "at x = 0 the gradient passes through; the derivative there is taken to be 0, as PyTorch does",
            "let the gradient through only where x > 0, strictly",
            lambda x, g: g * (x[0] >= 0) if (x[0] == 0).any() else None),
    Mistake("3.1", "ops_unary.Abs", 0, "1 at the kink",
            "at x = 0 the gradient passes through; the derivative there is taken to be 0, as PyTorch does",
            "multiply by the sign of x, which is 0 at 0",
            lambda x, g: g * np.where(x[0] >= 0, 1.0, -1.0) if (x[0] == 0).any() else None),
    Mistake("3.1", "ops_unary.Exp", 0, "exp of the output",
            "exp's gradient takes exp of the saved output, exp(exp(x)): out already is exp(x)",
            "multiply grad by the saved output as it is", _exp_of_out),
    Mistake("3.1", "ops_unary.Tanh", 0, "tanh applied twice",
            "tanh's derivative takes tanh of the saved output again: out already is tanh(x)",
            "use 1 - out ** 2 with out as it is", lambda x, g: g * (1 - np.tanh(np.tanh(x[0])) ** 2)),
    Mistake("3.1", "ops_unary.Tanh", 0, "sigmoid's rule",
            "tanh's derivative is taken as out * (1 - out), sigmoid's rule; tanh's is 1 - out ** 2",
            "use 1 - out ** 2 with out = tanh(x)", lambda x, g: g * np.tanh(x[0]) * (1 - np.tanh(x[0]))),
    Mistake("3.1", "ops_unary.Log", 0, "grad not multiplied",
            "log's gradient is 1 / x alone: the upstream gradient was never multiplied in", "divide grad by x",
            lambda x, g: 1 / x[0]),
    Mistake("3.1", "ops_unary.Sigmoid", 0, "out missing",
            "sigmoid's derivative is taken as 1 - out alone; it is out * (1 - out)", "multiply by the output as well",
            lambda x, g: g * (1 - _sigmoid(x[0]))),
    Mistake("3.2", "ops_reduce.Mean", 0, "count missing",
            "Mean's gradient is not divided by the number of elements averaged (it is Sum's)",
            "divide by the product of the reduced axes' sizes",
            lambda x, g, axis=None, keepdims=False: np.broadcast_to(_back(g, x[0], axis, keepdims), x[0].shape)),
    Mistake("3.2", "ops_reduce.Mean", 0, "divided by every element",
            "Mean's gradient is divided by the size of the whole input, not by the count of the reduced axes",
            "divide by the number of elements averaged: the sizes of the reduced axes only, multiplied",
            lambda x, g, axis=None, keepdims=False: np.broadcast_to(_back(g, x[0], axis, keepdims), x[0].shape) / x[0].size
            if len(_axes(x[0], axis)) < x[0].ndim else None),
    Mistake("3.2", "ops_reduce.Sum", 0, "divided by the count",
            "Sum's gradient is divided by the count, as Mean's is", "Sum sends grad unchanged to every element summed",
            lambda x, g, axis=None, keepdims=False: np.broadcast_to(_back(g, x[0], axis, keepdims), x[0].shape)
            / math.prod(x[0].shape[a] for a in _axes(x[0], axis))),
    Mistake("3.3", "ops_reduce.Max", 0, "ties not shared",
            "every tied maximum gets the whole gradient; ties share it equally",
            "divide by the number of ties in each reduced group",
            lambda x, g, axis=None, keepdims=False: _shared(x[0], g, axis, keepdims, np.max, share=False)),
    Mistake("3.3", "ops_reduce.Min", 0, "ties not shared",
            "every tied minimum gets the whole gradient; ties share it equally",
            "divide by the number of ties in each reduced group",
            lambda x, g, axis=None, keepdims=False: _shared(x[0], g, axis, keepdims, np.min, share=False)),
    *[Mistake("3.3", f"ops_reduce.{op}", 0, "compared with >= or <=",
              f"the mask takes every element {side} the {word} (x {sign} out), which is every element of each group: "
              f"only the elements equal to the {word} are its extremes", "compare with ==: x == out",
              lambda x, g, axis=None, keepdims=False, e=extreme: _at_least(x[0], g, axis, keepdims, e))
      for op, side, word, sign, extreme in (("Min", "at least", "minimum", ">=", np.min),
                                            ("Max", "at most", "maximum", "<=", np.max))],
    Mistake("3.3", "ops_reduce.Max", 0, "ties counted over everything",
            "the ties are counted over the whole array, not per reduced group",
            "count the ties along the reduced axes only, keeping them as size 1",
            lambda x, g, axis=None, keepdims=False: _shared(x[0], g, axis, keepdims, np.max, count_all=True)),
    Mistake("3.3", "ops_reduce.Min", 0, "ties counted over everything",
            "the ties are counted over the whole array, not per reduced group",
            "count the ties along the reduced axes only, keeping them as size 1",
            lambda x, g, axis=None, keepdims=False: _shared(x[0], g, axis, keepdims, np.min, count_all=True)),
    # a broadcast error's shapes depend on the order of the operations (hit * (g / count) or hit * g / count): each
    # order is an entry, so that the learner's error is matched whichever they wrote
    *[Mistake("3.3", f"ops_reduce.{op}", 0, "expand_dims missing",
              "with keepdims=False the upstream gradient lacks the reduced axes, so it does not line up with x",
              "first put the reduced axes back as size 1 when keepdims was False (the step of Task 3.2)",
              lambda x, g, axis=None, keepdims=False, e=extreme, f=rule: f(x[0], g, axis, e) if not keepdims else None,
              look="the line that puts the reduced axes back on grad (np.expand_dims when keepdims is False)")
      for op, extreme in (("Max", np.max), ("Min", np.min)) for rule in (_unexpanded, _unexpanded_first)],
    *[Mistake("3.3", f"ops_reduce.{op}", 0, "ties counted without keepdims",
              "the count of ties lost the reduced axes (summed without keepdims), so it does not line up with grad",
              "count the ties along ctx.axes with keepdims=True, so the count keeps a size-1 axis where grad has one",
              lambda x, g, axis=None, keepdims=False, e=extreme, f=rule: f(x[0], g, axis, keepdims, e),
              look="the line that counts the ties (its sum along ctx.axes)")
      for op, extreme in (("Max", np.max), ("Min", np.min)) for rule in (_count_flat, _count_flat_first)],
    *[Mistake("3.3", f"ops_reduce.{op}", 0, "the whole array's extreme",
              "each element was compared with the extreme of the whole array (x.max() or x.min()), not with out, the "
              "extreme of its own group along the reduced axes: a group whose extreme is another finds no element equal "
              "to it, so it gets no gradient (its count of ties is 0, and 0 / 0 is NaN)",
              "compare x with out, the extremes forward saved (their reduced axes kept as size 1), never with x.max()",
              lambda x, g, axis=None, keepdims=False, e=extreme: _whole(x[0], g, axis, keepdims, e))
      for op, extreme in (("Max", np.max), ("Min", np.min), ("Min", np.max))],  # Min through a helper shared with Max
]
