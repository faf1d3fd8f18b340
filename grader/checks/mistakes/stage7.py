"""Known mistakes of stage 7: layer norm's fused backward (Task 7.1)."""

from __future__ import annotations

import numpy as np

from grader.checks.mistakes import Mistake


def _parts(x, g, eps=1e-5):
    """xhat, 1 / sqrt(var + eps), the upstream gradient and the axes a weight is broadcast over."""
    v = x[0]
    centred = v - v.mean(axis=-1, keepdims=True)
    rstd = 1 / np.sqrt((centred ** 2).mean(axis=-1, keepdims=True) + eps)
    return centred * rstd, rstd, g, tuple(range(v.ndim - 1))


def _grad_x(kind):
    """The gradient for x with one mistake: ``kind`` names it."""
    def wrong(x, g, eps=1e-5):
        xhat, rstd, grad, _ = _parts(x, g, eps)
        d = grad if kind == "g without the weight" else grad * x[1]  # d(loss)/d(xhat)
        mean = lambda a: a.mean(axis=-1, keepdims=True)  # noqa: E731
        if kind in ("rstd missing", "divided by rstd"):  # 1 / sqrt(var + eps) left out, or taken as sqrt(var + eps)
            return (d - mean(d) - xhat * mean(d * xhat)) / (1 if kind == "rstd missing" else rstd)
        return rstd * {"forgot the mean's path": d - xhat * mean(d * xhat),
                       "forgot the variance's path": d - mean(d),
                       "mean and variance as constants": d,
                       "variance path's sign": d - mean(d) + xhat * mean(d * xhat),
                       "g without the weight": d - mean(d) - xhat * mean(d * xhat)}[kind]
    return wrong


def _weight(kind):
    def wrong(x, g, eps=1e-5):
        xhat, _, grad, batch = _parts(x, g, eps)
        if kind == "weight gradient not summed":
            return grad * xhat if batch else None
        if kind == "weight gradient without xhat":
            return grad.sum(axis=batch)
        if kind == "weight gradient a mean, not a sum":
            return (grad * xhat).mean(axis=batch) if batch else None
        return (grad * x[1] * xhat).sum(axis=batch)  # "weight gradient from g"
    return wrong


def _bias(kind):
    def wrong(x, g, eps=1e-5):
        if kind == "bias gradient not summed":
            return g if g.ndim > 1 else None
        if kind == "bias gradient a mean, not a sum":
            return g.mean(axis=tuple(range(g.ndim - 1))) if g.ndim > 1 else None
        if kind == "bias gradient from g":
            return (g * x[1]).sum(axis=tuple(range(g.ndim - 1)))
        return g.sum(axis=0) if g.ndim > 2 else None  # "bias summed over axis 0 only"
    return wrong


GRAD_X = [
    ("forgot the mean's path", "it leaves out the path through the mean: each x also moves the mean, which every "
     "output subtracts", "subtract the mean of d(loss)/d(xhat) over the last axis"),
    ("forgot the variance's path", "it leaves out the path through the variance: each x also moves the variance, "
     "which every output divides by", "subtract xhat times the mean of d(loss)/d(xhat) * xhat over the last axis"),
    ("mean and variance as constants", "it treats the mean and the variance as constants (only d(loss)/d(xhat) / "
     "sqrt(var + eps)): both depend on x too", "subtract both means: of g, and xhat times the mean of g * xhat"),
    ("variance path's sign", "the path through the variance is added: xhat times the mean of g * xhat is "
     "subtracted, as the mean of g is", "subtract xhat times the mean of g * xhat"),
    ("rstd missing", "it leaves out the factor 1 / sqrt(var + eps) (the saved rstd) in front: xhat = (x - mean) * "
     "rstd, so every path from x to the output goes through that factor", "multiply the whole bracket by rstd"),
    ("divided by rstd", "it divides by the saved rstd, which is already 1 / sqrt(var + eps): the bracket is "
     "multiplied by it", "multiply the bracket by rstd, do not divide by it"),
    ("g without the weight", "d(loss)/d(xhat) is taken to be grad itself: out = xhat * weight, so it is grad "
     "times weight", "set g to grad times weight before the formula"),
]

MISTAKES = [
    *[Mistake("7.1", "ops_norm.LayerNorm", 0, name, words, fix, _grad_x(name)) for name, words, fix in GRAD_X],
    Mistake("7.1", "ops_norm.LayerNorm", 1, "weight gradient not summed",
            "the weight's gradient is grad * xhat in x's shape: the weight is shared by every position, so its "
            "gradient is summed over every axis but the last", "sum grad times xhat over the batch axes",
            _weight("weight gradient not summed")),
    Mistake("7.1", "ops_norm.LayerNorm", 1, "weight gradient from g",
            "the weight's gradient is g times xhat, where g is grad times weight: the weight's own gradient is "
            "grad times xhat, without the weight (g is the gradient for xhat)", "sum grad (not g) times xhat over the batch axes",
            _weight("weight gradient from g")),
    Mistake("7.1", "ops_norm.LayerNorm", 1, "weight gradient without xhat",
            "the weight's gradient is grad summed over the batch axes, without xhat: that is the bias's gradient. "
            "out = xhat * weight + bias, so each weight is multiplied by xhat", "multiply grad by xhat before summing "
            "over the batch axes", _weight("weight gradient without xhat")),
    Mistake("7.1", "ops_norm.LayerNorm", 2, "bias gradient not summed",
            "the bias's gradient is grad in x's shape: the bias is added at every position, so its gradient is "
            "grad summed over every axis but the last", "sum grad over the batch axes", _bias("bias gradient not summed")),
    *[Mistake("7.1", "ops_norm.LayerNorm", i, f"{what} gradient a mean, not a sum",
              f"the {what}'s gradient is a mean over the batch axes, not a sum: every position adds its share of the "
              f"loss, so it is 1 / (number of positions) times the right one",
              f"sum {term} over every axis but the last, do not average",
              (_weight if i == 1 else _bias)(f"{what} gradient a mean, not a sum"))
      for i, what, term in ((1, "weight", "grad times xhat"), (2, "bias", "grad"))],
    Mistake("7.1", "ops_norm.LayerNorm", 2, "bias gradient from g",
            "the bias's gradient sums g, grad times weight: the bias is added after the weight, so its gradient is "
            "grad itself, summed", "sum grad (not g) over the batch axes", _bias("bias gradient from g")),
    Mistake("7.1", "ops_norm.LayerNorm", 2, "bias summed over axis 0 only",
            "the bias's gradient is summed over axis 0 only; x may have several leading axes (a batch of "
            "sequences), and it must be summed over all of them", "sum grad over every axis but the last",
            _bias("bias summed over axis 0 only")),
]
