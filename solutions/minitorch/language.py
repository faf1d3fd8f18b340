"""Names as data for a character-level language model, its training loop, and sampling.

Every name becomes its characters followed by an end token "."; the names are joined
into one stream of token ids (".emma.olivia."), and a model learns to predict each token
from the ones before it. A mini-batch is B windows of T tokens at random places of the
stream (``x``) and the same windows shifted by one (``y``, the next tokens). Once trained,
the model writes by drawing each next token from its predictions (``sample_next``, which
``nn.GPT.generate`` calls once per token).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from .function import no_grad
from .losses import cross_entropy


# What training needs of a model and an optimizer, said here rather than imported: nn.GPT
# builds on this module (its generate calls sample_next), so this module imports no nn.
class Model(Protocol):
    """Anything that maps token ids (B, T) to logits (B, T, V): an ``nn.GPT``."""

    def __call__(self, idx: np.ndarray) -> Any: ...


class Optimizer(Protocol):
    """Anything with ``zero_grad`` and ``step``: an ``optim.SGD`` or ``optim.Adam``."""

    def zero_grad(self) -> None: ...

    def step(self) -> None: ...

END = "."


def vocabulary(names: Sequence[str]) -> list[str]:
    """The end token, then every character of the names, sorted."""
    return [END] + sorted(set("".join(names)) - {END})


def encode(names: Sequence[str], vocab: Sequence[str]) -> np.ndarray:
    index = {c: i for i, c in enumerate(vocab)}
    return np.array([index[c] for c in END + END.join(names) + END], dtype=np.int64)


def decode(tokens: Sequence[int], vocab: Sequence[str]) -> list[str]:
    """Token ids to names: split at the end tokens, dropping empty pieces."""
    return [n for n in "".join(vocab[int(t)] for t in tokens).split(END) if n]


def split(names: Sequence[str], validation: float = 0.1, seed: int = 0) -> tuple[list[str], list[str]]:
    order = np.random.default_rng(seed).permutation(len(names))
    cut = int(len(names) * (1 - validation))
    return [names[i] for i in order[:cut]], [names[i] for i in order[cut:]]


def windows(stream: np.ndarray, block_size: int, batch_size: int,
            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    starts = rng.integers(0, len(stream) - block_size - 1, batch_size)
    x = np.stack([stream[s:s + block_size] for s in starts])
    return x, np.stack([stream[s + 1:s + block_size + 1] for s in starts])


def loss_on(model: Model, x: np.ndarray, y: np.ndarray):
    """The mean cross-entropy of predicting each y from the x up to it."""
    logits = model(x)
    B, T, V = logits.shape
    return cross_entropy(logits.reshape(B * T, V), y.reshape(B * T))


def evaluate(model: Model, stream: np.ndarray, block_size: int, batches: int = 8, batch_size: int = 64,
             seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    with no_grad():
        return float(np.mean([loss_on(model, *windows(stream, block_size, batch_size, rng)).item()
                              for _ in range(batches)]))


def train(model: Model, optimizer: Optimizer, train_stream: np.ndarray, steps: int, block_size: int,
          batch_size: int, rng: np.random.Generator) -> list[float]:
    """``steps`` optimizer steps on random windows of ``train_stream``; returns each
    step's training loss."""
    losses = []
    for _ in range(steps):
        x, y = windows(train_stream, block_size, batch_size, rng)
        # Task 7.4: one training step (zero_grad, the loss on (x, y), backward, step)
        ### BEGIN SOLUTION
        optimizer.zero_grad()
        loss = loss_on(model, x, y)
        loss.backward()
        optimizer.step()
        ### END SOLUTION
        losses.append(loss.item())
    return losses


def sample_next(logits: np.ndarray, temperature: float, rng: np.random.Generator) -> np.ndarray:
    """One token id for each row of ``logits`` (B, V): drawn with ``rng`` from the softmax of
    the row divided by ``temperature``, or the row's most likely token when ``temperature``
    is 0. ``GPT.generate`` calls it with the logits of each row's last position."""
    # Task 7.4: sampling with a temperature
    ### BEGIN SOLUTION
    if temperature == 0:
        chosen = logits.argmax(axis=-1)
    else:
        z = logits / temperature
        p = np.exp(z - z.max(axis=-1, keepdims=True))
        p /= p.sum(axis=-1, keepdims=True)
        chosen = np.array([rng.choice(len(row), p=row) for row in p])
    return chosen
    ### END SOLUTION
