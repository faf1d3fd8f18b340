"""Numerical derivatives: the yardstick every analytic gradient is measured against.

Task 1.1 lives here. Nothing in this module knows about Scalars or Tensors: it works on
plain Python functions of plain numbers, so it can check anything.
"""

from __future__ import annotations

from typing import Callable


def central_difference(f: Callable[..., float], *values, arg: int = 0,
                       eps: float = 1e-6) -> float:
    """Estimate d f / d values[arg] numerically.

    The central difference evaluates ``f`` twice, once with ``values[arg]`` nudged up by
    ``eps`` and once nudged down by ``eps``, every other argument unchanged:

        (f(..., x + eps, ...) - f(..., x - eps, ...)) / (2 * eps)

    Its error shrinks like eps**2, where the one-sided difference only shrinks like eps.

    Args:
        f: a function of ``len(values)`` numbers returning a number.
        values: the point at which to differentiate (numbers). ``*values`` carries no
            annotation: JupyterLab's Python mode mis-indents the lines below one.
        arg: which argument to differentiate with respect to.
        eps: the step.
    """
    if not 0 <= arg < len(values):
        raise IndexError(f"arg={arg} but f was given {len(values)} value(s)")
    # Task 1.1: central_difference
    raise NotImplementedError("Task 1.1: central_difference")
