"""Known mistakes of Task 5.4, cross-entropy: its backward's (``MISTAKES``), and its forward's,
a value: site "cross-entropy forward", with ``logits`` (N, C), ``target`` (class indices
(N,), or probabilities (N, C)) and ``reduction``, as ``CrossEntropy.forward`` takes them; a
mistake gives the loss it returns."""

from __future__ import annotations

import numpy as np

from grader.checks.mistakes import Mistake, ValueMistake


def _log_softmax(logits):
    z = np.asarray(logits, np.float64)
    top = z.max(axis=1, keepdims=True)
    return z - top - np.log(np.exp(z - top).sum(axis=1, keepdims=True))


def _cross_entropy(kind):
    """CrossEntropy's backward with one mistake: ``kind`` names it. ``rows`` is the upstream
    gradient of each sample's loss (the package gives it: grad / N for 'mean', a column for 'none')."""
    def wrong(x, g, reduction="mean"):
        z, t = x
        n, by_index = z.shape[0], t.dtype.kind in "iu"
        p = np.exp(_log_softmax(z))
        core = p - np.eye(z.shape[1])[t] if by_index else p * t.sum(axis=1, keepdims=True) - t
        rows = g.reshape(n, 1) if reduction == "none" else g / n if reduction == "mean" else g
        if kind == "1/N missing":
            return core * g if reduction == "mean" else None
        if kind == "upstream not per row":
            return core * g if reduction == "none" else None  # raises as the learner's grad * (N, C) does
        if kind == "upstream gradient ignored":
            return core
        if kind == "target minus softmax":
            return -core * rows
        if kind == "one-hot by columns" and by_index:
            p[:, t] -= 1
            return p * rows
        if kind == "the target's 1 not subtracted" and by_index:
            return p * rows  # p alone: no one-hot taken away
        if kind == "the target's row sums left out" and not by_index:
            return (p - t) * rows  # right only where each target row sums to 1
        if kind == "probabilities used as indices" and not by_index:
            p[np.arange(n), t] -= 1  # raises: float class probabilities are no indices
        return None
    return wrong


CROSS_ENTROPY = [
    ("1/N missing", "with reduction='mean' the logits' gradient is not divided by N: the loss is the mean of N "
     "samples' losses, so each sample's share of the upstream gradient is grad / N",
     "scale by rows, the per-sample upstream gradient the code gives you (grad / N for 'mean'), not by grad"),
    ("upstream not per row", "with reduction='none' the upstream gradient has one number per sample, shape (N,), "
     "and was used as it came, so it does not line up with the (N, C) rows (NumPy broadcasts it along the classes, "
     "or refuses)", "scale by rows, the upstream gradient as an (N, 1) column, one number per row"),
    ("upstream gradient ignored", "the logits' gradient is the probabilities minus the target, not scaled by the "
     "upstream gradient: the chain rule multiplies by it (and 'mean' divides it by N)",
     "multiply by rows, the per-sample upstream gradient"),
    ("target minus softmax", "the logits' gradient is the target minus the probabilities: it is the probabilities "
     "minus the target (raising a logit raises the loss unless it is the target's)",
     "subtract the one-hot target (or the target rows) from p, not p from the target"),
    ("one-hot by columns", "p[:, target] -= 1 subtracts 1 in whole columns, at every target class in every row; "
     "each row has one target, in its own row only",
     "pair each row with its own target: rows np.arange(n) and columns target"),
    ("the target's 1 not subtracted", "with class indices the logits' gradient is the probabilities alone: the 1 at "
     "each row's target class was never subtracted (the loss is minus log p of the target, whose derivative has "
     "that minus 1)", "subtract 1 at each row's target class, in its own row (rows np.arange(n), columns target), "
     "before scaling by rows"),
    ("the target's row sums left out", "with class probabilities the logits' gradient is p minus the target, which "
     "holds only where each target row sums to 1: the loss is minus the sum of target times log_p, and each log_p "
     "depends on every logit through the softmax, so p is weighted by the target row's sum (rows of weighted or "
     "unnormalised soft labels need not sum to 1)", "multiply p by each target row's sum (along the classes, kept as "
     "an (N, 1) column) before subtracting the target rows"),
    ("probabilities used as indices", "class probabilities (N, C) were used as class indices; they are float "
     "weights, one per class, not positions", "branch on ctx.by_index: with probability targets take p times "
     "each target row's sum, minus the target rows"),
]


MISTAKES = [
    *[Mistake("5.4", "losses.CrossEntropy", 0, name, words, fix, _cross_entropy(name)) for name, words, fix in CROSS_ENTROPY],
    Mistake("5.4", "losses.CrossEntropy", 1, "sign of the target's gradient",
            "the target's gradient is log_p times rows: the loss is minus target times log_p, so it is minus that",
            "negate it: minus log_p, times rows",
            lambda x, g, reduction="mean": None if x[1].dtype.kind in "iu" else _log_softmax(x[0]) * (
                g.reshape(-1, 1) if reduction == "none" else g / len(x[0]) if reduction == "mean" else g)),
]


def _every_pair(logits, target, reduction):
    """-log_p[:, target]: every row's log-probability of every sample's class, (N, N)."""
    target = np.asarray(target)
    if target.dtype.kind not in "iu":
        return None
    losses = -_log_softmax(logits)[:, target]
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / len(losses)


def _mean_over_classes(logits, target, reduction):
    """With class probabilities, each sample's loss as a mean over the classes: the sum divided by C."""
    target = np.asarray(target)
    if target.dtype.kind in "iu" or np.ndim(logits) != 2:
        return None
    losses = -np.sum(target * _log_softmax(logits), axis=1) / np.shape(logits)[1]
    return losses if reduction == "none" else losses.sum() if reduction == "sum" else losses.mean()


VALUE_MISTAKES = [
    ValueMistake("5.4", "cross-entropy forward", "mean over the classes",
                 "each sample's loss is a mean over the classes (divided by the number of classes); it is a sum over "
                 "the classes of target times log_p", "sum over the classes (axis 1); only the reduction 'mean' "
                 "divides, and by the number of samples", _mean_over_classes),
    ValueMistake("5.4", "cross-entropy forward", "every row of every class",
                 "log_p[:, target] takes, for every row, the log-probability of every sample's class (an (N, N) "
                 "array): a slice with ':' pairs each row with every index, not with its own",
                 "pair each row with its own class: index the rows with np.arange(n) and the columns with target",
                 _every_pair),
]
