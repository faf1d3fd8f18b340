"""Stage 2's edge cases with words of their own: a clash's ValueError must name the shapes
(Task 2.1), and Div's gradient for b where b * b overflows float32 (Task 2.3)."""

from __future__ import annotations

import numpy as np

from grader.checks.common import CheckFailure, explain
from grader.checks.numeric import numeric_vjp_relative
from grader.checks.rules import run_rule

SHAPES_FIX = ("Fix: put every shape in the message (an f-string prints a tuple as Python does, (2, 3)), so that whoever "
              "reads it sees which shapes clashed")


def _forms(shape) -> set[str]:
    """The ways a message may print a shape, spaces left out: a tuple, a list, a tuple without its comma."""
    sizes = [int(n) for n in shape]
    return {str(tuple(sizes)).replace(" ", ""), str(sizes).replace(" ", ""), "(" + ",".join(map(str, sizes)) + ")"}


def names_shapes(bad, message: str, where: str) -> None:
    """A clash's ValueError names every shape given (Task 2.1 asks for it)."""
    said = message.replace(" ", "")
    missing = [tuple(int(n) for n in s) for s in bad if not any(form in said for form in _forms(s))]
    if missing:
        listed = " and ".join(filter(None, [", ".join(str(s) for s in missing[:-1]), str(missing[-1])]))
        raise CheckFailure(f"broadcast_shapes{bad} raised ValueError, as it should, but its message does not name the "
                           f"shape{'s' if len(missing) > 1 else ''} {listed}: \"{message}\""
                           + (f" at {where}" if where else "") + f". The task asks for a ValueError that names the "
                           f"shapes. {SHAPES_FIX}", "error without the shapes")


def div_overflow(w, rng, swaps) -> None:
    """Div in float32 with a and b near 1e20, where b * b (1e40) overflows to inf: each gradient is judged to a
    thousandth of its own size (no absolute tolerance, so 0 is no answer for -a / b ** 2 near -1e-20)."""
    a = (rng.uniform(0.5, 2.0, (2, 1)) * 1e20).astype(np.float32)
    b = (rng.uniform(0.5, 2.0, (3,)) * 1e20).astype(np.float32)
    exact, upstream = [a.astype(np.float64), b.astype(np.float64)], np.ones((2, 3))
    _, grads = run_rule(w, "ops_binary.Div", [a, b], upstream.astype(np.float32), " (a and b near 1e20, float32)", swaps)
    case = "Div.backward with a and b near 1e20 in float32 (upstream ones)"
    with np.errstate(over="ignore"):  # b * b is inf here: -grad * a / (b * b) is 0
        squared = (-upstream.astype(np.float32) * a / (b * b)).sum(axis=0)
    for i in (0, 1):
        expected = numeric_vjp_relative(np.divide, exact, upstream, i)
        if i == 1 and isinstance(grads[1], np.ndarray) and grads[1].shape == squared.shape and \
                np.array_equal(grads[1], squared) and not np.allclose(squared, expected, rtol=1e-3, atol=0.0):
            raise CheckFailure(f"{case}: the gradient for input 1 is {grads[1].tolist()}, expected about "
                               f"{expected.astype(np.float32).tolist()}: b * b overflowed float32 (above 3.4e38 it is "
                               "inf, and a / inf is 0). Fix: divide by b twice, (a / b) / b, so that no intermediate "
                               "leaves float32's range", "b * b overflowed")
        explain(f"{case}: the gradient for input {i}", grads[i], expected.astype(np.float32), rtol=1e-3, atol=0.0)
