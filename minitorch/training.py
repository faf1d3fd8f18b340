"""The training loop: mini-batches, forward, loss, backward, step.

``fit`` runs epochs of ``train_epoch`` and records the training loss (averaged over the
epoch's batches) and, if validation data is given, the validation loss after each epoch.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from .function import no_grad
from .nn import Module
from .optim import Optimizer
from .tensor import Tensor

LossFn = Callable[[Tensor, Any], Tensor]


def minibatches(n: int, batch_size: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """The indices 0..n-1 in a random order, cut into batches of ``batch_size`` (the last
    one may be smaller)."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    order = rng.permutation(n)
    for start in range(0, n, batch_size):
        yield order[start:start + batch_size]


def train_epoch(model: Module, loss_fn: LossFn, optimizer: Optimizer, x: np.ndarray,
                y: np.ndarray, batch_size: int, rng: np.random.Generator) -> float:
    """One pass over (x, y) in random mini-batches, one optimizer step per batch.

    Returns the mean of the batches' losses, weighted by batch size.
    """
    total = 0.0
    for batch in minibatches(len(x), batch_size, rng):
        # Task 6.4: train_epoch (one step on x[batch], y[batch]; add loss * len(batch) to total)
        raise NotImplementedError("Task 6.4: train_epoch (one step on x[batch], y[batch]; add loss * len(batch) to total)")
    return total / len(x)


def evaluate(model: Module, loss_fn: LossFn, x: np.ndarray, y: np.ndarray) -> float:
    """The loss on (x, y), without recording a graph."""
    with no_grad():
        return loss_fn(model(Tensor(x)), y).item()


def fit(model: Module, loss_fn: LossFn, optimizer: Optimizer, x: np.ndarray, y: np.ndarray,
        epochs: int, batch_size: int = 32, validation: tuple[np.ndarray, np.ndarray] | None = None,
        seed: int = 0) -> dict[str, list[float]]:
    """Train for ``epochs`` epochs. Returns {"train": [...], "val": [...]}, one loss per
    epoch ("val" is empty without validation data)."""
    rng = np.random.default_rng(seed)
    history: dict[str, list[float]] = {"train": [], "val": []}
    for _ in range(epochs):
        history["train"].append(train_epoch(model, loss_fn, optimizer, x, y, batch_size, rng))
        if validation is not None:
            history["val"].append(evaluate(model, loss_fn, *validation))
    return history
