"""Known mistakes of Task 7.2, causal multi-head self-attention. Two sites share one case:

* ``"attention"``: the module's output (B, T, D);
* ``"attention weights"``: the weights it keeps in ``last_attention`` (B, H, T, T);

each from ``x`` (B, T, D), ``weights`` (a dict: ``"query.weight"``, ``"query.bias"`` and the
same for ``key``, ``value`` and ``proj``, each Linear's weight of shape (out, in)) and
``heads``. A masked score is replaced by -1e9 (the reference's), so that a row with every
key masked gives equal weights, as a learner's large negative number does.
"""

from __future__ import annotations

import math

import numpy as np

from grader.checks.mistakes import ValueMistake


def _softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _attend(x, weights, heads, *, scale=None, mask=lambda T: np.tril(np.ones((T, T), bool)), axis=-1, after=False,
            split=True, merge=True, straight=(), fill=-1e9):
    """Attention as the mistake computes it: (output, weights). ``straight``: the projections
    reshaped straight to (B, H, T, d) (every one without ``split``); ``fill``: what a masked
    score becomes."""
    x = np.asarray(x, np.float64)
    B, T, D = x.shape
    d = D // heads
    lin = lambda a, n: a @ np.asarray(weights[f"{n}.weight"]).T + np.asarray(weights[f"{n}.bias"])  # noqa: E731

    def heads_of(a, n):
        return a.reshape(B, heads, T, d) if not split or n in straight else a.reshape(B, T, heads, d).transpose(0, 2, 1, 3)
    q, k, v = (heads_of(lin(x, n), n) for n in ("query", "key", "value"))
    scores = q @ k.transpose(0, 1, 3, 2) * (1 / math.sqrt(d) if scale is None else scale(d, D))
    mask = mask(T)
    att = np.where(mask, _softmax(scores, axis), 0.0) if after else _softmax(np.where(mask, scores, fill), axis)
    out = att @ v
    merged = out.transpose(0, 2, 1, 3).reshape(B, T, D) if merge else out.reshape(B, T, D)
    return lin(merged, "proj"), att


def _both(name, message, fix, weights_too=True, **mistake):
    """The mistake's mistake of the output and, when it changes them, of the kept weights."""
    made = [ValueMistake("7.2", "attention", name, message, fix,
                         lambda x, weights, heads: _attend(x, weights, heads, **mistake)[0])]
    if weights_too:
        made.append(ValueMistake("7.2", "attention weights", name, message, fix,
                                 lambda x, weights, heads: _attend(x, weights, heads, **mistake)[1]))
    return made


VALUE_MISTAKES = [
    *_both("heads not moved back",
           "the heads were merged by a reshape alone: weights @ v is (B, H, T, d), and reshaping it to (B, T, D) "
           "without moving the head axis back mixes the positions of one head into each row",
           "transpose weights @ v to (B, T, H, d) first (swap the head and position axes), then reshape to (B, T, D)",
           weights_too=False, merge=False),
    *_both("heads split without the transpose",
           "q, k and v were reshaped straight to (B, H, T, d): that cuts the rows of (B, T, D) into heads in the "
           "wrong order, so each head mixes positions",
           "reshape to (B, T, H, d), then transpose to (B, H, T, d) to move the head axis forward",
           split=False),
    *_both("heads split without the transpose",
           "q, k and v were reshaped straight to (B, H, T, d), and merged back by a reshape alone: each head then "
           "holds pieces of several positions",
           "reshape to (B, T, H, d), then transpose to (B, H, T, d); merge back with the inverse transpose before "
           "the reshape to (B, T, D)", weights_too=False, split=False, merge=False),
    *[mistake for n, letter in (("query", "q"), ("key", "k"), ("value", "v")) for mistake in _both(
        f"{letter} split without the transpose",
        f"{letter} was reshaped straight to (B, H, T, d) (the other two were not): that cuts the rows of (B, T, D) into "
        "heads in the wrong order, so its heads mix positions",
        f"reshape {letter} to (B, T, H, d), then transpose to (B, H, T, d), as the other two", straight=(n,))],
    *_both("masked with 0",
           "the masked scores were set to 0, not to a very negative number: exp(0) is not 0, so the later keys still "
           "get weight", "replace the masked scores with a very negative number (such as -1e9): after the softmax "
           "their weight is then 0", fill=0.0),
    *_both("mask one short",
           "the mask is one position short (np.tril with k=-1): a position cannot see itself, and position 0 sees "
           "nothing at all",
           "np.tril of ones with the diagonal included (k=0): position t sees positions 0 to t, itself included",
           mask=lambda T: np.tril(np.ones((T, T), bool), k=-1)),
    *_both("mask one too far",
           "the mask is one position too far (np.tril with k=1): each position also sees the next one, in its "
           "future: the very token it must predict",
           "np.tril of ones with the diagonal included and nothing above it (k=0)",
           mask=lambda T: np.tril(np.ones((T, T), bool), k=1)),
    *_both("mask upside down",
           "the mask is upside down (np.triu): each position sees itself and the later positions, the future, "
           "instead of the earlier ones", "np.tril (lower triangle) of ones: row t keeps the keys 0 to t",
           mask=lambda T: np.triu(np.ones((T, T), bool))),
    *_both("mask inverted",
           "the mask is inverted (where's arguments swapped, or the mask negated): the scores it should keep, each "
           "position's own and the earlier ones, were masked, and only the later keys, the future, kept theirs",
           "where(mask, scores, -1e9): keep the score where the mask (np.tril of ones) is True, and -1e9 elsewhere",
           mask=lambda T: ~np.tril(np.ones((T, T), bool))),
    *_both("mask missing",
           "no mask hides the later keys: every position also sees the future, the very tokens it must predict",
           "mask the scores of the later keys (above the diagonal) with a very negative number before the softmax",
           mask=lambda T: np.ones((T, T), bool)),
    *_both("scale missing",
           "the scores are not scaled: q @ kᵀ must be divided by √d (d = dim // heads, the size of one head)",
           "multiply the scores by 1 / sqrt(d) before the mask and the softmax", scale=lambda d, D: 1.0),
    *_both("scaled by the model width",
           "the scores are scaled by 1/sqrt(dim), the model's width, not 1/√d with d = dim // heads, the size of "
           "one head", "scale by 1 / sqrt(d), d = dim // heads", scale=lambda d, D: 1 / math.sqrt(D)),
    *_both("softmax over the queries",
           "the softmax ran over the queries (axis -2), so each column sums to 1, not each row: a position's "
           "weights must sum to 1 over the keys it may see",
           "softmax over the last axis (the keys)", axis=-2),
    *_both("masked after the softmax",
           "the weights were masked after the softmax: the later keys still count in its sum, so the future leaks "
           "into the past and the rows no longer sum to 1",
           "replace the masked scores by a very negative number before the softmax, not the weights after it",
           after=True),
]
