"""Trusted numerical gradients: central differences of plain NumPy functions, in float64.

Nothing here imports minitorch. ``numeric_vjp`` differentiates L(x) = Σ upstream · f(x)
with respect to one argument, element by element: exactly what a backward computes for
that upstream gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

EPS = 1e-6


def numeric_vjp(f: Callable[..., np.ndarray], arrays: Sequence[np.ndarray],
                upstream: np.ndarray, index: int, eps: float = EPS) -> np.ndarray:
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    x = arrays[index]
    grad = np.zeros_like(x)
    for element in np.ndindex(x.shape):
        original = x[element]
        x[element] = original + eps
        up = np.sum(f(*arrays) * upstream)
        x[element] = original - eps
        down = np.sum(f(*arrays) * upstream)
        x[element] = original
        grad[element] = (up - down) / (2 * eps)
    return grad


def unbroadcast_by_loops(grad: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """The reverse of broadcasting, by walking every element of ``grad`` and adding it to
    the input element it was copied from."""
    shape = tuple(shape)
    out = np.zeros(shape, dtype=grad.dtype)
    extra = grad.ndim - len(shape)
    for index in np.ndindex(grad.shape):
        out[tuple(0 if n == 1 else i for i, n in zip(index[extra:], shape))] += grad[index]
    return out
