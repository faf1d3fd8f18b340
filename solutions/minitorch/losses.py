"""Loss functions.

Cross-entropy compares a batch of logits (N, C) with the classes they should predict.
With p = softmax(logits) row by row, sample i's loss is

    class indices (N,):          loss_i = -log p[i, target_i]
    class probabilities (N, C):  loss_i = -Σ_c target[i, c] log p[i, c]

and ``reduction`` returns all N losses ("none"), their sum ("sum") or their mean ("mean").
One fused Function does it all, so the backward never builds softmax's (C, C) Jacobian.

=============  ==============================  ====================================
op             forward saves                   backward returns (Task 5.4)
=============  ==============================  ====================================
CrossEntropy   log-probabilities, target       d/d logits; d/d target when it is
                                               a probability tensor needing one
=============  ==============================  ====================================

``mse_loss`` is built from other operations and needs no backward of its own.
"""

from __future__ import annotations

import numpy as np

from . import ops_binary, ops_reduce
from .function import Context, Function
from .ops_softmax import log_softmax_array
from .tensor import Tensor

REDUCTIONS = ("mean", "sum", "none")


def _reduce(losses: np.ndarray, reduction: str) -> np.ndarray:
    if np.ndim(losses) == 0:  # said here, before len() says it less clearly
        raise ValueError("CrossEntropy.forward: the per-sample losses are one number (shape ()), not one per row of "
                         "logits (N,): summed over every axis, the rows' losses were added together before the "
                         "reduction; sum over the classes only")
    if reduction == "none":
        return losses
    total = losses.sum()
    return total if reduction == "sum" else total / len(losses)


def _row_grads(grad: np.ndarray, reduction: str, n: int) -> np.ndarray:
    """The upstream gradient of each sample's loss: an (N, 1) column for "none", one
    number (0-d, broadcasting to every sample) for "sum" and "mean"."""
    if reduction == "none":
        return grad.reshape(n, 1)
    return grad / n if reduction == "mean" else grad


class CrossEntropy(Function):
    """Softmax cross-entropy of ``logits`` (N, C) against ``target``: integer class indices
    of shape (N,) (an integer dtype) or class probabilities of shape (N, C)."""

    @staticmethod
    def forward(ctx: Context, logits: np.ndarray, target: np.ndarray, reduction: str = "mean") -> np.ndarray:
        n = logits.shape[0]
        log_p = log_softmax_array(logits, 1)
        ctx.reduction, ctx.by_index = reduction, target.dtype.kind in "iu"  # integer class indices
        ctx.save_for_backward(log_p, target)
        # Task 5.4: CrossEntropy.forward (the per-sample losses)
        ### BEGIN SOLUTION
        if ctx.by_index:
            losses = -log_p[np.arange(n), target]
        else:
            losses = -np.sum(target * log_p, axis=1)
        ### END SOLUTION
        return _reduce(losses, reduction)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        log_p, target = ctx.saved
        n = log_p.shape[0]
        rows = _row_grads(grad, ctx.reduction, n)
        # Task 5.4: CrossEntropy.backward
        ### BEGIN SOLUTION
        p = np.exp(log_p)
        if ctx.by_index:
            p[np.arange(n), target] -= 1  # p is a fresh array: safe to change in place
            return p * rows, None
        grad_logits = (p * np.sum(target, axis=1, keepdims=True) - target) * rows
        grad_target = -log_p * rows if ctx.needs_input_grad[1] else None
        return grad_logits, grad_target
        ### END SOLUTION


def cross_entropy(logits: Tensor, target, reduction: str = "mean") -> Tensor:
    """Mean (or summed, or per-sample) cross-entropy of ``logits`` (N, C) against class
    indices (N,) or class probabilities (N, C). See the module docstring."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"cross_entropy: reduction must be one of {REDUCTIONS}, got {reduction!r}")
    shape = np.shape(logits.data if isinstance(logits, Tensor) else logits)
    if len(shape) != 2:
        raise ValueError(f"cross_entropy: logits must have shape (N, C), got {shape}")
    return CrossEntropy.apply(logits, _as_target(target, shape), reduction=reduction)


def _as_target(target, logits_shape: tuple[int, int]) -> Tensor:
    n, c = logits_shape
    data = np.asarray(target.data if isinstance(target, Tensor) else target)
    if data.ndim == 1 and data.dtype.kind in "iu" and len(data) == n:  # the common case, fast
        if n and (data.min() < 0 or data.max() >= c):
            raise ValueError(f"cross_entropy: class indices must lie in [0, {c - 1}] for {c} "
                             f"classes, got values from {data.min()} to {data.max()}")
        return Tensor._from_op(data)
    if data.shape == (n, c):
        return target if isinstance(target, Tensor) else Tensor(data)
    if data.shape != (n,):
        raise ValueError(f"cross_entropy: logits have shape {logits_shape}, so target must be "
                         f"class indices of shape ({n},) or probabilities of shape ({n}, {c}); "
                         f"got shape {data.shape}")
    if not np.issubdtype(data.dtype, np.integer):
        if not np.all(np.isfinite(data)) or np.any(data != np.round(data)):
            raise ValueError("cross_entropy: a target of shape (N,) holds class indices, "
                             f"but these are not whole numbers: {data[:5]}")
    indices = data.astype(np.intp)
    if indices.size and (indices.min() < 0 or indices.max() >= c):
        raise ValueError(f"cross_entropy: class indices must lie in [0, {c - 1}] for {c} "
                         f"classes, got values from {indices.min()} to {indices.max()}")
    return Tensor(indices, dtype=np.intp)


def mse_loss(pred: Tensor, target, reduction: str = "mean") -> Tensor:
    """Mean (or summed, or elementwise) squared error. ``pred`` and ``target`` must have
    the same shape: an (N, 1) prediction against an (N,) target would silently broadcast
    to (N, N), a classic bug, so it is an error here."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"mse_loss: reduction must be one of {REDUCTIONS}, got {reduction!r}")
    pred_shape = np.shape(pred.data if isinstance(pred, Tensor) else pred)
    target_shape = np.shape(target.data if isinstance(target, Tensor) else target)
    if pred_shape != target_shape:
        raise ValueError(f"mse_loss: pred has shape {pred_shape} but target has shape "
                         f"{target_shape}; they must match")
    diff = ops_binary.sub(pred, target)
    squared = ops_binary.mul(diff, diff)
    if reduction == "none":
        return squared
    return ops_reduce.sum(squared) if reduction == "sum" else ops_reduce.mean(squared)
