"""The training loop: mini-batches, forward, loss, backward, step.

``fit`` runs epochs of ``train_epoch`` and records the training loss (averaged over the
epoch's batches) and, if validation data is given, the validation loss after each epoch.
``Progress`` shows a long loop's progress as it runs: steps done, the loss so far and the
time left, on one line that is rewritten in place.
"""

from __future__ import annotations

import time
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
        seed: int = 0, progress: bool = False) -> dict[str, list[float]]:
    """Train for ``epochs`` epochs. Returns {"train": [...], "val": [...]}, one loss per
    epoch ("val" is empty without validation data). ``progress=True`` shows the epochs
    done, the last training loss and the time left as it trains."""
    rng = np.random.default_rng(seed)
    history: dict[str, list[float]] = {"train": [], "val": []}
    shown = Progress(epochs, "epoch") if progress else None
    for epoch in range(epochs):
        history["train"].append(train_epoch(model, loss_fn, optimizer, x, y, batch_size, rng))
        if validation is not None:
            history["val"].append(evaluate(model, loss_fn, *validation))
        if shown is not None:
            shown.update(epoch + 1, history["train"][-1])
    return history


class Progress:
    """A long loop's progress on one line, rewritten in place as it runs:

        step 600 of 2,000, loss 2.41; 9 s so far, about 21 s left

    ``update(done, loss)`` after each step (or batch of steps); the line changes at most
    every ``every`` seconds, and always at the last step. It is shown at once ("step 0 of
    2,000: starting"), so made at the top of a cell it stays the cell's first output, above
    whatever the cell prints later. In a notebook the line is one output of the cell, updated
    in place; elsewhere it is redrawn on the terminal.
    """

    def __init__(self, total: int, unit: str = "step", every: float = 0.5) -> None:
        self.total, self.unit, self.every = total, unit, every
        self.start = time.perf_counter()
        self.shown_at = -float("inf")
        self.display = _live_line()
        self.display(f"{unit} 0 of {total:,}: starting")

    def update(self, done: int, loss: float) -> None:
        now = time.perf_counter()
        if now - self.shown_at < self.every and done < self.total:
            return
        self.shown_at, elapsed = now, now - self.start
        text = f"{self.unit} {done:,} of {self.total:,}, loss {loss:.3f}; {elapsed:.0f} s so far"
        if done < self.total:
            text += f", about {elapsed / max(done, 1) * (self.total - done):.0f} s left"
        self.display(text)


def _live_line() -> Callable[[str], None]:
    """A function that shows a line of text in place of the one it showed before."""
    try:
        from IPython import get_ipython
        from IPython.display import Pretty, display
        in_notebook = getattr(get_ipython(), "kernel", None) is not None
    except ImportError:
        in_notebook = False
    if not in_notebook:  # a terminal: back to the line's start, over the old text
        width = 0

        def redraw(text: str) -> None:
            nonlocal width
            print("\r" + text.ljust(width), end="", flush=True)
            width = len(text)
        return redraw
    handle = None

    def show(text: str) -> None:
        nonlocal handle
        if handle is None:
            handle = display(Pretty(text), display_id=True)
        else:
            handle.update(Pretty(text))
    return show
