"""logsumexp, log_softmax and softmax, computed so that large inputs cannot overflow.

exp(1000) is inf in floating point, so ``log(sum(exp(x)))`` fails for large x. Since
logsumexp(x) = m + logsumexp(x - m) for any m, subtracting the maximum m first keeps every
exponent at most 0 and the sum between 1 and the number of elements.

    logsumexp(x)   = log Σ_j exp(x_j)
    log_softmax(x) = x - logsumexp(x)
    softmax(x)     = exp(x - logsumexp(x))   (positive, sums to 1 along the axis)
                   = exp(x - m) / Σ_j exp(x_j - m), which needs one exp instead of two

===========  ===========================  ============================================
op           forward saves                backward returns (Task 5.3)
===========  ===========================  ============================================
LogSumExp    x, out (axes kept)           d/dx, same shape as x
LogSoftmax   out                          d/dx; no (C, C) Jacobian
Softmax      out                          d/dx; no (C, C) Jacobian
===========  ===========================  ============================================
"""

from __future__ import annotations

import numpy as np

from .function import Context, Function
from .shapes import normalize_axes


def max_keepdims(x: np.ndarray, axis: int) -> np.ndarray:
    """``x.max(axis=axis, keepdims=True)``, faster along a short axis.

    NumPy reduces each row of a short axis at a fixed cost of about 0.1 us: the 2,048 rows
    of 16 attention scores in notebook 7 take 200 us, ten times their arithmetic. Taking
    ``np.maximum`` of the axis' two halves, then of the halves of that, works on whole
    arrays instead: 4 calls for 16 entries, 1.8 to 3 times faster. (For an odd length the
    halves share one entry, which a maximum does not mind.)
    """
    n = x.shape[axis] if -x.ndim <= axis < x.ndim else 0
    if not 8 <= n <= 64 or x.size < 256 * n:  # a long axis or few rows: NumPy's own is best
        return x.max(axis=axis, keepdims=True)
    before = (slice(None),) * (axis % x.ndim)
    while n > 1:
        half = (n + 1) // 2
        x = np.maximum(x[before + (slice(None, half),)], x[before + (slice(n - half, None),)])
        n = half
    return x


def sum_keepdims(x: np.ndarray, axis: int) -> np.ndarray:
    """``x.sum(axis=axis, keepdims=True)`` (up to rounding); along the last axis of many
    rows of floats, as a product with a vector of ones, which BLAS does four times faster
    than NumPy's row-by-row ``sum`` when the rows are short (16 attention weights)."""
    n = x.shape[-1] if x.ndim and axis % x.ndim == x.ndim - 1 else 0
    if not n or x.dtype.char not in "fd" or x.size < 256 * n:  # another axis or dtype, or few rows
        return x.sum(axis=axis, keepdims=True)
    return (x @ np.ones(n, dtype=x.dtype))[..., np.newaxis]


def stable_logsumexp(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """log(sum(exp(x))) over ``axes``, kept with size 1, without overflow for large x or underflow
    to log(0) when every x is very negative; a group of all -inf gives -inf (as PyTorch), not nan."""
    # Task 5.3: stable_logsumexp
    ### BEGIN SOLUTION
    m = x.max(axis=axes, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)  # all -inf (or inf) along an axis: leave as is
    with np.errstate(divide="ignore"):  # log(0) = -inf is the right answer for all -inf
        return m + np.log(np.exp(x - m).sum(axis=axes, keepdims=True))
    ### END SOLUTION


def log_softmax_array(x: np.ndarray, axis: int) -> np.ndarray:
    """log_softmax on an ndarray (no graph), for the losses."""
    return x - stable_logsumexp(x, (axis,))


class LogSumExp(Function):
    """out = log Σ exp(x) over ``axis`` (None: all), reduced like ``sum``."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axis=None, keepdims: bool = False) -> np.ndarray:
        ctx.axes, ctx.keepdims = normalize_axes(axis, x.ndim, x.shape), bool(keepdims)
        out = stable_logsumexp(x, ctx.axes)
        ctx.save_for_backward(x, out)
        return out if keepdims else np.squeeze(out, ctx.axes)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        x, out = ctx.saved
        # Task 5.3: LogSumExp.backward
        ### BEGIN SOLUTION
        if not ctx.keepdims:
            grad = np.expand_dims(grad, ctx.axes)
        return grad * np.exp(x - out)
        ### END SOLUTION


class LogSoftmax(Function):
    """out = x - logsumexp(x) along ``axis``."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axis: int = -1) -> np.ndarray:
        ctx.axis = normalize_axes(axis, x.ndim, x.shape)[0]
        out = log_softmax_array(x, ctx.axis)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        (out,) = ctx.saved
        # Task 5.3: LogSoftmax.backward
        ### BEGIN SOLUTION
        return grad - np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)
        ### END SOLUTION


class Softmax(Function):
    """out = exp(x - logsumexp(x)) along ``axis``."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axis: int = -1) -> np.ndarray:
        ctx.axis = normalize_axes(axis, x.ndim, x.shape)[0]
        shifted = np.exp(x - max_keepdims(x, ctx.axis))  # every exponent <= 0
        out = shifted / sum_keepdims(shifted, ctx.axis)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        (out,) = ctx.saved
        # Task 5.3: Softmax.backward
        ### BEGIN SOLUTION
        return out * (grad - np.sum(grad * out, axis=ctx.axis, keepdims=True))
        ### END SOLUTION


def logsumexp(x, axis=None, keepdims=False): return LogSumExp.apply(x, axis=axis, keepdims=keepdims)
def log_softmax(x, axis=-1): return LogSoftmax.apply(x, axis=axis)
def softmax(x, axis=-1): return Softmax.apply(x, axis=axis)
