"""Movement operations: they rearrange or repeat elements without computing new values,
so each backward moves the gradient back to where the elements came from.

============  ========================  ===========================================
op            forward saves             backward returns (Task 4.1)
============  ========================  ===========================================
Reshape       input shape               the gradient with the input's shape
Transpose     axes (a permutation)      the gradient with the axes put back
BroadcastTo   input shape               the gradient summed back to the input shape
Squeeze       input shape               the gradient with the size-1 axes back
Unsqueeze     input shape               the gradient without the new axis
============  ========================  ===========================================
``flatten()`` is ``reshape(-1)``.
"""

from __future__ import annotations


import numpy as np

from .function import Context, Function
from .shapes import normalize_axes, unbroadcast


class Reshape(Function):
    """out = x with a new shape holding the same elements in the same (row-major) order.
    One entry of ``shape`` may be -1: it is worked out from the others."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, shape: tuple[int, ...] = ()) -> np.ndarray:
        ctx.shape = x.shape
        try:
            return np.reshape(x, shape)
        except ValueError:
            raise ValueError(f"cannot reshape a tensor of shape {x.shape} ({x.size} elements) "
                             f"into shape {tuple(shape)}") from None

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        # Task 4.1: Reshape.backward
        raise NotImplementedError("Task 4.1: Reshape.backward")


class Transpose(Function):
    """out = x with its axes permuted: out axis i is input axis ``axes[i]``. ``axes=None``
    reverses the order of the axes."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axes: tuple[int, ...] | None = None) -> np.ndarray:
        if axes is None:
            ctx.axes = tuple(range(x.ndim - 1, -1, -1))
            return x.transpose(ctx.axes)
        if len(axes) != x.ndim or set(normalize_axes(axes, x.ndim, x.shape)) != set(range(x.ndim)):
            raise ValueError(f"transpose: axes {tuple(axes)} are not a permutation of the "
                             f"{x.ndim} axes of a tensor of shape {x.shape}")
        ctx.axes = tuple(int(a) % x.ndim for a in axes)
        return x.transpose(ctx.axes)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        # Task 4.1: Transpose.backward
        raise NotImplementedError("Task 4.1: Transpose.backward")


class BroadcastTo(Function):
    """out = x stretched to ``shape`` by NumPy's broadcasting rules (a read-only view)."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, shape: tuple[int, ...] = ()) -> np.ndarray:
        ctx.shape = x.shape
        try:
            return np.broadcast_to(x, shape)
        except ValueError:
            raise ValueError(f"cannot broadcast a tensor of shape {x.shape} to shape "
                             f"{tuple(shape)}") from None

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        # Task 4.1: BroadcastTo.backward
        raise NotImplementedError("Task 4.1: BroadcastTo.backward")


class Squeeze(Function):
    """out = x without the size-1 axes in ``axis`` (None: without every size-1 axis)."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axis=None) -> np.ndarray:
        ctx.shape = x.shape
        axes = tuple(a for a in range(x.ndim) if x.shape[a] == 1) if axis is None \
            else normalize_axes(axis, x.ndim, x.shape)
        wide = [a for a in axes if x.shape[a] != 1]
        if wide:
            raise ValueError(f"squeeze: axis {wide[0]} of a tensor of shape {x.shape} has size "
                             f"{x.shape[wide[0]]}, not 1")
        return np.squeeze(x, axes)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        # Task 4.1: Squeeze.backward
        raise NotImplementedError("Task 4.1: Squeeze.backward")


class Unsqueeze(Function):
    """out = x with a new size-1 axis inserted at position ``axis`` of the output
    (negative counts from the end of the output's axes, as ``np.expand_dims``)."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axis: int = 0) -> np.ndarray:
        ctx.shape = x.shape
        normalize_axes(axis, x.ndim + 1, x.shape)  # raises for an axis out of range
        return np.expand_dims(x, axis)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        # Task 4.1: Unsqueeze.backward
        raise NotImplementedError("Task 4.1: Unsqueeze.backward")


def reshape(x, *shape):
    shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    if sum(1 for n in shape if n == -1) > 1:
        raise ValueError(f"reshape: only one axis may be -1, got {tuple(shape)}")
    return Reshape.apply(x, shape=tuple(int(n) for n in shape))


def transpose(x, *axes):
    axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
    return Transpose.apply(x, axes=tuple(axes) if axes else None)


def broadcast_to(x, shape): return BroadcastTo.apply(x, shape=tuple(shape))
def squeeze(x, axis=None): return Squeeze.apply(x, axis=axis)
def unsqueeze(x, axis): return Unsqueeze.apply(x, axis=axis)
def flatten(x): return Reshape.apply(x, shape=(-1,))


