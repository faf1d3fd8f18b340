"""Binary elementwise operations, with NumPy broadcasting both ways.

Every input that was broadcast in the forward pass fed many outputs, so its gradient is
the sum over the stretched axes: each backward here ends with ``unbroadcast``.

==============  ======================  ============================================
op              forward saves           backward returns (Task 2.3)
==============  ======================  ============================================
Add  a + b      the input shapes        d/da, d/db, each summed to its input's shape
Sub  a - b      the input shapes
Mul  a * b      a, b
Div  a / b      a, b
Pow  a ** b     a, b, out               (b may be a tensor or a number)
Maximum         a, b                    at a tie each side gets half
Minimum         a, b                    at a tie each side gets half
==============  ======================  ============================================
"""

from __future__ import annotations

import numpy as np

from .function import Context, Function
from .shapes import check_broadcast, unbroadcast


class Add(Function):
    """out = a + b, broadcast. The worked example: the other rules follow its pattern."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        check_broadcast("add", a.shape, b.shape)
        ctx.shapes = a.shape, b.shape
        return a + b

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a_shape, b_shape = ctx.shapes
        # d(a + b)/da = 1 and d(a + b)/db = 1: the gradient passes through unchanged,
        # then each input's copy is summed back to that input's shape.
        return unbroadcast(grad, a_shape), unbroadcast(grad, b_shape)


class Sub(Function):
    """out = a - b, broadcast."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        check_broadcast("sub", a.shape, b.shape)
        ctx.shapes = a.shape, b.shape
        return a - b

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a_shape, b_shape = ctx.shapes
        # Task 2.3: Sub.backward
        ### BEGIN SOLUTION
        return unbroadcast(grad, a_shape), unbroadcast(-grad, b_shape)
        ### END SOLUTION


class Mul(Function):
    """out = a * b, broadcast."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        check_broadcast("mul", a.shape, b.shape)
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = ctx.saved
        # Task 2.3: Mul.backward
        ### BEGIN SOLUTION
        return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)
        ### END SOLUTION


class Div(Function):
    """out = a / b, broadcast."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        check_broadcast("div", a.shape, b.shape)
        ctx.save_for_backward(a, b)
        return a / b

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = ctx.saved
        # Task 2.3: Div.backward
        ### BEGIN SOLUTION
        return unbroadcast(grad / b, a.shape), unbroadcast(-grad * (a / b) / b, b.shape)
        ### END SOLUTION


class Pow(Function):
    """out = a ** b, broadcast; b may be a tensor.

    Where b == 0 the gradient for a is 0 (a**0 is the constant 1, even at a = 0). Where
    a == 0 and b >= 0 the gradient for b is 0 (the limit of a**b * log(a)); elsewhere a
    negative a gives NaN for b's gradient, as in PyTorch.
    """

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        check_broadcast("pow", a.shape, b.shape)
        out = a ** b
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        a, b, out = ctx.saved
        # Task 2.3: Pow.backward
        ### BEGIN SOLUTION
        with np.errstate(divide="ignore", invalid="ignore"):
            grad_a = grad * np.where(b == 0, 0, b * a ** (b - 1)).astype(grad.dtype, copy=False)
            grad_b = None
            if ctx.needs_input_grad[1]:
                log_a = np.where((a == 0) & (b >= 0), 0, np.log(a))
                grad_b = unbroadcast(grad * (out * log_a).astype(grad.dtype, copy=False), b.shape)
        return unbroadcast(grad_a, a.shape), grad_b
        ### END SOLUTION


class Maximum(Function):
    """out = maximum(a, b) elementwise, broadcast. At a tie, each input gets half."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        check_broadcast("maximum", a.shape, b.shape)
        ctx.save_for_backward(a, b)
        return np.maximum(a, b)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = ctx.saved
        return _split_by_winner(grad, a > b, a == b, a.shape, b.shape)


class Minimum(Function):
    """out = minimum(a, b) elementwise, broadcast. At a tie, each input gets half."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        check_broadcast("minimum", a.shape, b.shape)
        ctx.save_for_backward(a, b)
        return np.minimum(a, b)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = ctx.saved
        return _split_by_winner(grad, a < b, a == b, a.shape, b.shape)


def _split_by_winner(grad: np.ndarray, a_wins: np.ndarray, tie: np.ndarray,
                     a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Route ``grad`` to whichever input was chosen (``a_wins`` where a was, neither where
    they tie), split it in half at a tie, and sum each part back to its input's shape."""
    # Task 2.3: _split_by_winner (Maximum.backward and Minimum.backward, given, call it)
    ### BEGIN SOLUTION
    half = grad * tie * 0.5  # bool and Python float keep grad's dtype
    to_a = grad * a_wins + half
    to_b = grad - to_a  # where b won, or the other half of a tie
    return unbroadcast(to_a, a_shape), unbroadcast(to_b, b_shape)
    ### END SOLUTION


def add(a, b): return Add.apply(a, b)
def sub(a, b): return Sub.apply(a, b)
def mul(a, b): return Mul.apply(a, b)
def div(a, b): return Div.apply(a, b)
def pow(a, b): return Pow.apply(a, b)  # noqa: A001 - the name PyTorch uses
def maximum(a, b): return Maximum.apply(a, b)
def minimum(a, b): return Minimum.apply(a, b)
