"""Reference computations any check may use: trusted NumPy versions of the course's ops,
written here once, so that a stage's checks never import another stage's module (a stage
can then be dropped without breaking the checks of the stages after it)."""

from __future__ import annotations

import math

import numpy as np


def gelu_exact(x):
    return 0.5 * x * (1 + np.vectorize(math.erf, otypes=[np.float64])(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def stable_lse(x, axis, keepdims=False):
    """logsumexp in float64, shifted by the maximum (the trusted one for extreme inputs)."""
    m = np.max(x, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis)


def log_softmax(x, axis):
    return x - stable_lse(x, axis, keepdims=True)


def cross_entropy(logits, target, reduction):
    lp = log_softmax(logits, 1)
    losses = -lp[np.arange(len(lp)), target] if target.dtype.kind in "iu" else -np.sum(target * lp, axis=1)
    return {"none": losses, "sum": losses.sum(), "mean": losses.mean()}[reduction]


def layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def linear_weights(rng, prefix, dim_in, dim_out):
    return {f"{prefix}.weight": rng.standard_normal((dim_out, dim_in)) / math.sqrt(dim_in),
            f"{prefix}.bias": rng.standard_normal(dim_out) * 0.1}


def attention_weights(rng, dim, prefix=""):
    weights = {}
    for name in ("query", "key", "value", "proj"):
        weights.update(linear_weights(rng, f"{prefix}{name}", dim, dim))
    return weights


def numpy_attention(x, weights, heads, prefix="", scale=None, keep_weights=False, causal=True):
    """Causal attention in NumPy; ``scale`` replaces 1/sqrt(d) to name a mistake,
    ``keep_weights`` returns the softmax weights (B, H, T, T) too, and ``causal=False``
    leaves out the mask."""
    B, T, D = x.shape
    d = D // heads
    lin = lambda a, n: a @ weights[f"{prefix}{n}.weight"].T + weights[f"{prefix}{n}.bias"]  # noqa: E731
    q, k, v = (lin(x, n).reshape(B, T, heads, d).transpose(0, 2, 1, 3) for n in ("query", "key", "value"))
    scores = q @ k.transpose(0, 1, 3, 2) * (1 / math.sqrt(d) if scale is None else scale)
    scores = np.where(np.tril(np.ones((T, T), bool)) | (not causal), scores, -np.inf)
    att = np.exp(scores - scores.max(-1, keepdims=True))
    att /= att.sum(-1, keepdims=True)
    out = lin((att @ v).transpose(0, 2, 1, 3).reshape(B, T, D), "proj")
    return (out, att) if keep_weights else out
