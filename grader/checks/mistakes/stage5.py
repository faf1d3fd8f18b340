"""Known mistakes of stage 5: matmul (Task 5.1), GELU (5.2), logsumexp and the softmaxes (5.3); cross-entropy's
(5.4) are in stage5_loss.py."""

from __future__ import annotations

import math

import numpy as np

from grader.checks.mistakes import Mistake, unbroadcast

ERF = np.vectorize(math.erf, otypes=[float])
SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


def _cdf(x):
    return 0.5 * (1 + ERF(x / math.sqrt(2)))


def _pdf(x):
    return np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _tanh_parts(x):
    u = SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)
    return 0.5 * (1 + np.tanh(u)), SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)


def _gelu(kind):
    """GELU's gradient with one mistake: ``kind`` names it."""
    def wrong(x, g, approximate="none"):
        v = x[0].astype(np.float64)
        if kind == "exact form for 'tanh'":  # the forward's cdf, the other form's derivative
            return g * (_tanh_parts(v)[0] + v * _pdf(v)) if approximate == "tanh" else None
        if kind == "tanh form for 'none'":
            cdf = _cdf(v)
            return None if approximate == "tanh" else g * (cdf + 2 * v * cdf * (1 - cdf) * _tanh_parts(v)[1])
        if approximate == "tanh":
            cdf, du = _tanh_parts(v)
            if kind == "product term missing":
                return g * cdf
            if kind == "cdf term missing":
                return g * 2 * v * cdf * (1 - cdf) * du
            if kind in ("tanh of x, not of u", "tanh of x, and du missing"):  # sech^2(x) for sech^2(u)
                return g * (cdf + 0.5 * v * (1 - np.tanh(v) ** 2) * (du if kind == "tanh of x, not of u" else 1))
            if kind == "the cdf taken for the tanh":
                return g * (cdf + 0.5 * v * (1 - cdf * cdf) * du)
            if kind == "square missing":
                return g * (cdf + 0.5 * v * (1 - (2 * cdf - 1)) * du)
            if kind == "the cube's 3 missing":
                return g * (cdf + 2 * v * cdf * (1 - cdf) * SQRT_2_OVER_PI * (1 + 0.044715 * v * v))
            return g * (cdf + 2 * v * cdf * (1 - cdf)) if kind == "inner derivative missing" else None
        if kind == "product term missing":
            return g * _cdf(v)
        if kind == "cdf term missing":
            return g * v * _pdf(v)
        if kind == "sign of the product term":
            return g * (_cdf(v) - v * _pdf(v))
        return g * (_cdf(v) + v * np.exp(-0.5 * v * v)) if kind == "density not normalised" else None
    return wrong


GELU = [("product term missing", "GELU's gradient is only cdf(x): the product rule's second term, x * pdf(x), is "
         "missing (x * cdf(x) depends on x twice)", "add x times the derivative of the cdf (the density, or for 'tanh' the tanh "
         "form's derivative)"),
        ("cdf term missing", "GELU's gradient is only x times the cdf's derivative (x * pdf(x), or for 'tanh' its tanh "
         "form): only one term of the product rule. x * cdf(x) depends on x twice, so its derivative is cdf(x) + x * "
         "cdf'(x)", "add the first term, cdf(x) itself (the saved cdf), to x times the cdf's derivative"),
        *[(name, "the tanh form's derivative takes tanh of x, not of the inner u = sqrt(2 / pi) (x + 0.044715 x^3): "
           "the cdf is (1 + tanh(u)) / 2, so its derivative has 1 - tanh(u)^2" + also, "take tanh of u, not of x (or "
           "1 - tanh(u)^2 as 4 cdf (1 - cdf), from the saved cdf), times du/dx")
          for name, also in (("tanh of x, not of u", ""), ("tanh of x, and du missing", ", times du/dx, which is "
                                                                                        "missing too"))],
        ("sign of the product term", "GELU's gradient subtracts x * pdf(x); the product rule adds it",
         "add the product term, do not subtract it"),
        ("density not normalised", "the normal density lacks its 1 / sqrt(2 pi)",
         "divide the density by the square root of 2 pi"),
        ("square missing", "the tanh form's derivative uses 1 - tanh(u), without the square",
         "square the tanh (the saved cdf gives it without a second tanh)"),
        ("the cdf taken for the tanh", "the tanh form's derivative takes the saved cdf for tanh(u): the cdf is (1 + "
         "tanh(u)) / 2, so tanh(u) is 2 cdf - 1 and 1 - tanh(u)^2 is 4 cdf (1 - cdf)", "write d(cdf)/dx through the "
         "saved cdf: 2 cdf (1 - cdf) times du/dx (or take tanh(u) as 2 cdf - 1)"),
        ("exact form for 'tanh'", "with approximate='tanh' the backward takes the exact form's derivative, cdf + x * "
         "pdf(x): its branch on ctx.approximate is missing or wrong", "branch on ctx.approximate: for 'tanh', "
         "differentiate the tanh form (its cdf's derivative goes through tanh and the cubic)"),
        ("tanh form for 'none'", "with approximate='none' the backward takes the tanh form's derivative: its branch on "
         "ctx.approximate is missing or wrong", "branch on ctx.approximate: for 'none', the gradient is grad times "
         "(cdf + x * normal_pdf(x))"),
        ("the cube's 3 missing", "the derivative of 0.044715 * x ** 3 is taken without its 3",
         "differentiate the inner polynomial too: the cube gives 3 times x squared"),
        ("inner derivative missing", "the tanh form's derivative leaves out the inner derivative du/dx (the chain "
         "rule through u = sqrt(2 / pi) (x + 0.044715 x ** 3))",
         "multiply by du/dx, the derivative of the inner polynomial u, as the chain rule asks")]


def _lse(x, axis, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    out = m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis)


def _softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _no_expand(x, g, axis=None, keepdims=False):
    if keepdims or axis is None and np.ndim(g) == 0:
        return None
    return g * np.exp(x[0] - _lse(x[0], axis, keepdims=True))  # grad used as it came: its reduced axes missing


def _batch_not_summed(x, g):
    a, b = x
    if a.ndim < 2 or b.ndim < 2 or np.shape(g)[:-2] == b.shape[:-2]:
        return None
    return (np.swapaxes(a, -1, -2) @ g).reshape(b.shape)  # raises as the learner's reshape does


def _one_d_kept(x, g):
    """a's gradient when a is 1-D, left in the (1, n) shape of its matrix form."""
    a, b = x
    if a.ndim != 1:
        return None
    a2, b2 = a[None, :], (b if b.ndim > 1 else b[:, None])
    g2 = np.reshape(g, np.matmul(a2, b2).shape)
    return unbroadcast(g2 @ np.swapaxes(b2, -1, -2), a2.shape)


def _swap(a):
    return np.swapaxes(a, -1, -2)


_MISALIGNED = [  # products a learner writes for one of the gradients, each raising where the sizes differ
    lambda a, b, g: g @ b, lambda a, b, g: a @ g, lambda a, b, g: g @ _swap(a), lambda a, b, g: _swap(b) @ g,
    lambda a, b, g: _swap(g) @ a, lambda a, b, g: b @ _swap(g)]


def _raises_only(product):
    """The exception ``product`` raises on 2-D or larger operands, or None where it runs."""
    def wrong(x, g):
        if x[0].ndim < 2 or x[1].ndim < 2:
            return None
        product(x[0], x[1], g)
        return None
    return wrong


MISTAKES = [
    Mistake("5.1", "ops_linalg.MatMul", 0, "operand not transposed",
            "a's gradient is grad @ b: b must be transposed (its last two axes swapped)",
            "multiply the upstream gradient by b with its last two axes swapped",
            lambda x, g: unbroadcast(g @ x[1], x[0].shape) if x[0].ndim >= 2 and x[1].ndim >= 2 else None,
            names_its_error=False),
    Mistake("5.1", "ops_linalg.MatMul", 1, "operand not transposed",
            "b's gradient is a @ grad: a must be transposed (its last two axes swapped)",
            "multiply a with its last two axes swapped by the upstream gradient",
            lambda x, g: unbroadcast(x[0] @ g, x[1].shape) if x[0].ndim >= 2 and x[1].ndim >= 2 else None,
            names_its_error=False),
    *[Mistake("5.1", "ops_linalg.MatMul", 0, "operands do not line up",
              "a matmul in the backward got operands whose inner sizes differ: an operand is not transposed, or the "
              "two are in the wrong order (which of the two gradients it is, the line above says)",
              "a's gradient is grad @ (b with its last two axes swapped), b's is (a with its last two axes swapped) "
              "@ grad: each comes out in its input's shape", _raises_only(product)) for product in _MISALIGNED],
    Mistake("5.1", "ops_linalg.MatMul", 1, "batch axes not summed",
            "b's gradient keeps the batch axes it was broadcast along; they must be summed",
            "sum the product back to b's shape, as unbroadcast does", _batch_not_summed),
    Mistake("5.1", "ops_linalg.MatMul", 0, "1-D operand not reshaped back",
            "a 1-D operand's gradient keeps the size-1 axis its matrix form had", "reshape it back to the operand's shape",
            _one_d_kept),
    *[Mistake("5.2", "ops_activation.Gelu", 0, name, words, fix, _gelu(name)) for name, words, fix in GELU],
    Mistake("5.3", "ops_softmax.LogSumExp", 0, "expand_dims missing",
            "with keepdims=False the upstream gradient lacks the reduced axes, so it does not line up with x (NumPy "
            "broadcasts it along the wrong axes, or refuses)",
            "first put the reduced axes back as size 1 when keepdims was False", _no_expand),
    Mistake("5.3", "ops_softmax.LogSumExp", 0, "exp of the input",
            "the gradient is grad * exp(x): it must be divided by the sum of the exps, exp(x - out)",
            "exponentiate x minus the saved output",
            lambda x, g, axis=None, keepdims=False: np.expand_dims(g, axis) * np.exp(x[0])
            if not keepdims and axis is not None else None),
    Mistake("5.3", "ops_softmax.Softmax", 0, "sum over every axis",
            "the sum in softmax's backward runs over every axis, not along ctx.axis only",
            "sum grad times the output along the softmax's axis only, keeping it as size 1",
            lambda x, g, axis=-1: _softmax(x[0], axis) * (g - np.sum(g * _softmax(x[0], axis)))),
    Mistake("5.3", "ops_softmax.Softmax", 0, "keepdims missing",
            "the sum along the axis lost its size-1 axis (keepdims=False), so it does not line up with grad and out "
            "(NumPy broadcasts it along the wrong axes, or refuses)",
            "sum grad times the output along the softmax's axis with keepdims=True",
            lambda x, g, axis=-1: _softmax(x[0], axis) * (g - np.sum(g * _softmax(x[0], axis), axis=axis))
            if x[0].ndim > 1 else None),
    Mistake("5.3", "ops_softmax.Softmax", 0, "sum term missing",
            "softmax's backward is out * grad only: every output depends on every input of its row, so the sum "
            "term is missing", "sum grad times the output along the softmax's axis only, keeping it as size 1",
            lambda x, g, axis=-1: _softmax(x[0], axis) * g),
    Mistake("5.3", "ops_softmax.Softmax", 0, "sign flipped",
            "softmax's backward subtracts grad from the sum; the sum is what is subtracted from grad",
            "grad minus the sum, times the output",
            lambda x, g, axis=-1: _softmax(x[0], axis) * (np.sum(g * _softmax(x[0], axis), axis=axis, keepdims=True) - g)),
    Mistake("5.3", "ops_softmax.LogSoftmax", 0, "sum missing",
            "log_softmax's backward subtracts exp(out) * grad, not exp(out) times the sum of grad",
            "multiply the softmax by the sum of grad along the axis",
            lambda x, g, axis=-1: g - _softmax(x[0], axis) * g),
]

