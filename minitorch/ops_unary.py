"""Unary elementwise operations: out[i] = f(x[i]), so d out[i] / d x[j] is zero unless
i == j and the backward is the upstream gradient times f'(x), elementwise.

=========  ======================  =========================================
op         forward saves           backward returns (Task 3.1)
=========  ======================  =========================================
Neg        nothing                 d/dx, same shape and dtype as x
Exp        out
Log        x
Sqrt       out
Abs        x                       0 at x = 0 (as PyTorch)
Sin, Cos   x
Tanh       out
Sigmoid    out
Relu       x                       0 at x = 0 (as PyTorch)
=========  ======================  =========================================
"""

from __future__ import annotations

import numpy as np

from .function import Context, Function


class Neg(Function):
    """out = -x. The worked example: the other rules follow its pattern."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        return -x

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        return -grad


class Exp(Function):
    """out = e ** x."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        out = np.exp(x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        (out,) = ctx.saved
        # Task 3.1: Exp.backward
        raise NotImplementedError("Task 3.1: Exp.backward")


class Log(Function):
    """out = natural log of x (x > 0)."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(x)
        return np.log(x)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        (x,) = ctx.saved
        # Task 3.1: Log.backward
        raise NotImplementedError("Task 3.1: Log.backward")


class Sqrt(Function):
    """out = square root of x (x >= 0)."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        out = np.sqrt(x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        (out,) = ctx.saved
        # Task 3.1: Sqrt.backward
        raise NotImplementedError("Task 3.1: Sqrt.backward")


class Abs(Function):
    """out = |x|."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(x)
        return np.abs(x)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        (x,) = ctx.saved
        # Task 3.1: Abs.backward
        raise NotImplementedError("Task 3.1: Abs.backward")


class Sin(Function):
    """out = sin(x)."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(x)
        return np.sin(x)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        (x,) = ctx.saved
        # Task 3.1: Sin.backward
        raise NotImplementedError("Task 3.1: Sin.backward")


class Cos(Function):
    """out = cos(x)."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(x)
        return np.cos(x)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        (x,) = ctx.saved
        # Task 3.1: Cos.backward
        raise NotImplementedError("Task 3.1: Cos.backward")


class Tanh(Function):
    """out = tanh(x)."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        out = np.tanh(x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        (out,) = ctx.saved
        # Task 3.1: Tanh.backward
        raise NotImplementedError("Task 3.1: Tanh.backward")


class Sigmoid(Function):
    """out = 1 / (1 + e ** -x), computed as exp(-log(1 + e ** -x)) so it never overflows."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        out = np.exp(-np.logaddexp(0, -x))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        (out,) = ctx.saved
        # Task 3.1: Sigmoid.backward
        raise NotImplementedError("Task 3.1: Sigmoid.backward")


class Relu(Function):
    """out = max(x, 0)."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(x)
        return np.maximum(x, 0)

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:
        (x,) = ctx.saved
        # Task 3.1: Relu.backward
        raise NotImplementedError("Task 3.1: Relu.backward")


def neg(x): return Neg.apply(x)
def exp(x): return Exp.apply(x)
def log(x): return Log.apply(x)
def sqrt(x): return Sqrt.apply(x)
def abs(x): return Abs.apply(x)  # noqa: A001 - the name PyTorch uses
def sin(x): return Sin.apply(x)
def cos(x): return Cos.apply(x)
def tanh(x): return Tanh.apply(x)
def sigmoid(x): return Sigmoid.apply(x)
def relu(x): return Relu.apply(x)
