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
    return 0.5 * (1 + _erf(x / math.sqrt(2.0)))


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
        raise NotImplementedError("Task 5.2: Gelu.backward (both approximations)")


def gelu(x, approximate: str = "none"): return Gelu.apply(x, approximate=approximate)
