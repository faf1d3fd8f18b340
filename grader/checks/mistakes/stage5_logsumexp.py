"""Known mistakes of Task 5.3's stable_logsumexp, a value: site "stable logsumexp", with
``x`` and ``axes`` as ``stable_logsumexp(x, axes)`` takes them."""

from __future__ import annotations

import numpy as np

from grader.checks.mistakes import Slip


def _lse_with(shift):
    """logsumexp over ``axes`` (kept) shifted by ``shift(x, axes)``, the maximum added back."""
    def wrong(x, axes):
        with np.errstate(all="ignore"):
            m = shift(np.asarray(x, np.float64), tuple(axes))
            return m + np.log(np.exp(x - m).sum(axis=tuple(axes), keepdims=True))
    return wrong


def _max_not_added(x, axes):
    m = np.max(x, axis=tuple(axes), keepdims=True)
    return np.log(np.exp(x - m).sum(axis=tuple(axes), keepdims=True))


SLIPS = [  # site "stable logsumexp": x and axes, as stable_logsumexp(x, axes) takes them
    Slip("5.3", "stable logsumexp", "maximum not added back",
         "the maximum was subtracted before exp but not added back: log(sum(exp(x - m))) is logsumexp(x) - m",
         "add m back: m + log(sum(exp(x - m)))", _max_not_added),
    Slip("5.3", "stable logsumexp", "the mean subtracted",
         "the shift is the mean, not the maximum: exp of what is left can still overflow (or every term underflow)",
         "shift by each group's own maximum, x.max(axis=axes, keepdims=True), not the mean",
         _lse_with(lambda x, axes: np.mean(x, axis=axes, keepdims=True))),
    Slip("5.3", "stable logsumexp", "the whole array's maximum",
         "the shift is the largest value of the whole array: a group far below it underflows to log(0) = -inf",
         "shift by each group's own maximum, x.max(axis=axes, keepdims=True)",
         _lse_with(lambda x, axes: np.max(x, keepdims=True))),
]
