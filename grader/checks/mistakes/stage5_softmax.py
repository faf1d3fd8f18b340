"""More known mistakes of Task 5.3: stable_logsumexp's, a value (site "stable logsumexp", with
``x`` and ``axes`` as ``stable_logsumexp(x, axes)`` takes them), and the softmaxes' backward
ones fresh learners made that the first list lacked."""

from __future__ import annotations

import numpy as np

from grader.checks.mistakes import Mistake, ValueMistake


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


VALUE_MISTAKES = [  # site "stable logsumexp": x and axes, as stable_logsumexp(x, axes) takes them
    ValueMistake("5.3", "stable logsumexp", "maximum not added back",
                 "the maximum was subtracted before exp but not added back: log(sum(exp(x - m))) is logsumexp(x) - m",
                 "add m back: m + log(sum(exp(x - m)))", _max_not_added),
    ValueMistake("5.3", "stable logsumexp", "the mean subtracted",
                 "the shift is the mean, not the maximum: exp of what is left can still overflow (or every term underflow)",
                 "shift by each group's own maximum, x.max(axis=axes, keepdims=True), not the mean",
                 _lse_with(lambda x, axes: np.mean(x, axis=axes, keepdims=True))),
    ValueMistake("5.3", "stable logsumexp", "the whole array's maximum",
                 "the shift is the largest value of the whole array: a group far below it underflows to log(0) = -inf",
                 "shift by each group's own maximum, x.max(axis=axes, keepdims=True)",
                 _lse_with(lambda x, axes: np.max(x, keepdims=True))),
]


def _softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _fixed_axis(fixed):
    """Softmax's gradient with its sum along ``fixed`` whatever ctx.axis is (None where they agree)."""
    def wrong(x, g, axis=-1):
        ndim = np.ndim(x[0])
        if axis % ndim == fixed % ndim:
            return None
        s = _softmax(x[0], axis)
        return s * (g - np.sum(g * s, axis=fixed, keepdims=True))
    return wrong


MISTAKES = [
    Mistake("5.3", "ops_softmax.Softmax", 0, "out missing in the sum",
            "the sum subtracted from grad is the sum of grad alone; it is the sum of grad times out",
            "sum grad times the output along the softmax's axis (keepdims), subtract that from grad, times the output",
            lambda x, g, axis=-1: _softmax(x[0], axis) * (g - np.sum(g, axis=axis, keepdims=True))),
    Mistake("5.3", "ops_softmax.Softmax", 0, "out missing in front",
            "softmax's backward is grad minus the sum of grad times out, not multiplied by out: each output's "
            "gradient is out times (grad minus that sum)", "multiply the whole difference by the output: out times "
            "(grad minus the sum of grad times out along the axis)",
            lambda x, g, axis=-1: g - np.sum(g * _softmax(x[0], axis), axis=axis, keepdims=True)),
    Mistake("5.3", "ops_softmax.LogSoftmax", 0, "sum along axis 0",
            "the sum of grad runs along axis 0, not along the softmax's axis", "sum along ctx.axis, with keepdims",
            lambda x, g, axis=-1: g - _softmax(x[0], axis) * np.sum(g, axis=0, keepdims=True)
            if axis % np.ndim(x[0]) != 0 else None),
    Mistake("5.3", "ops_softmax.LogSoftmax", 0, "log-probabilities as the softmax",
            "the softmax in the gradient is taken as out itself, the log-probabilities: it is exp(out)",
            "multiply the sum of grad by exp(out), the softmax, not by out",
            lambda x, g, axis=-1: g - (x[0] - np.log(np.sum(np.exp(x[0]), axis=axis, keepdims=True)))
            * np.sum(g, axis=axis, keepdims=True)),
    Mistake("5.3", "ops_softmax.Softmax", 0, "the Jacobian's diagonal only",
            "softmax's backward is out * (1 - out) * grad: that is only the diagonal of the Jacobian (each output "
            "through its own input). Every output of a row depends on every input of it, so the terms off the "
            "diagonal, -out_i * out_j, are missing", "out times (grad minus the sum of grad times out along the "
            "softmax's axis, keepdims): the whole Jacobian, without building it",
            lambda x, g, axis=-1: _softmax(x[0], axis) * (1 - _softmax(x[0], axis)) * g),
    Mistake("5.3", "ops_softmax.LogSoftmax", 0, "grad taken to sum to 1",
            "log_softmax's backward is grad - softmax: that holds only when grad sums to 1 along the axis. The "
            "softmax is multiplied by the sum of grad along the axis", "subtract the softmax times the sum of grad "
            "along ctx.axis (keepdims=True)", lambda x, g, axis=-1: g - _softmax(x[0], axis)),
    Mistake("5.3", "ops_softmax.LogSoftmax", 0, "sum over every axis",
            "the sum of grad in log_softmax's backward runs over every axis, not along ctx.axis only",
            "sum grad along the softmax's axis only, keeping it as size 1",
            lambda x, g, axis=-1: g - _softmax(x[0], axis) * np.sum(g) if np.ndim(x[0]) > 1 else None),
    *[Mistake("5.3", "ops_softmax.Softmax", 0, f"sum along {where}",
              f"the sum of grad times out runs along {where}, not along the softmax's axis",
              "sum along ctx.axis, with keepdims", _fixed_axis(fixed)) for fixed, where in ((0, "axis 0"), (-1, "the last axis"))],
]
