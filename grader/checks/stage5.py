"""Stage 5: matmul, GELU, the softmax family, cross-entropy."""

from __future__ import annotations

import numpy as np

from grader.boundary.runner import Raised
from grader.checks import part
from grader.checks.common import CheckFailure, explain, learner_raised
from grader.checks.naming import judge, judge_value, known_for, name_value_mistake, named_raise
from grader.checks.numeric import numeric_vjp
from grader.checks.reference import cross_entropy, gelu_exact, gelu_tanh, log_softmax, stable_lse
from grader.checks.rules import check_float32, check_large, check_rule, run_rule

SWAP = {"ops_linalg.unbroadcast": "unbroadcast"}


def _matmul(w, rng, shapes, views=()):
    for a_shape, b_shape in shapes:
        arrays = [rng.standard_normal(a_shape), rng.standard_normal(b_shape)]
        check_rule(w, "ops_linalg.MatMul", np.matmul, arrays, rng, label=f" of {a_shape} @ {b_shape}", kind="matmul",
                   swaps=SWAP, views=views)


@part("5.1", "2-D")
def matmul_2d(w, rng):
    _matmul(w, rng, [((2, 3), (3, 4)), ((1, 3), (3, 1)), ((4, 4), (4, 4))])
    check_float32(w, "ops_linalg.MatMul", [np.ones((2, 3)), np.ones((3, 4))], np.matmul, swaps=SWAP)


# Each part's cases stay inside what the part names, so that a mistake in one case kind (a
# batch, a 1-D operand, a view) costs that part only.
@part("5.1", "1-D operands")
def matmul_1d(w, rng):
    _matmul(w, rng, [((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,))])


@part("5.1", "batched")
def matmul_batched(w, rng):
    _matmul(w, rng, [((4, 2, 3), (3, 5)), ((2, 1, 2, 3), (4, 3, 2)), ((3, 2), (2, 2, 4)), ((1, 2, 3), (5, 3, 2)),
                     ((4, 2, 3), (1, 3, 5)), ((2, 3, 4, 2, 3), (4, 3, 5))])  # b's batch: size 1, two axes short
    # x @ W.T for a batch of sequences x, and a transposed batch
    _matmul(w, rng, [((2, 3, 4), (4, 5))], views=[1])
    _matmul(w, rng, [((2, 4, 3), (3, 2))], views=[0])
    check_float32(w, "ops_linalg.MatMul", [np.ones((2, 2, 3)), np.ones((3, 4))], np.matmul, swaps=SWAP)


@part("5.1", "non-contiguous operands")
def matmul_views(w, rng):
    """Transposed views, as in x @ W.T."""
    _matmul(w, rng, [((3, 4), (4, 5))], views=[1])
    _matmul(w, rng, [((3, 4), (4, 2))], views=[0])
    _matmul(w, rng, [((2, 3), (3, 3))], views=[0, 1])


def _gelu_part(approximate, reference):
    def check(w, rng):
        for shape in [(), (7,), (3, 4)]:
            check_rule(w, "ops_activation.Gelu", reference, [rng.uniform(-4, 4, shape)], rng,
                       label=f"(approximate={approximate!r})", approximate=approximate)
        check_rule(w, "ops_activation.Gelu", reference, [np.array([0.0, -6.0, 6.0])], rng,
                   label=f"(approximate={approximate!r}) at 0 and ±6", approximate=approximate)
        check_float32(w, "ops_activation.Gelu", [rng.uniform(-3, 3, (5,))], reference, approximate=approximate)
        check_large(w, "ops_activation.Gelu", reference, [np.array([-1000.0, -30.0, 30.0, 1000.0])], "x up to ±1000",
                    "Far from 0 the density is 0 and the tanh is ±1: a formula that multiplies a huge number by them "
                    "(or divides by an overflowing cosh) gives nan.", label=f"(approximate={approximate!r})",
                    approximate=approximate)
    return check


part("5.2", "exact")(_gelu_part("none", gelu_exact))
part("5.2", "tanh")(_gelu_part("tanh", gelu_tanh))


# Logits where probabilities underflow (far below the row's maximum) and exps overflow.
EXTREME = np.array([[-1000.0, -1001.0, -1003.0], [1000.0, 999.0, 990.0], [0.5, -1000.0, 2.0]])
EXTREME_WHAT = "rows near -1000, near 1000, and one logit 1000 below the others"
EXTREME_HINT = ("Where exp(x) underflows to 0 or overflows to inf, a ratio of exps gives nan: work with differences "
                "(exp(x - out), or the saved output) so that every exponent stays at most 0.")


SOFTMAX_CASES = [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1), ((2, 1, 3), -2)]
LSE_SWAP = {"ops_softmax.stable_logsumexp": "stable_logsumexp"}


@part("5.3", "stable_logsumexp")
def logsumexp_is_stable(w, rng):
    x = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1002.0, -1001.0], [0.5, -0.25, 2.0], [0.0, 1500.0, -1500.0]])
    try:
        got = w.call("call", doing="running stable_logsumexp on rows near ±1000 and spread to ±1500",
                     function="ops_softmax.stable_logsumexp", args=[x, (1,)])
    except Raised as error:
        raise learner_raised(error, "stable_logsumexp(x, axes=(1,)) on rows near ±1000 and spread to ±1500") from None
    m = x.max(axis=1, keepdims=True)
    what, case = "stable_logsumexp(x, axes=(1,)) on rows near ±1000 and spread to ±1500", {"x": x, "axes": (1,)}
    name_value_mistake("stable logsumexp", case, what, got, m + np.log(np.exp(x - m).sum(1, keepdims=True)), 1e-12, 1e-9)
    if isinstance(got, np.ndarray) and got.dtype.kind == "f" and not np.all(np.isfinite(got)):
        raise CheckFailure(f"stable_logsumexp gave {np.ravel(got).tolist()} on rows near 1000, near -1000 and spread "
                           "from -1500 to 1500: exp overflowed (or every exp underflowed to 0, and log(0) = -inf); "
                           "subtract each reduced group's own maximum (x.max(axis=axes, keepdims=True), not the mean "
                           "and not the maximum of the whole array) before exponentiating", "unstable softmax")
    explain(what, got, m + np.log(np.exp(x - m).sum(1, keepdims=True)), rtol=1e-12)
    _all_minus_inf(w)


def _all_minus_inf(w):
    """A row whose values are all -inf gives -inf (log of a sum of zeros), as PyTorch's logsumexp does."""
    what = "stable_logsumexp(x, axes=(1,)) on a row of all -inf and the row [0, -inf, 1]"
    try:
        got = w.call("call", doing=f"running {what}", function="ops_softmax.stable_logsumexp",
                     args=[np.array([[-np.inf] * 3, [0.0, -np.inf, 1.0]]), (1,)])
    except Raised as error:
        raise learner_raised(error, what) from None
    want = np.array([[-np.inf], [np.log(1 + np.e)]])
    if not isinstance(got, np.ndarray) or got.shape != want.shape or got.dtype.kind != "f":
        explain(what, got, np.nan_to_num(want))  # its type or shape first
    elif got[0, 0] != -np.inf:
        why = ": its maximum is -inf, and x - max is then -inf - (-inf) = nan" if np.isnan(got[0, 0]) else ""
        raise CheckFailure(f"{what}: the row of all -inf gave {got[0, 0]}, expected -inf (the log of a sum of zeros, as "
                           f"PyTorch's logsumexp gives){why} (known mistake: all -inf group not guarded). Fix: where a "
                           "group's maximum is not finite, shift that group by 0 instead, so that the sum of its exps "
                           "is 0 and its log -inf", "all -inf group not guarded", keep=0.5)
    explain(f"{what}, the second row", got[1:], want[1:], rtol=1e-12)


@part("5.3", "LogSumExp")
def logsumexp_rule(w, rng):
    for shape, axis in SOFTMAX_CASES:
        for keepdims in (False, True):
            check_rule(w, "ops_softmax.LogSumExp", lambda a: np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdims)),
                       [rng.standard_normal(shape) * 2], rng, label=f"(axis={axis}, keepdims={keepdims})",
                       kind="reduction", swaps=LSE_SWAP, axis=axis, keepdims=keepdims)
    check_float32(w, "ops_softmax.LogSumExp", [np.ones((2, 3))], lambda a: np.log(np.exp(a).sum(1)), swaps=LSE_SWAP,
                  axis=1, keepdims=False)
    check_large(w, "ops_softmax.LogSumExp", lambda a: stable_lse(a, 1), [EXTREME], EXTREME_WHAT, EXTREME_HINT,
                swaps=LSE_SWAP, axis=1, keepdims=False)


def _softmax_part(name, reference):
    def check(w, rng):
        for shape, axis in SOFTMAX_CASES:
            check_rule(w, f"ops_softmax.{name}", lambda a: reference(a, axis), [rng.standard_normal(shape) * 2], rng,
                       label=f"(axis={axis})", swaps=LSE_SWAP, axis=axis)
        check_float32(w, f"ops_softmax.{name}", [np.ones((2, 3))], lambda a: reference(a, 1), swaps=LSE_SWAP, axis=1)
        check_large(w, f"ops_softmax.{name}", lambda a: reference(a, 1), [EXTREME], EXTREME_WHAT, EXTREME_HINT,
                    swaps=LSE_SWAP, axis=1)
    return check


part("5.3", "LogSoftmax")(_softmax_part("LogSoftmax", log_softmax))
part("5.3", "Softmax")(_softmax_part("Softmax", lambda a, axis: np.exp(log_softmax(a, axis))))


@part("5.4", "class indices")
def cross_entropy_indices(w, rng):
    for reduction in ("mean", "sum", "none"):
        for n, c in [(4, 3), (1, 5), (6, 2)]:
            logits, index = rng.standard_normal((n, c)) * 2, rng.integers(0, c, n)
            upstream = rng.standard_normal(np.shape(cross_entropy(logits, index, reduction)))
            try:
                out, grads = run_rule(w, "losses.CrossEntropy", [logits, index], upstream,
                                      f"(class indices, reduction={reduction!r})", LSE_SWAP, reduction=reduction)
            except CheckFailure as failure:
                known = known_for("losses.CrossEntropy", [logits, index], upstream, dict(reduction=reduction))
                raise named_raise(failure, known) from None
            case = f"logits of shape {(n, c)}, class indices {index.tolist()}, reduction={reduction!r}"
            judge_value(f"CrossEntropy.forward ({case})", "cross-entropy forward",
                        {"logits": logits, "target": index, "reduction": reduction}, out,
                        cross_entropy(logits, index, reduction), rtol=1e-7, atol=1e-10)
            expected = numeric_vjp(lambda a: cross_entropy(a, index, reduction), [logits], upstream, 0)
            judge(f"CrossEntropy.backward: the gradient for the logits ({case}); it should be (softmax - one_hot) "
                  "times the upstream gradient, divided by N for 'mean'", "losses.CrossEntropy", [logits, index],
                  upstream, dict(reduction=reduction), 0, grads[0], expected)
            if grads[1] is not None:
                raise CheckFailure("CrossEntropy.backward must return None for integer class indices: they get no "
                                   "gradient", "gradient for indices")
    _extreme_cross_entropy(w, np.array([2, 0, 1]), "class indices")
    logits, index = np.ones((3, 4), np.float32), np.array([0, 1, 2])
    _, grads = run_rule(w, "losses.CrossEntropy", [logits, index], np.float32(1.0), " (float32)", LSE_SWAP,
                        reduction="mean")
    if not isinstance(grads[0], np.ndarray) or grads[0].dtype != np.float32:
        got = getattr(grads[0], "dtype", type(grads[0]).__name__)
        raise CheckFailure(f"CrossEntropy.backward: float32 logits of shape (3, 4) with class indices [0, 1, 2] got a "
                           f"{got} gradient, not float32 (dtype drift: a float64 constant or array crept in)",
                           "dtype drift", keep=0.5)


TARGET_GRADIENT = ("A probability target gets a gradient too, as in PyTorch: the loss's derivative by the target, "
                   "minus log_p times rows (the upstream gradient per row), returned second by CrossEntropy.backward")


@part("5.4", "probabilities")
def cross_entropy_probabilities(w, rng):
    for reduction in ("mean", "sum", "none"):
        for n, c in [(4, 3), (1, 5)]:
            logits, probs = rng.standard_normal((n, c)) * 2, rng.dirichlet(np.ones(c), n)
            check_rule(w, "losses.CrossEntropy", lambda a, t: cross_entropy(a, t, reduction), [logits, probs], rng,
                       label=f"(probabilities, reduction={reduction!r})", swaps=LSE_SWAP, reduction=reduction,
                       missing={1: TARGET_GRADIENT}, value=_forward(logits, probs, reduction))
        # weighted soft labels, whose rows do not sum to 1 (PyTorch takes them): p alone minus the target is wrong here
        weighted = rng.dirichlet(np.ones(3), 4) * np.array([[0.5], [2.0], [1.5], [3.0]])
        logits = rng.standard_normal((4, 3)) * 2
        check_rule(w, "losses.CrossEntropy", lambda a, t: cross_entropy(a, t, reduction),
                   [logits, weighted], rng, swaps=LSE_SWAP, reduction=reduction,
                   missing={1: TARGET_GRADIENT}, value=_forward(logits, weighted, reduction),
                   label=f"(probabilities whose rows sum to 0.5, 2, 1.5 and 3, reduction={reduction!r})")
    check_float32(w, "losses.CrossEntropy", [np.ones((2, 3)), np.full((2, 3), 1 / 3)],
                  lambda a, t: cross_entropy(a, t, "mean"), swaps=LSE_SWAP, reduction="mean")
    _extreme_cross_entropy(w, np.array([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0], [0.25, 0.5, 0.25]]), "probabilities")
    logits, probs = rng.standard_normal((4, 3)), rng.dirichlet(np.ones(3), 4)
    _, grads = run_rule(w, "losses.CrossEntropy", [logits, probs], np.float64(1.0), " (probabilities that need no "
                        "gradient)", LSE_SWAP, needs=(True, False), reduction="mean")
    if grads[1] is not None:
        raise CheckFailure("CrossEntropy.backward: logits of shape (4, 3) with class probabilities that need no "
                           "gradient (ctx.needs_input_grad[1] is False), reduction='mean', gave the target a gradient; "
                           "expected None: return None for an input whose ctx.needs_input_grad is False",
                           "gradient not needed")


def _forward(logits, target, reduction):
    """The forward's site among the value mistakes, with this case (a wrong loss names one on evidence)."""
    return "cross-entropy forward", {"logits": logits, "target": target, "reduction": reduction}


def _extreme_cross_entropy(w, target, kind):
    """Logits where the true class's probability underflows to 0 (its logit 1000 below the
    rest): the loss is about 1000, never inf, and the gradient finite."""
    differentiable = [0, 1] if kind == "probabilities" else [0]
    check_large(w, "losses.CrossEntropy", lambda a, t: cross_entropy(a, t, "sum"), [EXTREME, target], EXTREME_WHAT,
                "The loss is -log_p[true class], read from the log-probabilities themselves: np.log(np.exp(log_p)) "
                "loses them where exp underflows to 0 (log(0) = -inf).", label=f"({kind}, reduction='sum')",
                swaps=LSE_SWAP, differentiable=differentiable, reduction="sum")
