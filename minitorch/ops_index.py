"""Indexing, concatenation and stacking: each output element is a copy of one input
element, so each backward puts the gradient back where that element came from.

========  ============================  =================================================
op        forward saves                 backward returns
========  ============================  =================================================
GetItem   input shape, dtype, index     zeros with the gradient added in (Task 4.2);
                                        an element picked twice collects both
Cat       the inputs' sizes on axis     the gradient cut into one piece per input (4.3)
Stack     the axis, number of inputs    one slice of the gradient per input (4.3)
========  ============================  =================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .function import Context, Function
from .shapes import normalize_axes
from .tensor import Tensor


class GetItem(Function):
    """out = x[index], with anything NumPy accepts as ``index``: ints, slices (with steps),
    None, Ellipsis, integer arrays and boolean masks, alone or in a tuple."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, index: Any = ()) -> np.ndarray:
        ctx.shape, ctx.dtype, ctx.index = x.shape, x.dtype, index
        try:
            return x[index]
        except IndexError as error:
            raise IndexError(f"index {_describe(index)} does not fit a tensor of shape "
                             f"{x.shape}: {error}") from None

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        # Task 4.2: GetItem.backward
        raise NotImplementedError("Task 4.2: GetItem.backward")


class Cat(Function):
    """out = the inputs joined along an existing ``axis``; their other sizes must match."""

    @staticmethod
    def forward(ctx: Context, *tensors: np.ndarray, axis: int = 0) -> np.ndarray:
        _check_same_shapes("cat", tensors, axis, skip_axis=True)
        ctx.axis = normalize_axes(axis, tensors[0].ndim, tensors[0].shape)[0]
        ctx.sizes = [t.shape[ctx.axis] for t in tensors]
        return np.concatenate(tensors, axis=ctx.axis)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple[np.ndarray, ...]:
        # Task 4.3: Cat.backward
        raise NotImplementedError("Task 4.3: Cat.backward")


class Stack(Function):
    """out = the inputs joined along a new ``axis``; they must all have the same shape."""

    @staticmethod
    def forward(ctx: Context, *tensors: np.ndarray, axis: int = 0) -> np.ndarray:
        _check_same_shapes("stack", tensors, axis, skip_axis=False)
        ctx.axis = normalize_axes(axis, tensors[0].ndim + 1, tensors[0].shape)[0]
        ctx.count = len(tensors)
        return np.stack(tensors, axis=ctx.axis)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple[np.ndarray, ...]:
        # Task 4.3: Stack.backward
        raise NotImplementedError("Task 4.3: Stack.backward")


def _check_same_shapes(op: str, arrays: tuple[np.ndarray, ...], axis: int, skip_axis: bool) -> None:
    if not arrays:
        raise ValueError(f"{op} needs at least one tensor")
    first = arrays[0]
    if skip_axis and first.ndim == 0:
        raise ValueError(f"{op}: 0-d tensors cannot be concatenated (use stack)")
    ndim = first.ndim if skip_axis else first.ndim + 1
    axis = normalize_axes(axis, ndim, first.shape)[0]
    for i, other in enumerate(arrays[1:], start=1):
        same = (other.ndim == first.ndim and
                all(m == n for k, (m, n) in enumerate(zip(first.shape, other.shape))
                    if not (skip_axis and k == axis)))
        if not same:
            where = f"outside axis {axis}" if skip_axis else "(stack needs equal shapes)"
            raise ValueError(f"{op}: tensor 0 has shape {first.shape} and tensor {i} has shape "
                             f"{other.shape}; they differ {where}")


def _describe(index: Any) -> str:
    parts = index if isinstance(index, tuple) else (index,)
    return "[" + ", ".join(f"array of shape {p.shape}" if isinstance(p, np.ndarray) else repr(p)
                           for p in parts) + "]"


def as_index(index: Any) -> Any:
    """A user's index with Tensors and lists turned into ndarrays (ints for Tensors)."""
    if isinstance(index, tuple):
        return tuple(as_index(part) for part in index)
    if isinstance(index, Tensor):
        data = index.data
        return data if data.dtype == bool else data.astype(np.intp)
    if isinstance(index, list):
        return np.asarray(index)
    return index


def getitem(x, index): return GetItem.apply(x, index=as_index(index))
def cat(tensors, axis=0): return Cat.apply(*tensors, axis=axis)
def stack(tensors, axis=0): return Stack.apply(*tensors, axis=axis)
