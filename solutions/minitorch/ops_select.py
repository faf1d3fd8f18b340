"""Selection: ``where(condition, a, b)``, NumPy's ``where`` with broadcasting all three.

A worked example, given: the gradient goes to ``a`` where the condition holds and to ``b``
elsewhere, and each part is summed back to its input's shape, as for any broadcast input.
The condition is a constant (a boolean array, or a Tensor's data): it gets no gradient.

=======  =====================================  ========================================
op       forward saves                          backward returns
=======  =====================================  ========================================
Where    the condition, the input shapes        grad where it holds (for a), elsewhere
                                                (for b), each unbroadcast
=======  =====================================  ========================================
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .function import Context, Function
from .shapes import unbroadcast
from .tensor import Tensor


class Where(Function):
    """out = a where ``condition`` holds, else b (all three broadcast)."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray, condition: np.ndarray) -> np.ndarray:
        ctx.condition, ctx.shapes = condition, (a.shape, b.shape)
        return np.where(condition, a, b)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a_shape, b_shape = ctx.shapes
        zero = np.zeros((), dtype=grad.dtype)
        to_a = to_b = None  # stays None for an input that needs no gradient (a constant)
        if ctx.needs_input_grad[0]:
            to_a = unbroadcast(np.where(ctx.condition, grad, zero), a_shape)
        if ctx.needs_input_grad[1]:
            to_b = unbroadcast(np.where(ctx.condition, zero, grad), b_shape)
        return to_a, to_b


def where(condition: Any, a: Any, b: Any) -> Tensor:
    """``a`` where ``condition`` is true, else ``b``; the condition gets no gradient."""
    condition = np.asarray(condition.data if isinstance(condition, Tensor) else condition, dtype=bool)
    return Where.apply(a, b, condition=condition)
