"""Known mistakes of stage 1's values: central_difference (Task 1.1) and the scalar ops'
local derivatives (Task 1.2). The engine's (Tasks 1.3 and 1.4) are in ``stage1_engine.py``.

Sites and the names of their cases:

* ``"central difference"``: ``f``, the name of a function both kinds of check call
  (``FUNCTIONS``: the probes' "sin", "square", "poly" and the notebook's "product" and
  "exp5"), ``values`` (the point), ``arg`` and ``eps`` (always given, defaults included).
  A mistake gives the number the mistake returns.
* ``"scalar backward"``: ``op``, the operation as the checks write it ("a * b", "2 - a",
  "a.tanh()", a key of ``FORMS``), ``point`` (its inputs' values) and ``g`` (the upstream
  gradient). A mistake gives the array of what the op's node hands each input, in order.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from grader.checks.mistakes import ValueMistake

FUNCTIONS: dict[str, Callable[..., float]] = {
    "sin": math.sin, "square": lambda x: x * x, "poly": lambda a, b, c: a * b * b + c,
    "product": lambda a, b: a * b, "exp5": lambda v: math.exp(5 * v),
}


def _nudged(values, arg, eps, which):
    """The point with ``values[arg]`` (every value, for ``which`` "all") moved by ``eps``."""
    moved = list(values)
    for i in (range(len(moved)) if which == "all" else [arg]):
        moved[i] = moved[i] + eps
    return moved


def _difference(f, values, arg, eps, *, step=2.0, right=True, left=True, which="arg"):
    """(f(x + eps) - f(x - eps)) / (step eps), with either side left at x when not ``right``/``left``."""
    function = FUNCTIONS[f]
    up = function(*_nudged(values, arg, eps if right else 0.0, which))
    down = function(*_nudged(values, arg, -eps if left else 0.0, which))
    return (up - down) / (step * eps)


CENTRAL = [
    ValueMistake("1.1", "central difference", "one-sided difference",
                 "it is a one-sided difference, (f(x + eps) - f(x)) / eps, whose error shrinks only like eps",
                 "nudge both ways: (f(x + eps) - f(x - eps)) / (2 * eps)",
                 lambda f, values, arg, eps: _difference(f, values, arg, eps, step=1.0, left=False)),
    ValueMistake("1.1", "central difference", "one-sided difference",
                 "it is a one-sided difference, (f(x) - f(x - eps)) / eps, whose error shrinks only like eps",
                 "nudge both ways: (f(x + eps) - f(x - eps)) / (2 * eps)",
                 lambda f, values, arg, eps: _difference(f, values, arg, eps, step=1.0, right=False)),
    ValueMistake("1.1", "central difference", "divided by eps",
                 "it is twice the slope: the two points x + eps and x - eps are 2 eps apart, but the difference was divided "
                 "by eps", "divide the difference by twice eps",
                 lambda f, values, arg, eps: _difference(f, values, arg, eps, step=1.0)),
    ValueMistake("1.1", "central difference", "eps missing",
                 "it is the slope times eps: the difference was divided by 2, not by twice eps (the distance between "
                 "the two points)", "divide the difference by twice eps",
                 lambda f, values, arg, eps: _difference(f, values, arg, eps) * eps),
    ValueMistake("1.1", "central difference", "every argument nudged",
                 "every value was nudged, not only values[arg]: that is the slope along all the arguments at once",
                 "change only the value at position arg in each copy; leave every other value alone",
                 lambda f, values, arg, eps: _difference(f, values, arg, eps, which="all") if len(values) > 1 else None),
    ValueMistake("1.1", "central difference", "arg ignored",
                 "the first value was nudged whatever arg says: that is the slope along values[0]",
                 "nudge the value at position arg, not at position 0",
                 lambda f, values, arg, eps: _difference(f, values, 0, eps) if arg != 0 else None),
    ValueMistake("1.1", "central difference", "one list for both points",
                 "it is 0: f was called twice at the same point: the two nudged points are one and the same list under "
                 "two names, or both were nudged the same way", "make two separate copies of the values, one nudged up "
                 "(+ eps) and one nudged down (- eps)",
                 lambda f, values, arg, eps: 0.0),
    ValueMistake("1.1", "central difference", "operator precedence",
                 "it is the slope times eps squared: (up - down) / 2 * eps divides by 2 and then multiplies by eps, as Python "
                 "reads it from left to right", "put the whole divisor in parentheses: divide by (2 * eps)",
                 lambda f, values, arg, eps: _difference(f, values, arg, eps) * eps * eps),
]

# Each op as the checks write it: its primitive and the primitive's arguments, where "a" and
# "b" are the op's inputs and a number is a constant (the exponent of a power is no input).
FORMS = {
    "a + b": ("add", ("a", "b")), "a + 2": ("add", ("a", 2.0)), "a - b": ("sub", ("a", "b")),
    "2 - a": ("sub", (2.0, "a")), "a * b": ("mul", ("a", "b")), "3 * a": ("mul", (3.0, "a")),
    "a / b": ("div", ("a", "b")), "2 / a": ("div", (2.0, "a")), "-a": ("neg", ("a",)),
    "a ** 3": ("pow", ("a", 3.0)), "a ** -0.5": ("pow", ("a", -0.5)), "a ** 0": ("pow", ("a", 0.0)),
    "a.exp()": ("exp", ("a",)), "a.log()": ("log", ("a",)), "a.sin()": ("sin", ("a",)), "a.cos()": ("cos", ("a",)),
    "a.tanh()": ("tanh", ("a",)), "a.sigmoid()": ("sigmoid", ("a",)), "a.relu()": ("relu", ("a",)),
}


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


def _handed(primitives, rule):
    """A mistake of the scalar ops: ``rule(g, *arguments)`` is what the wrong backward of one of
    ``primitives`` returns for its arguments; the mistake gives each input's share of it."""
    def wrong(op, point, g):
        primitive, arguments = FORMS.get(op, ("", ()))
        if primitive not in primitives:
            return None
        names = [a for a in arguments if isinstance(a, str)]
        values = [float(point[names.index(a)]) if isinstance(a, str) else a for a in arguments]
        grads = rule(float(g), *values)
        if grads is None:
            return None
        return np.array([sum(grads[i] for i, a in enumerate(arguments) if a == name) for name in ("a", "b")[:len(point)]])
    return wrong


_FROM_INPUT = {"exp": lambda g, a: g * a, "tanh": lambda g, a: g * (1 - a * a), "sigmoid": lambda g, a: g * a * (1 - a)}


def _from_input(op, point, g):
    """exp', tanh' and sigmoid' written with the input a in place of the output."""
    primitive, _ = FORMS.get(op, ("", ()))
    return np.array([_FROM_INPUT[primitive](float(g), float(point[0]))]) if primitive in _FROM_INPUT else None


SCALAR = [
    ValueMistake("1.2", "scalar backward", "sign lost on b",
                 "b's gradient has lost its minus sign (a - b falls as b grows)",
                 "return g for a and minus g for b", _handed({"sub"}, lambda g, a, b: (g, g))),
    ValueMistake("1.2", "scalar backward", "gradients swapped",
                 "each input's gradient is g times that input itself: the two gradients of a * b are swapped",
                 "the derivative of a * b with respect to a is b: a gets g * b.data, and b gets g * a.data",
                 _handed({"mul"}, lambda g, a, b: (g * a, g * b))),
    ValueMistake("1.2", "scalar backward", "b not squared",
                 "b's gradient is -g * a / b: the quotient rule divides by b squared",
                 "the quotient rule: b gets minus g times a, over b squared", _handed({"div"}, lambda g, a, b: (g / b, -g * a / b))),
    ValueMistake("1.2", "scalar backward", "exponent not lowered",
                 "the gradient is g * c * a ** c: the power rule lowers the exponent by one",
                 "lower the exponent by one: g * c * a ** (c - 1), and 0 when c is 0",
                 _handed({"pow"}, lambda g, a, c: (g * c * a ** c, 0.0))),
    ValueMistake("1.2", "scalar backward", "0 ** -1 for c = 0",
                 "for c = 0 the rule computed a ** (c - 1), which raises at a = 0 (0.0 cannot be raised to a negative power)",
                 "give 0 when c is 0 (a ** 0 is the constant 1), before computing a ** (c - 1)",
                 _handed({"pow"}, lambda g, a, c: (g * c * a ** (c - 1.0), 0.0) if c == 0 and a == 0 else None)),
    ValueMistake("1.2", "scalar backward", "sign added",
                 "the gradient is -g * cos(a): the derivative of sin is cos, with no minus sign", "sin' is cos, no minus: g * cos(a)",
                 _handed({"sin"}, lambda g, a: (-g * math.cos(a),))),
    ValueMistake("1.2", "scalar backward", "sign lost",
                 "the gradient is g * sin(a): the derivative of cos is minus sin", "cos has a minus sign: -g * sin(a)",
                 _handed({"cos"}, lambda g, a: (g * math.sin(a),))),
    ValueMistake("1.2", "scalar backward", "square missing",
                 "the gradient is g * (1 - tanh(a)): the derivative of tanh is 1 - tanh squared", "use 1 - out^2, out = tanh(a)",
                 _handed({"tanh"}, lambda g, a: (g * (1 - math.tanh(a)),))),
    ValueMistake("1.2", "scalar backward", "factor missing",
                 "the gradient is g * sigmoid(a): the derivative of the sigmoid is out (1 - out)", "multiply by out (1 - out)",
                 _handed({"sigmoid"}, lambda g, a: (g * _sigmoid(a),))),
    ValueMistake("1.2", "scalar backward", "derivative from the input",
                 "the derivative was computed from the input a where it needs the output out",
                 "use out, the output's value, not the input: exp' is out, tanh' is 1 - out^2, sigmoid' is out (1 - out)",
                 _from_input),
    ValueMistake("1.2", "scalar backward", "times x",
                 "the gradient is g * a: the derivative of log(a) is 1 / a", "divided by a: g / a.data",
                 _handed({"log"}, lambda g, a: (g * a,))),
    ValueMistake("1.2", "scalar backward", "minus lost on the quotient's b",
                 "b's gradient is g * a / b^2 without its minus sign: the derivative of a / b with respect to b is -a / b^2",
                 "b gets minus g times a, over b squared", _handed({"div"}, lambda g, a, b: (g / b, g * a / (b * b)))),
    ValueMistake("1.2", "scalar backward", "a's gradient times b",
                 "a's gradient is g * b: the derivative of a / b with respect to a is 1 / b", "a gets g divided by b",
                 _handed({"div"}, lambda g, a, b: (g * b, -g * a / (b * b)))),
    ValueMistake("1.2", "scalar backward", "g missing from log's gradient",
                 "log's gradient is 1 / a alone: the upstream gradient g was never multiplied in", "g divided by a",
                 _handed({"log"}, lambda g, a: (1 / a,))),
    ValueMistake("1.2", "scalar backward", "g missing from exp's gradient",
                 "exp's gradient is out alone: the upstream gradient g was never multiplied in", "g times out",
                 _handed({"exp"}, lambda g, a: (math.exp(a),))),
    ValueMistake("1.2", "scalar backward", "cos of g",
                 "sin's gradient is cos(g): the cosine is taken of the upstream gradient, not of the input",
                 "g times the cosine of a", _handed({"sin"}, lambda g, a: (math.cos(g),))),
    ValueMistake("1.2", "scalar backward", "1 at the kink",
                 "at exactly a = 0 relu's gradient came back as g: there the derivative is taken to be 0",
                 "relu' is 1 only where a > 0 (strictly), 0 at a = 0", _handed({"relu"}, lambda g, a: (g,) if a == 0 else None)),
]

VALUE_MISTAKES = CENTRAL + SCALAR
