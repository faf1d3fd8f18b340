"""Known mistakes of stage 2: unbroadcast (Task 2.2, a value: site "unbroadcast" with the
case's ``grad`` and ``shape``) and the binary ops' backward (Task 2.3). broadcast_shapes'
(Task 2.1) are in ``stage2_broadcast.py``."""

from __future__ import annotations

import numpy as np

from grader.checks.mistakes import Mistake, ValueMistake, unbroadcast


def _both(a, b):
    return np.broadcast_arrays(a, b)


def _log_alone(x, g):
    """b's gradient of a ** b without its factor out = a ** b: grad * log(a) (0 where a = 0 and b >= 0)."""
    a, b = _both(*x)
    with np.errstate(all="ignore"):
        return unbroadcast(g * np.where((a == 0) & (b >= 0), 0.0, np.log(a)), x[1].shape)


def _b_wins_at_ties(x, g, a_wins):
    """b's gradient of a maximum or minimum where b "wins" wherever a does not, ties included, and also gets its half
    of a tie: 1.5 grad at a tie (None without a tie)."""
    a, b = _both(*x)
    if not (a == b).any():
        return None
    return unbroadcast(g * ~a_wins(a, b) + g * (a == b) * 0.5, x[1].shape)


def _log_of_abs(x, g):
    """b's gradient of a ** b with log(|a|) for log(a): a number where a < 0 (None where no base is negative)."""
    a, b = x
    if not (a < 0).any():
        return None
    with np.errstate(all="ignore"):
        log = np.where((a == 0) & (b >= 0), 0.0, np.log(np.abs(a)))
        return unbroadcast(g * np.power(a, b) * log, b.shape)


MISTAKES = [
    Mistake("2.3", "ops_binary.Mul", 0, "gradients swapped",
            "a's gradient is grad times a, the input itself: the two inputs' gradients are swapped",
            "the derivative of a * b with respect to a is b: a's gradient uses b, and b's uses a",
            lambda x, g: unbroadcast(g * x[0], x[0].shape)),
    Mistake("2.3", "ops_binary.Mul", 1, "gradients swapped",
            "b's gradient is grad times b, the input itself: the two inputs' gradients are swapped",
            "the derivative of a * b with respect to b is a: b's gradient uses a, and a's uses b",
            lambda x, g: unbroadcast(g * x[1], x[1].shape)),
    Mistake("2.3", "ops_binary.Mul", 0, "missing unbroadcast",
            "a's gradient is grad * b in the output's shape, not summed back to a's shape",
            "sum it back to a's shape with unbroadcast",
            lambda x, g: g * x[1] if np.shape(g * x[1]) != x[0].shape else None),
    Mistake("2.3", "ops_binary.Mul", 1, "missing unbroadcast",
            "b's gradient is grad * a in the output's shape, not summed back to b's shape",
            "sum it back to b's shape with unbroadcast",
            lambda x, g: g * x[0] if np.shape(g * x[0]) != x[1].shape else None),
    Mistake("2.3", "ops_binary.Sub", 1, "sign lost on b",
            "b's gradient has lost its minus sign (a - b falls as b grows), while a's is right",
            "negate b's gradient (only b's), then sum it back to b's shape",
            lambda x, g: unbroadcast(np.broadcast_to(g, np.broadcast_shapes(x[0].shape, x[1].shape)), x[1].shape)),
    Mistake("2.3", "ops_binary.Sub", 0, "sign on the wrong input",
            "a's gradient carries the minus sign that belongs to b's",
            "a's gradient is the upstream gradient as it is; only b's is negated",
            lambda x, g: unbroadcast(-np.broadcast_to(g, np.broadcast_shapes(x[0].shape, x[1].shape)), x[0].shape)),
    Mistake("2.3", "ops_binary.Div", 1, "b not squared",
            "b's gradient is -grad * a / b: the quotient rule divides by b squared",
            "the quotient rule: minus the upstream gradient times a, over b squared",
            lambda x, g: unbroadcast(-g * x[0] / x[1], x[1].shape)),
    Mistake("2.3", "ops_binary.Div", 1, "sign lost on b",
            "b's gradient has lost its minus sign (a / b falls as b grows), while a's is right",
            "the quotient rule: minus the upstream gradient times a, over b squared",
            lambda x, g: unbroadcast(g * x[0] / (x[1] * x[1]), x[1].shape)),
    Mistake("2.3", "ops_binary.Div", 1, "a missing from b's gradient",
            "b's gradient is -grad / b^2, without the factor a: the derivative of a / b with respect to b is -a / b^2",
            "multiply by a as well: minus the upstream gradient times a, over b squared",
            lambda x, g: unbroadcast(-g / (x[1] * x[1]), x[1].shape)),
    Mistake("2.3", "ops_binary.Div", 0, "a's gradient times b",
            "a's gradient is grad * b: the derivative of a / b with respect to a is 1 / b",
            "divide by b, do not multiply",
            lambda x, g: unbroadcast(g * x[1], x[0].shape)),
    Mistake("2.3", "ops_binary.Pow", 0, "exponent not lowered",
            "a's gradient is b * a ** b: the power rule lowers the exponent by one",
            "lower the exponent by one in a's gradient (and give 0 where b is 0)",
            lambda x, g: unbroadcast(g * x[1] * np.power(x[0], x[1]), x[0].shape)),
    Mistake("2.3", "ops_binary.Pow", 0, "factor b missing",
            "a's gradient is grad * a ** (b - 1): the power rule's factor b is missing",
            "multiply by b as well: b * a ** (b - 1) (and give 0 where b is 0)",
            lambda x, g: unbroadcast(g * np.power(x[0], x[1] - 1), x[0].shape)),
    Mistake("2.3", "ops_binary.Pow", 1, "log missing",
            "b's gradient is grad * a ** b without the log(a) factor: d(a ** b)/db is a ** b * log(a)",
            "multiply by the log of a (and give 0 where a is 0)",
            lambda x, g: unbroadcast(g * np.power(x[0], x[1]), x[1].shape)),
    Mistake("2.3", "ops_binary.Pow", 1, "log of |a|",
            "b's gradient takes the log of |a|: for a negative base that is a number, where a ** b * log(a) is NaN (the "
            "log of a negative number), as PyTorch gives",
            "take the log of a itself (a negative base gives NaN there, as in PyTorch); only a = 0 with b >= 0 gives 0",
            _log_of_abs),
    Mistake("2.3", "ops_binary.Pow", 1, "factor out missing",
            "b's gradient is grad * log(a), without the factor out = a ** b: d(a ** b)/db is a ** b * log(a)",
            "multiply by out (a ** b) as well (and give 0 where a is 0 and b >= 0)", _log_alone),
    *[Mistake("2.3", f"ops_binary.{op}", 1, "b's whole gradient at a tie too",
              "at a tie (a == b) b gets the whole gradient as well as its half (b taken to win wherever a does not, "
              "ties included); each side should get half",
              "b wins only where a neither wins nor ties: at a tie it gets half, as a does",
              lambda x, g, w=wins: _b_wins_at_ties(x, g, w))
      for op, wins in (("Maximum", np.greater), ("Minimum", np.less))],
    Mistake("2.3", "ops_binary.Maximum", 0, "ties not split",
            "at a tie (a == b) a gets the whole gradient; each side should get half",
            "where a == b give each input grad / 2 (_split_by_winner's tie)",
            lambda x, g: unbroadcast(g * (_both(*x)[0] >= _both(*x)[1]), x[0].shape)
            if (_both(*x)[0] == _both(*x)[1]).any() else None),
    Mistake("2.3", "ops_binary.Minimum", 0, "ties not split",
            "at a tie (a == b) a gets the whole gradient; each side should get half",
            "where a == b give each input grad / 2 (_split_by_winner's tie)",
            lambda x, g: unbroadcast(g * (_both(*x)[0] <= _both(*x)[1]), x[0].shape)
            if (_both(*x)[0] == _both(*x)[1]).any() else None),
    Mistake("2.3", "ops_binary.Maximum", 1, "ties counted twice",
            "at a tie (a == b) both inputs get the whole gradient; each side should get half",
            "where a == b give each input grad / 2 (_split_by_winner's tie)",
            lambda x, g: unbroadcast(g * (_both(*x)[1] >= _both(*x)[0]), x[1].shape)
            if (_both(*x)[0] == _both(*x)[1]).any() else None),
]


def _stretched(grad, shape):
    """The leading axes ``grad`` has and ``shape`` lacks, and the size-1 axes of ``shape`` grad stretched."""
    lead = grad.ndim - len(shape)
    return tuple(range(lead)), tuple(lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1)


def _no_keepdims(grad, shape):
    lead, ones = _stretched(np.asarray(grad), tuple(shape))
    return np.asarray(grad).sum(axis=lead + ones) if ones else None


def _leading_only(grad, shape):
    lead, ones = _stretched(np.asarray(grad), tuple(shape))
    return np.asarray(grad).sum(axis=lead) if ones else None


def _leading_only_reshaped(grad, shape):
    """The leading axes summed and none of the size-1 axes of shape (the 1s looked for in grad, where
    they are stretched already), then reshaped to shape: the reshape raises."""
    lead, ones = _stretched(np.asarray(grad), tuple(shape))
    return np.asarray(grad).sum(axis=lead).reshape(shape) if ones else None


def _ones_only(grad, shape):
    lead, ones = _stretched(np.asarray(grad), tuple(shape))
    return np.asarray(grad).sum(axis=ones, keepdims=True) if lead else None


def _mean(grad, shape):
    lead, ones = _stretched(np.asarray(grad), tuple(shape))
    return np.asarray(grad).mean(axis=lead + ones, keepdims=True).reshape(shape) if lead + ones else None


def _from_the_left(grad, shape):
    grad = np.asarray(grad)
    if grad.ndim == len(shape):
        return None
    return grad.sum(axis=tuple(range(len(shape), grad.ndim)))


def _trailing_reshaped(grad, shape):
    """The last grad.ndim - len(shape) axes summed, the size-1 axes of shape summed (kept), then
    reshaped to shape: a reshape that raises where the sizes no longer match."""
    grad, shape = np.asarray(grad), tuple(shape)
    extra = grad.ndim - len(shape)
    if not extra:
        return None
    out = grad.sum(axis=tuple(range(-extra, 0)))
    ones = tuple(i for i, n in enumerate(shape) if n == 1 and i < out.ndim and out.shape[i] != 1)
    return (out.sum(axis=ones, keepdims=True) if ones else out).reshape(shape)


def _one_axis_too_many(grad, shape):
    """The first grad.ndim - len(shape) + 1 axes summed (range(extra + 1)), then reshaped to
    shape: the first axis shape keeps is gone, so the reshape raises (for shape (), the sum: one
    axis more than grad has). Only where shape has no 1
    (there the ways of writing it part: a sum with keepdims, a loop over the size-1 axes)."""
    grad, shape = np.asarray(grad), tuple(shape)
    extra = grad.ndim - len(shape)
    if not extra or 1 in shape:
        return None
    return grad.sum(axis=tuple(range(extra + 1))).reshape(shape)


def _ones_inverted(grad, shape):
    """The leading axes summed, then the axes where shape is NOT 1 (and grad's is not 1) summed with keepdims, where
    the axes where shape has a 1 belong (the condition inverted), then reshaped to shape: mostly the reshape raises."""
    grad, shape = np.asarray(grad), tuple(shape)
    extra = grad.ndim - len(shape)
    out = grad.sum(axis=tuple(range(extra))) if extra else grad
    axes = tuple(i for i, n in enumerate(shape) if n != 1 and out.shape[i] != 1)
    if not axes:
        return None
    return out.sum(axis=axes, keepdims=True).reshape(shape)


VALUE_MISTAKES = [
    ValueMistake("2.2", "unbroadcast", "size-1 condition inverted",
                 "the axes summed besides the leading ones are those where shape is not 1: the condition that picks the "
                 "size-1 axes is inverted (n != 1 where it should be n == 1), so the axes shape keeps were summed and "
                 "the stretched ones were not", "sum the axes where shape has a 1 and grad does not (n == 1), with "
                 "keepdims, besides the leading ones", _ones_inverted,
                 look="the condition that picks the axes where shape has a 1"),
    ValueMistake("2.2", "unbroadcast", "one axis too many summed",
                 "one axis too many was summed: range(grad.ndim - len(shape) + 1) takes the first axis that shape keeps "
                 "as well as the leading ones, so the sum lost an axis it should keep and the reshape to shape fails",
                 "sum exactly the grad.ndim - len(shape) leading axes, range(grad.ndim - len(shape)), and the axes "
                 "where shape has a 1", _one_axis_too_many, look="the range of leading axes summed"),
    ValueMistake("2.2", "unbroadcast", "trailing axes summed",
                 "the last grad.ndim - len(shape) axes were summed, where the leading ones belong (shapes line up from "
                 "the right), so what is left does not fit shape",
                 "sum the leading axes, range(grad.ndim - len(shape)), and the axes where shape has a 1 (keepdims)",
                 _trailing_reshaped),
    ValueMistake("2.2", "unbroadcast", "size-1 axes dropped",
                 "the size-1 axes of shape are gone from the result: summed without keepdims, or squeezed away afterwards "
                 "(a squeeze drops every size-1 axis)",
                 "keep them as size 1: sum those axes with keepdims=True and squeeze nothing (or reshape the sum to shape)",
                 _no_keepdims),
    ValueMistake("2.2", "unbroadcast", "leading axes only",
                 "only the leading axes were summed away; the axes where shape has a 1 are still stretched",
                 "also sum the axes where shape has a 1 and grad does not, keeping them as size 1", _leading_only),
    ValueMistake("2.2", "unbroadcast", "leading axes only",
                 "only the leading axes were summed: the axes where shape has a 1 and grad does not are still stretched, so "
                 "the reshape to shape fails (the 1s to look for are shape's: in grad those axes are already stretched)",
                 "also sum the axes where shape has a 1 and grad does not, keeping them as size 1", _leading_only_reshaped,
                 look="which axes are summed: those where shape has a 1 and grad does not"),
    ValueMistake("2.2", "unbroadcast", "leading axes kept",
                 "the leading axes that grad has and shape lacks are still there: they were not summed away",
                 "also sum the leading axes away (grad has grad.ndim - len(shape) more axes than shape)", _ones_only),
    ValueMistake("2.2", "unbroadcast", "mean instead of sum",
                 "the stretched axes were averaged: each copy of an input sends its whole gradient back, so they add up",
                 "sum over the stretched axes, do not take the mean", _mean),
    ValueMistake("2.2", "unbroadcast", "aligned from the left",
                 "the trailing axes were summed away: shapes line up from the right, so the leading axes are the extra ones",
                 "sum the leading grad.ndim - len(shape) axes, aligned from the right", _from_the_left),
]
