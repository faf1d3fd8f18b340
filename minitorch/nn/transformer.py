"""The pieces of a small GPT: ``Embedding``, ``LayerNorm``, ``CausalSelfAttention``,
``Block`` and ``GPT`` (with ``generate``). Shapes: B sequences of T tokens, D features,
H heads of D // H features each, V tokens in the vocabulary.

Everything is built from the operations of the earlier stages, so the engine that trained
an MLP trains this too: embeddings are indexing, attention is matmul, ``where`` and
softmax, the MLP is Linear and GELU (its tanh form, as in GPT-2).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..function import no_grad
from ..language import sample_next
from ..ops_activation import gelu
from ..ops_norm import layer_norm
from ..ops_select import where
from ..ops_softmax import softmax
from ..tensor import Tensor
from .modules import Linear, Module, Parameter, _rng_normal


class Embedding(Module):
    """A table of ``num_embeddings`` vectors of size ``embedding_dim``; ``emb(idx)`` looks
    up one row per integer of ``idx`` (any shape), giving ``(*idx.shape, embedding_dim)``.
    A worked example: indexing (Task 4.2) sends each row's gradient back, repeats added."""

    def __init__(self, num_embeddings: int, embedding_dim: int) -> None:
        self.weight = Parameter(_rng_normal((num_embeddings, embedding_dim)))

    def forward(self, idx: Any) -> Tensor:
        return self.weight[np.asarray(idx.data if isinstance(idx, Tensor) else idx, dtype=np.int64)]


class LayerNorm(Module):
    """``layer_norm`` over the last axis with a learned scale (ones) and shift (zeros)."""

    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        self.weight, self.bias, self.eps = Parameter(np.ones(dim)), Parameter(np.zeros(dim)), eps

    def forward(self, x: Tensor) -> Tensor:
        return layer_norm(x, self.weight, self.bias, eps=self.eps)


class CausalSelfAttention(Module):
    """Multi-head self-attention in which position t sees positions 0..t only.

    (B, T, D) in, (B, T, D) out. After a forward, ``last_attention`` holds the attention
    weights, (B, H, T, T), for pictures."""

    def __init__(self, dim: int, heads: int) -> None:
        if dim % heads:
            raise ValueError(f"CausalSelfAttention: dim {dim} is not a multiple of heads {heads}")
        self.heads = heads
        self.query, self.key, self.value = Linear(dim, dim), Linear(dim, dim), Linear(dim, dim)
        self.proj = Linear(dim, dim)
        self.last_attention: np.ndarray | None = None

    def forward(self, x: Tensor) -> Tensor:
        B, T, D = x.shape
        H, d = self.heads, D // self.heads
        # Task 7.2: CausalSelfAttention.forward
        raise NotImplementedError("Task 7.2: CausalSelfAttention.forward")


class Block(Module):
    """A pre-norm residual block: x + attn(ln1(x)), then x + mlp(ln2(x)), the MLP 4x wide
    with GELU in its tanh form, as GPT-2: ``down(gelu(up(h), approximate="tanh"))``."""

    def __init__(self, dim: int, heads: int) -> None:
        self.ln1, self.attn = LayerNorm(dim), CausalSelfAttention(dim, heads)
        self.ln2, self.up, self.down = LayerNorm(dim), Linear(dim, 4 * dim), Linear(4 * dim, dim)

    def forward(self, x: Tensor) -> Tensor:
        # Task 7.3: Block.forward
        raise NotImplementedError("Task 7.3: Block.forward")


class GPT(Module):
    """Token and position embeddings, ``layers`` blocks, a final LayerNorm and a linear
    head: integer (B, T) with T <= block_size in, logits (B, T, vocab_size) out."""

    def __init__(self, vocab_size: int, block_size: int, dim: int = 64, heads: int = 4, layers: int = 2) -> None:
        self.block_size = block_size
        self.token, self.position = Embedding(vocab_size, dim), Embedding(block_size, dim)
        self.blocks = [Block(dim, heads) for _ in range(layers)]
        self.ln_f, self.head = LayerNorm(dim), Linear(dim, vocab_size)

    def forward(self, idx: Any) -> Tensor:
        idx = np.asarray(idx.data if isinstance(idx, Tensor) else idx, dtype=np.int64)
        if idx.ndim != 2 or idx.shape[1] > self.block_size:
            raise ValueError(f"GPT: idx must be (B, T) with T <= block_size {self.block_size}, got {idx.shape}")
        # Task 7.3: GPT.forward
        raise NotImplementedError("Task 7.3: GPT.forward")

    def generate(self, idx: Any, steps: int, temperature: float = 1.0,
                 rng: np.random.Generator | None = None) -> np.ndarray:
        """Extend each row of ``idx`` (B, T) by ``steps`` tokens, each drawn from the
        softmax of the last position's logits divided by ``temperature`` (0: the most
        likely token), looking at the last ``block_size`` tokens only. Returns (B, T + steps)."""
        rng = rng if rng is not None else np.random.default_rng()
        idx = np.array(idx, dtype=np.int64)
        with no_grad():
            for _ in range(steps):
                logits = self(idx[:, -self.block_size:]).data[:, -1, :].astype(np.float64)
                chosen = sample_next(logits, temperature, rng)  # Task 7.4, in language.py
                idx = np.concatenate([idx, chosen[:, None]], axis=1)
        return idx
