"""GELU, the activation of most transformers: out = x * Φ(x), where Φ is the standard
normal's cumulative distribution function. Large positive x pass almost unchanged, large
negative x are silenced, and around zero the curve is smooth (unlike ReLU's corner).

    exact:  Φ(x) = (1 + erf(x / √2)) / 2
    tanh:   Φ(x) ≈ (1 + tanh(√(2/π) (x + 0.044715 x³))) / 2

=====  ============================  ============================================
op     forward saves                 backward returns (Task 5.2)
=====  ============================  ============================================
Gelu   x, Φ(x) (erf or tanh form),   upstream gradient times d out / d x
       which approximation
=====  ============================  ============================================
"""

from __future__ import annotations

import math

import numpy as np

from .function import Context, Function

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
TANH_CUBIC = 0.044715


def _erf(x: np.ndarray) -> np.ndarray:
    # SciPy is imported here, not at the top, so that `import minitorch` stays fast.
    from scipy.special import erf
    return erf(x)


def normal_cdf(x: np.ndarray) -> np.ndarray:
    """Φ(x), the probability that a standard normal variable is at most x."""
    if x.dtype == np.float32:
        return _normal_cdf_float32(x)
    return 0.5 * (1 + _erf(x / math.sqrt(2.0)))


# SciPy's erf works in float64, one element at a time: in float32 it would cost as much as
# all the rest of a GPT's training step. So float32 takes a formula of NumPy operations
# on whole arrays, as close to Φ as float32 can tell (within 3e-7): for z = |x| / √2 and
# t = 1 / (1 + z / 2), erfc(z) = t exp(P(t) - z²), where P is the polynomial of degree 9
# closest (least squares at Chebyshev points of [0, 1]) to log(erfc(z) / t) + z², the
# form of Numerical Recipes' erfcc. Its coefficients, from t⁰ up:
ERFC_POLYNOMIAL = np.array([-1.2655122251, 1.0000236802, 0.3740919597, 0.0967841895, -0.1862880617,
                            0.2788680845, -1.1352040004, 1.4885158892, -0.8221522344, 0.1708727777],
                           dtype=np.float32)


def _normal_cdf_float32(x: np.ndarray) -> np.ndarray:
    # Written with in-place operations (a *= b): on large arrays, not allocating a new
    # array for every step is most of the speed. On x as 1-D, for NumPy gives 0-d results
    # as scalars, which have no place to work in.
    flat = x.reshape(-1)
    z = np.abs(flat)
    z *= math.sqrt(0.5)
    t = 0.5 * z
    t += 1
    np.reciprocal(t, out=t)
    poly = ERFC_POLYNOMIAL[-1] * t
    for c in ERFC_POLYNOMIAL[-2:0:-1]:  # Horner's rule
        poly += c
        poly *= t
    poly += ERFC_POLYNOMIAL[0]
    z *= z
    poly -= z
    tail = np.exp(poly, out=poly)
    t *= 0.5
    tail *= t  # Φ(-|x|) = erfc(z) / 2
    # Φ(x) is the tail where x < 0 and 1 - tail where x > 0: add 0 or twice (0.5 - tail).
    half = 0.5 - tail
    flip = np.copysign(half, flat, out=z)
    flip += half
    tail += flip
    return tail.reshape(x.shape)


def normal_pdf(x: np.ndarray) -> np.ndarray:
    """φ(x) = exp(-x²/2) / √(2π), the standard normal density."""
    return np.exp(-0.5 * x * x) * (1 / math.sqrt(2.0 * math.pi))


def tanh_inner(x: np.ndarray) -> np.ndarray:
    """u(x) = √(2/π) (x + 0.044715 x³), the argument of tanh in the approximation."""
    return SQRT_2_OVER_PI * (x + TANH_CUBIC * x * x * x)


class Gelu(Function):
    """out = x Φ(x), exact (``approximate="none"``) or with the tanh formula."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, approximate: str = "none") -> np.ndarray:
        if approximate not in ("none", "tanh"):
            raise ValueError(f'gelu: approximate must be "none" or "tanh", got {approximate!r}')
        ctx.approximate = approximate
        if approximate == "tanh":
            cdf = 0.5 * (1 + np.tanh(tanh_inner(x)))
        else:
            cdf = normal_cdf(x)  # erf is slow: the backward reuses this rather than recompute it
        ctx.save_for_backward(x, cdf)
        return x * cdf

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        x, cdf = ctx.saved  # cdf is Φ(x), or its tanh form, as the forward computed it
        # Task 5.2: Gelu.backward (both approximations)
        ### BEGIN SOLUTION
        if ctx.approximate == "tanh":
            # With t = tanh(u), cdf = (1 + t) / 2, so 1 - t² = 4 cdf (1 - cdf): no second tanh.
            du = SQRT_2_OVER_PI * (1 + 3 * TANH_CUBIC * x * x)
            return grad * (cdf + 2 * x * cdf * (1 - cdf) * du)
        return grad * (cdf + x * normal_pdf(x))
        ### END SOLUTION


def gelu(x, approximate: str = "none"): return Gelu.apply(x, approximate=approximate)
