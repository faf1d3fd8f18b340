"""Matrix multiplication with NumPy's ``matmul`` rules.

* 2-D: (m, k) @ (k, n) -> (m, n).
* N-D: the last two axes are matrices, the axes before them are a batch and broadcast:
  (b, 1, m, k) @ (c, k, n) -> (b, c, m, n).
* 1-D: a vector on the left acts as a (1, k) row, on the right as a (k, 1) column, and
  that added axis is removed from the output: (k,) @ (k, n) -> (n,), (k,) @ (k,) -> ().

=======  =========================  ==================================================
op       forward saves              backward returns (Task 5.1)
=======  =========================  ==================================================
MatMul   a, b                       dA = dC @ Bᵀ and dB = Aᵀ @ dC, on the 1-D operands
                                    promoted to matrices, batch axes summed back
=======  =========================  ==================================================
"""

from __future__ import annotations

import math

import numpy as np

from .function import Context, Function
from .shapes import unbroadcast
from .tensor import Tensor


class MatMul(Function):
    """out = a @ b."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _check_matmul_shapes(a.shape, b.shape)
        ctx.save_for_backward(a, b)
        return np.matmul(a, b)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = ctx.saved
        a2, b2, grad2 = as_matrices(a, b, grad)
        # Task 5.1: MatMul.backward
        ### BEGIN SOLUTION
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = unbroadcast(grad2 @ np.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)
        if ctx.needs_input_grad[1]:
            grad_b = unbroadcast(product_like(np.swapaxes(a2, -1, -2), grad2, b2), b2.shape).reshape(b.shape)
        return grad_a, grad_b
        ### END SOLUTION


def as_matrices(a: np.ndarray, b: np.ndarray, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The operands of ``a @ b`` with 1-D ones promoted to matrices (a to a (1, k) row, b to
    a (k, 1) column) and ``grad`` reshaped to the output those matrices give. After this,
    every case is the batched matrix case; reshape the results back at the end."""
    if a.ndim == b.ndim == 2:
        return a, b, grad
    a2 = a[np.newaxis, :] if a.ndim == 1 else a
    b2 = b[:, np.newaxis] if b.ndim == 1 else b
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    return a2, b2, grad.reshape(batch + (a2.shape[-2], b2.shape[-1]))


def product_like(x: np.ndarray, y: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``x @ y``, laid out in memory like ``like`` when that is a transposed matrix.

    Linear multiplies by ``weight.T``, a transposed view of the weight. Computing that
    view's gradient as ``(yᵀ @ xᵀ)ᵀ``, the same numbers, makes it a transposed view too, so
    the weight's own gradient comes back in the weight's memory order and the optimizer's
    update runs along memory instead of across it (several times faster).
    """
    layout = like.flags
    if like.ndim == 2 and layout.f_contiguous and not layout.c_contiguous:
        # swap only the matrix axes: a batched x or y (Linear on a sequence) keeps its batch
        return (y.swapaxes(-1, -2) @ x.swapaxes(-1, -2)).swapaxes(-1, -2)
    return x @ y


def _check_matmul_shapes(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> None:
    if len(a_shape) == len(b_shape) == 2 and a_shape[1] == b_shape[0]:
        return  # two matrices that fit: the common case
    if not a_shape or not b_shape:
        raise ValueError(f"matmul: shapes {a_shape} and {b_shape}: 0-d tensors cannot be "
                         "matrix-multiplied (use *)")
    k_a, k_b = a_shape[-1], b_shape[0] if len(b_shape) == 1 else b_shape[-2]
    if k_a != k_b:
        raise ValueError(f"matmul: shapes {a_shape} and {b_shape} do not fit: the last axis of "
                         f"a has size {k_a} but b's {'only' if len(b_shape) == 1 else 'second-to-last'} "
                         f"axis has size {k_b}")
    try:
        if len(a_shape) > 2 or len(b_shape) > 2:
            np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    except ValueError:
        raise ValueError(f"matmul: shapes {a_shape} and {b_shape} do not fit: their batch axes "
                         f"{a_shape[:-2]} and {b_shape[:-2]} cannot be broadcast together") from None


def matmul(a, b):
    """``a @ b``.

    A stack of matrices times one matrix, (..., m, k) @ (k, n) as in a Linear layer on a
    batch of sequences, is recorded as one (rows, k) @ (k, n) product of the stacked rows,
    reshaped back (as PyTorch does). It is the same product, but NumPy makes one BLAS
    call instead of one per matrix, forwards and for each gradient, and b's gradient needs
    no sum over the stack.
    """
    if (isinstance(a, Tensor) and isinstance(b, Tensor) and a.ndim > 2 and b.ndim == 2
            and a.shape[-1] == b.shape[0]):
        *stack, k = a.shape
        rows = a.reshape(math.prod(stack), k)
        return MatMul.apply(rows, b).reshape(*stack, b.shape[1])
    return MatMul.apply(a, b)
