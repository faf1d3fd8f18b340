"""Reductions over axes: sum, mean, max, min.

``axis`` is None (every axis), an int or a tuple of ints, negatives allowed; the forward
turns it into a sorted tuple of non-negative axes and stores it as ``ctx.axes``. The
output lacks the reduced axes unless ``keepdims`` is True, in which case they stay with
size 1. Either way, a backward sends each output's gradient to the elements it came from.

=========  =====================================  ==============================================
op         forward saves                          backward returns
=========  =====================================  ==============================================
Sum        input shape, axes, keepdims            one gradient of the input's shape (Task 3.2)
Mean       input shape, axes, keepdims            (Task 3.2)
Max, Min   x, out (keepdims), axes                ties share the gradient equally (Task 3.3)
=========  =====================================  ==============================================
"""

from __future__ import annotations

import math

import numpy as np

from .function import Context, Function
from .shapes import normalize_axes


def _setup(ctx: Context, x: np.ndarray, axis, keepdims: bool) -> tuple[int, ...]:
    ctx.shape, ctx.keepdims = x.shape, bool(keepdims)
    ctx.axes = normalize_axes(axis, x.ndim, x.shape)
    return ctx.axes


def _extreme(ctx: Context, x: np.ndarray, axis, keepdims: bool, reduce) -> np.ndarray:
    """The forward of Max and Min: saves x and the extremes with the reduced axes kept."""
    out = reduce(x, axis=_setup(ctx, x, axis, keepdims), keepdims=True)
    ctx.save_for_backward(x, out)
    return out if keepdims else np.squeeze(out, ctx.axes)


class Sum(Function):
    """out = x summed over ``axis``."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axis=None, keepdims: bool = False) -> np.ndarray:
        return x.sum(axis=_setup(ctx, x, axis, keepdims), keepdims=keepdims)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        return np.broadcast_to(_lined_up(grad, ctx, "Sum"), ctx.shape)


class Mean(Function):
    """out = x averaged over ``axis``."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axis=None, keepdims: bool = False) -> np.ndarray:
        return np.mean(x, axis=_setup(ctx, x, axis, keepdims), keepdims=keepdims)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        count = math.prod(ctx.shape[a] for a in ctx.axes)
        return np.broadcast_to(_lined_up(grad, ctx, "Mean") / count, ctx.shape)


class Max(Function):
    """out = the largest element over ``axis``."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axis=None, keepdims: bool = False) -> np.ndarray:
        return _extreme(ctx, x, axis, keepdims, np.max)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        x, out = ctx.saved
        return _to_extremes(grad, x, out, ctx)


class Min(Function):
    """out = the smallest element over ``axis``."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axis=None, keepdims: bool = False) -> np.ndarray:
        return _extreme(ctx, x, axis, keepdims, np.min)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        x, out = ctx.saved
        return _to_extremes(grad, x, out, ctx)


def _lined_up(grad: np.ndarray, ctx: Context, op: str) -> np.ndarray:
    """``_with_reduced_axes(grad, ctx)``, or a ValueError that names the case when its
    result cannot line up with the input (before NumPy's broadcast says it less clearly)."""
    back = _with_reduced_axes(grad, ctx)
    kept = tuple(1 if axis in ctx.axes else n for axis, n in enumerate(ctx.shape))
    if len(np.shape(back)) != len(kept) or any(b not in (k, n) for b, k, n in zip(np.shape(back), kept, ctx.shape)):
        fix = ("with keepdims=False the reduced axes are missing from grad: insert them as size 1 "
               "(np.expand_dims accepts a tuple of axes)") if not ctx.keepdims else "with keepdims=True grad has them already"
        raise ValueError(f"{op}.backward: _with_reduced_axes gave shape {np.shape(back)} for an upstream gradient of "
                         f"shape {np.shape(grad)} (input shape {ctx.shape}, axes {ctx.axes}, keepdims={ctx.keepdims}); "
                         f"expected {kept}, the input's shape with the reduced axes as size 1: {fix}")
    return back


def _with_reduced_axes(grad: np.ndarray, ctx: Context) -> np.ndarray:
    """``grad`` (the output's shape) with the reduced axes put back as size 1, so that it
    lines up with the input and broadcasts against it."""
    # Task 3.2: _with_reduced_axes (Sum.backward and Mean.backward, given, call it)
    raise NotImplementedError("Task 3.2: _with_reduced_axes (Sum.backward and Mean.backward, given, call it)")


def _to_extremes(grad: np.ndarray, x: np.ndarray, out: np.ndarray, ctx: Context) -> np.ndarray:
    """Send each output's gradient to the input elements equal to the extreme ``out``
    (saved with the reduced axes kept as size 1), shared equally among ties."""
    # Task 3.3: _to_extremes (Max.backward and Min.backward, given, call it)
    raise NotImplementedError("Task 3.3: _to_extremes (Max.backward and Min.backward, given, call it)")


def sum(x, axis=None, keepdims=False): return Sum.apply(x, axis=axis, keepdims=keepdims)  # noqa: A001
def mean(x, axis=None, keepdims=False): return Mean.apply(x, axis=axis, keepdims=keepdims)
def max(x, axis=None, keepdims=False): return Max.apply(x, axis=axis, keepdims=keepdims)  # noqa: A001
def min(x, axis=None, keepdims=False): return Min.apply(x, axis=axis, keepdims=keepdims)  # noqa: A001
