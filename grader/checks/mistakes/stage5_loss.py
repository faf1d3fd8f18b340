"""Known mistakes of Task 5.4's forward, a value: site "cross-entropy forward", with
``logits`` (N, C), ``target`` (class indices (N,), or probabilities (N, C)) and
``reduction``, as ``CrossEntropy.forward`` takes them; a mistake gives the loss it returns."""

from __future__ import annotations

import numpy as np

from grader.checks.mistakes import ValueMistake


def _log_softmax(logits):
    z = np.asarray(logits, np.float64)
    top = z.max(axis=1, keepdims=True)
    return z - top - np.log(np.exp(z - top).sum(axis=1, keepdims=True))


def _every_pair(logits, target, reduction):
    """-log_p[:, target]: every row's log-probability of every sample's class, (N, N)."""
    target = np.asarray(target)
    if target.dtype.kind not in "iu":
        return None
    losses = -_log_softmax(logits)[:, target]
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / len(losses)


VALUE_MISTAKES = [
    ValueMistake("5.4", "cross-entropy forward", "every row of every class",
                 "log_p[:, target] takes, for every row, the log-probability of every sample's class (an (N, N) "
                 "array): a slice with ':' pairs each row with every index, not with its own",
                 "pair each row with its own class: index the rows with np.arange(n) and the columns with target",
                 _every_pair),
]
