"""Hidden checks of stage 5: matmul, GELU, softmax and friends, cross-entropy."""

from __future__ import annotations

import math

import numpy as np

from .checks import (CheckFailure, check_float32, check_rule, explain, math_erf, patched, run_rule,
                     trusted_unbroadcast)
from .numeric import numeric_vjp
from .registry import task

MATMUL_SHAPES = [((2, 3), (3, 4)), ((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((4, 2, 3), (3, 5)),
                 ((2, 1, 2, 3), (4, 3, 2)), ((3,), (2, 3, 4)), ((2, 2, 3), (3,))]


@task("5.1")
def matmul_gradients(mt, rng):
    with patched(mt.ops_linalg, unbroadcast=trusted_unbroadcast):
        for a_shape, b_shape in MATMUL_SHAPES:
            arrays = [rng.standard_normal(a_shape), rng.standard_normal(b_shape)]
            check_rule(mt, mt.ops_linalg.MatMul, np.matmul, arrays, rng, label=f" of {a_shape} @ {b_shape}")
        check_float32(mt, mt.ops_linalg.MatMul, [np.ones((2, 2, 3)), np.ones((3, 4))])


def gelu_exact(x):
    return 0.5 * x * (1 + math_erf(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


@task("5.2")
def gelu_gradients(mt, rng):
    for approximate, reference in (("none", gelu_exact), ("tanh", gelu_tanh)):
        for shape in [(), (7,), (3, 4)]:
            check_rule(mt, mt.ops_activation.Gelu, reference, [rng.uniform(-4, 4, shape)], rng,
                       label=f"(approximate={approximate!r})", approximate=approximate)
        check_float32(mt, mt.ops_activation.Gelu, [rng.uniform(-3, 3, (5,))], approximate=approximate)


def log_softmax(x, axis):
    return x - np.log(np.sum(np.exp(x), axis=axis, keepdims=True))


@task("5.3")
def softmax_family_gradients(mt, rng):
    ops = mt.ops_softmax
    for shape, axis in [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1)]:
        x = rng.standard_normal(shape) * 2
        check_rule(mt, ops.LogSoftmax, lambda a: log_softmax(a, axis), [x], rng, label=f"(axis={axis})", axis=axis)
        check_rule(mt, ops.Softmax, lambda a: np.exp(log_softmax(a, axis)), [x], rng, label=f"(axis={axis})", axis=axis)
        for keepdims in (False, True):
            check_rule(mt, ops.LogSumExp, lambda a: np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdims)), [x],
                       rng, label=f"(axis={axis}, keepdims={keepdims})", axis=axis, keepdims=keepdims)
    check_float32(mt, ops.Softmax, [np.ones((2, 3))], axis=1)


@task("5.3")
def softmax_is_stable(mt, rng):
    x = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1002.0, -1001.0]])
    shifted = x - x.max(axis=1, keepdims=True)
    got = mt.ops_softmax.stable_logsumexp(x, (1,))  # warnings on the way are fine: only the result counts
    if got is not None and not np.all(np.isfinite(got)):
        raise CheckFailure(f"stable_logsumexp gave {np.ravel(got).tolist()} on inputs near ±1000: exp overflowed "
                           "(or underflowed to log(0)); subtract the maximum before exponentiating")
    expected = x.max(axis=1, keepdims=True) + np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    explain("stable_logsumexp on inputs near ±1000 (an unstable softmax overflows here)", got, expected, rtol=1e-12)


def cross_entropy(logits, target, reduction):
    lp = log_softmax(logits, 1)
    losses = -lp[np.arange(len(lp)), target] if target.dtype.kind in "iu" else -np.sum(target * lp, axis=1)
    return {"none": losses, "sum": losses.sum(), "mean": losses.mean()}[reduction]


@task("5.4")
def cross_entropy_gradients(mt, rng):
    def trusted_lse(x, axes):
        m = np.max(x, axis=axes, keepdims=True)
        return m + np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True))

    with patched(mt.ops_softmax, stable_logsumexp=trusted_lse):
        for reduction in ("mean", "sum", "none"):
            for n, c in [(4, 3), (1, 5), (6, 2)]:
                logits = rng.standard_normal((n, c)) * 2
                index = rng.integers(0, c, n)
                _check_index_target(mt, logits, index, reduction, rng)
                probs = rng.dirichlet(np.ones(c), n)
                check_rule(mt, mt.losses.CrossEntropy, lambda a, t: cross_entropy(a, t, reduction), [logits, probs],
                           rng, label=f"(probabilities, reduction={reduction!r})", reduction=reduction)


def _check_index_target(mt, logits, index, reduction, rng):
    """Integer targets get no gradient, so only the logits' gradient is compared."""
    out, grads, upstream = run_rule(mt, mt.losses.CrossEntropy, [logits, index], rng=rng, reduction=reduction)
    explain(f"CrossEntropy.forward (class indices, reduction={reduction!r})", out,
            np.asarray(cross_entropy(logits, index, reduction)), rtol=1e-7, atol=1e-10)
    expected = numeric_vjp(lambda a: cross_entropy(a, index, reduction), [logits], upstream, 0)
    explain(f"CrossEntropy.backward: the gradient for the logits (class indices, reduction={reduction!r}); "
            "it should be (softmax - one_hot) times the upstream gradient, divided by N for 'mean'",
            grads[0], expected)
