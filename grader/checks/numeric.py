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


def numeric_vjp_relative(f: Callable[..., np.ndarray], arrays: Sequence[np.ndarray],
                         upstream: np.ndarray, index: int, eps: float = EPS) -> np.ndarray:
    """``numeric_vjp`` with each element's step relative to its size (eps * |x|), for
    inputs of any magnitude; the two outputs are subtracted before they are summed, so
    that a small change is not lost beside a huge element."""
    arrays = [np.array(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in arrays]
    x = arrays[index]
    grad = np.zeros_like(x)
    with np.errstate(all="ignore"):
        for element in np.ndindex(x.shape):
            original = x[element]
            step = eps * abs(float(original)) or eps
            x[element] = original + step
            up = np.asarray(f(*arrays), dtype=np.float64)
            x[element] = original - step
            down = np.asarray(f(*arrays), dtype=np.float64)
            x[element] = original
            grad[element] = np.sum((up - down) * upstream) / (2 * step)
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
