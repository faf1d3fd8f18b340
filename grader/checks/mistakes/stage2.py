"""Known mistakes of stage 2: the binary ops' backward (Task 2.3)."""

from __future__ import annotations

import numpy as np

from grader.checks.mistakes import Mistake, unbroadcast


def _both(a, b):
    return np.broadcast_arrays(a, b)


MISTAKES = [
    Mistake("2.3", "ops_binary.Mul", 0, "gradients swapped",
            "a's gradient is grad times a, the input itself: the two inputs' gradients are swapped",
            "d(a*b)/da is b: a's gradient is unbroadcast(grad * b, a.shape), b's is unbroadcast(grad * a, b.shape)",
            lambda x, g: unbroadcast(g * x[0], x[0].shape)),
    Mistake("2.3", "ops_binary.Mul", 1, "gradients swapped",
            "b's gradient is grad times b, the input itself: the two inputs' gradients are swapped",
            "d(a*b)/db is a: b's gradient is unbroadcast(grad * a, b.shape)",
            lambda x, g: unbroadcast(g * x[1], x[1].shape)),
    Mistake("2.3", "ops_binary.Mul", 0, "missing unbroadcast",
            "a's gradient is grad * b in the output's shape, not summed back to a's shape",
            "sum it back to a's shape: unbroadcast(grad * b, a.shape)",
            lambda x, g: g * x[1] if np.shape(g * x[1]) != x[0].shape else None),
    Mistake("2.3", "ops_binary.Sub", 1, "sign lost on b",
            "b's gradient has lost its minus sign (a - b falls as b grows), while a's is right",
            "b's gradient is unbroadcast(-grad, b.shape)",
            lambda x, g: unbroadcast(np.broadcast_to(g, np.broadcast_shapes(x[0].shape, x[1].shape)), x[1].shape)),
    Mistake("2.3", "ops_binary.Sub", 0, "sign on the wrong input",
            "a's gradient carries the minus sign that belongs to b's",
            "a's gradient is unbroadcast(grad, a.shape); only b's is negated",
            lambda x, g: unbroadcast(-np.broadcast_to(g, np.broadcast_shapes(x[0].shape, x[1].shape)), x[0].shape)),
    Mistake("2.3", "ops_binary.Div", 1, "b not squared",
            "b's gradient is -grad * a / b: the quotient rule divides by b squared",
            "b's gradient is unbroadcast(-grad * a / (b * b), b.shape)",
            lambda x, g: unbroadcast(-g * x[0] / x[1], x[1].shape)),
    Mistake("2.3", "ops_binary.Div", 1, "sign lost on b",
            "b's gradient has lost its minus sign (a / b falls as b grows), while a's is right",
            "b's gradient is unbroadcast(-grad * a / (b * b), b.shape)",
            lambda x, g: unbroadcast(g * x[0] / (x[1] * x[1]), x[1].shape)),
    Mistake("2.3", "ops_binary.Div", 0, "a's gradient times b",
            "a's gradient is grad * b: the derivative of a / b with respect to a is 1 / b",
            "a's gradient is unbroadcast(grad / b, a.shape)",
            lambda x, g: unbroadcast(g * x[1], x[0].shape)),
    Mistake("2.3", "ops_binary.Pow", 0, "exponent not lowered",
            "a's gradient is b * a ** b: the power rule lowers the exponent by one",
            "a's gradient is grad * b * a ** (b - 1) (0 where b is 0)",
            lambda x, g: unbroadcast(g * x[1] * np.power(x[0], x[1]), x[0].shape)),
    Mistake("2.3", "ops_binary.Pow", 1, "log missing",
            "b's gradient is grad * a ** b without the log(a) factor: d(a ** b)/db is a ** b * log(a)",
            "b's gradient is grad * out * log(a) (0 where a is 0)",
            lambda x, g: unbroadcast(g * np.power(x[0], x[1]), x[1].shape)),
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
