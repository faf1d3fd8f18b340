"""Shape arithmetic: broadcasting forwards and backwards, and axis arguments.

Broadcasting lines two shapes up from the right; in each position the sizes must be equal
or one of them 1, and a missing axis counts as size 1. The result takes the larger size.

    a: (   3,)         a is stretched along the new axis 0
    b: (4, 1)          b is stretched along its size-1 axis 1
    a + b: (4, 3)

``unbroadcast`` is the one place where the reverse lives: every op whose forward
broadcast an input calls it on that input's gradient.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

Shape = tuple[int, ...]


def broadcast_shapes(*shapes) -> Shape:
    """The shape NumPy gives ``a + b + ...`` for operands of the given shapes (each a
    sequence of ints; ``*shapes`` carries no annotation, which JupyterLab's Python mode
    would take for the end of the function and mis-indent the lines below).

    ``broadcast_shapes((3,), (4, 1)) == (4, 3)``; ``broadcast_shapes() == ()``.
    Raises ValueError naming all the shapes and the first axis where they clash.
    """
    # Task 2.1: broadcast_shapes
    ### BEGIN SOLUTION
    shapes = [tuple(int(n) for n in shape) for shape in shapes]
    ndim = max((len(shape) for shape in shapes), default=0)
    result = []
    for axis in range(-ndim, 0):  # right-aligned: -1 is the last axis of every shape
        sizes = {shape[axis] for shape in shapes if len(shape) >= -axis} - {1}
        if len(sizes) > 1:
            listed = ", ".join(str(shape) for shape in shapes)
            raise ValueError(f"shapes {listed} cannot be broadcast together: axis {axis} "
                             f"has sizes {sorted(sizes)} (each must be equal or 1)")
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)
    ### END SOLUTION


def unbroadcast(grad: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """Sum ``grad`` down to ``shape``: the reverse of broadcasting an array of ``shape``.

    ``grad`` has the broadcast (output) shape. An input of ``shape`` was stretched along
    the axes it lacked (leading axes) and along its size-1 axes; each of its elements fed
    every output along those axes. Returns an ndarray of exactly ``shape`` with the dtype
    of ``grad``; ``grad`` itself is never modified.

    ``unbroadcast(np.ones((4, 3)), (3,))`` is ``[4., 4., 4.]``;
    ``unbroadcast(np.ones((4, 3)), (4, 1))`` has shape (4, 1).
    """
    shape = tuple(shape)
    if grad.shape == shape:  # nothing was broadcast
        return grad
    if not broadcasts_to(shape, grad.shape):
        raise ValueError(f"unbroadcast: a gradient of shape {grad.shape} cannot come from "
                         f"broadcasting shape {shape}")
    # Task 2.2: unbroadcast
    ### BEGIN SOLUTION
    extra = grad.ndim - len(shape)  # leading axes the input did not have
    stretched = [extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1]
    return grad.sum(axis=(*range(extra), *stretched), keepdims=True).reshape(shape)
    ### END SOLUTION


def normalize_axes(axis: int | Iterable[int] | None, ndim: int, shape: Shape = ()) -> tuple[int, ...]:
    """Turn an ``axis`` argument (None, an int, or ints, negatives allowed) into a sorted
    tuple of non-negative axes. None means every axis. Raises ValueError naming the
    shape for an axis out of range or repeated.
    """
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    result = []
    for a in axes:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"axis must be an int or a tuple of ints, got {axis!r}")
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of range for a tensor of shape "
                             f"{tuple(shape)} ({ndim} axes)")
        result.append(int(a) % ndim)
    if len(set(result)) != len(result):
        raise ValueError(f"axis {axis!r} repeats an axis (tensor of shape {tuple(shape)})")
    return tuple(sorted(result))


def check_broadcast(op: str, *shapes) -> Shape:
    """The broadcast shape of ``shapes``, or a ValueError that names ``op`` and the shapes."""
    if len(shapes) == 2:  # the common case, without np.broadcast_shapes' overhead
        a, b = shapes
        if a == b or broadcasts_to(b, a):
            return a
        if broadcasts_to(a, b):
            return b
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        listed = " and ".join(str(tuple(s)) for s in shapes)
        raise ValueError(f"{op}: shapes {listed} cannot be broadcast together (aligned from "
                         "the right, each pair of sizes must be equal or contain a 1)") from None


def broadcasts_to(shape: Shape, target: Shape) -> bool:
    """Whether an array of ``shape`` broadcasts to exactly ``target``."""
    extra = len(target) - len(shape)  # leading axes that shape lacks
    if extra < 0:
        return False
    if shape == target[extra:]:  # only leading axes added (a bias row, say): the common case
        return True
    for n, t in zip(shape, target[extra:]):
        if n != t and n != 1:
            return False
    return True
