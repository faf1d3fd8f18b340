"""``gradcheck``: compare backward's gradients with central differences, in float64.

For a random upstream gradient r, the scalar L(x) = Σ r · fn(x) has dL/dx = the
vector-Jacobian product that backward computes. Nudging one element of one input by ±eps
and re-running ``fn`` gives the same number by central differences.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .function import no_grad
from .tensor import Tensor


class GradcheckError(AssertionError):
    """Backward and central differences disagree (or backward gave no gradient)."""


def gradcheck(fn: Callable[..., Tensor], inputs: Sequence[Tensor], eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3, seed: int = 0) -> bool:
    """Check the gradient of every input that has ``requires_grad=True``.

    Returns True, or raises GradcheckError naming the input, the element and both values.
    The inputs are not changed: the check runs on float64 copies.
    """
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    copies = [Tensor(t.data, dtype=np.float64, requires_grad=t.requires_grad)
              if isinstance(t, Tensor) else t for t in inputs]
    checked = [i for i, t in enumerate(copies) if isinstance(t, Tensor) and t.requires_grad]
    if not checked:
        raise ValueError("gradcheck: no input has requires_grad=True, so there is nothing to check")

    out = fn(*copies)
    upstream = np.random.default_rng(seed).standard_normal(out.shape)
    out.backward(upstream)

    def weighted_output() -> float:
        with no_grad():
            return float(np.sum(fn(*copies).data * upstream))

    for i in checked:
        tensor = copies[i]
        if tensor.grad is None:
            raise GradcheckError(f"gradcheck: input {i} (shape {tensor.shape}) received no "
                                 "gradient from backward, but the output depends on it")
        for element in np.ndindex(tensor.shape):
            original = tensor.data[element]
            tensor.data[element] = original + eps
            up = weighted_output()
            tensor.data[element] = original - eps
            down = weighted_output()
            tensor.data[element] = original
            numerical = (up - down) / (2 * eps)
            analytical = float(tensor.grad[element])
            if not abs(analytical - numerical) <= atol + rtol * abs(numerical):
                raise GradcheckError(
                    f"gradcheck: input {i} (shape {tensor.shape}), element {element}: backward "
                    f"gives {analytical:.8g} but central differences give {numerical:.8g}")
    return True


def numerical_grads(fn: Callable[..., np.ndarray], arrays: Sequence, upstream=None,
                    eps: float = 1e-6) -> list[np.ndarray]:
    """The gradient of L = Σ upstream · fn(*arrays) with respect to each array, by central
    differences in float64: what a backward rule should return for that upstream gradient.

    Write ``fn`` with NumPy (``np.multiply``, ``lambda a: a.sum(axis=0)``), not with
    minitorch, so that the numbers do not depend on the code they check. ``upstream``
    defaults to ones. The arrays passed in are not changed.
    """
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    if upstream is None:
        upstream = np.ones(np.shape(fn(*arrays)))
    grads = []
    for x in arrays:
        grad = np.zeros_like(x)
        for element in np.ndindex(x.shape):
            original = x[element]
            x[element] = original + eps
            up = np.sum(fn(*arrays) * upstream)
            x[element] = original - eps
            down = np.sum(fn(*arrays) * upstream)
            x[element] = original
            grad[element] = (up - down) / (2 * eps)
        grads.append(grad)
    return grads
