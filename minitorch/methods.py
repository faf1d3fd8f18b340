"""Python syntax for Tensors: ``a + b``, ``a @ b``, ``x.sum(axis=1)``, ``x[0, ::2]``.

Each operator or method is a one-line call of an operation from an ``ops_*`` module. They
are attached here, after every module has been imported, so that ``tensor.py`` needs to
import none of the operations (imports flow one way).
"""

from __future__ import annotations

from . import ops_activation, ops_binary, ops_index, ops_linalg, ops_reduce, ops_shape, ops_softmax, ops_unary
from .tensor import Tensor


def _swap(op):
    """The reflected operator: ``2 - x`` calls ``x.__rsub__(2)``, which is ``sub(2, x)``."""
    return lambda self, other: op(other, self)


OPERATORS = {
    "__add__": ops_binary.add, "__radd__": _swap(ops_binary.add),
    "__sub__": ops_binary.sub, "__rsub__": _swap(ops_binary.sub),
    "__mul__": ops_binary.mul, "__rmul__": _swap(ops_binary.mul),
    "__truediv__": ops_binary.div, "__rtruediv__": _swap(ops_binary.div),
    "__pow__": ops_binary.pow, "__rpow__": _swap(ops_binary.pow),
    "__matmul__": ops_linalg.matmul, "__rmatmul__": _swap(ops_linalg.matmul),
    "__neg__": ops_unary.neg,
    "__getitem__": ops_index.getitem,
}

METHODS = {
    "exp": ops_unary.exp, "log": ops_unary.log, "sqrt": ops_unary.sqrt, "abs": ops_unary.abs,
    "sin": ops_unary.sin, "cos": ops_unary.cos, "tanh": ops_unary.tanh,
    "sigmoid": ops_unary.sigmoid, "relu": ops_unary.relu, "gelu": ops_activation.gelu,
    "sum": ops_reduce.sum, "mean": ops_reduce.mean, "max": ops_reduce.max, "min": ops_reduce.min,
    "logsumexp": ops_softmax.logsumexp, "softmax": ops_softmax.softmax,
    "log_softmax": ops_softmax.log_softmax,
    "reshape": ops_shape.reshape, "transpose": ops_shape.transpose,
    "broadcast_to": ops_shape.broadcast_to, "squeeze": ops_shape.squeeze,
    "unsqueeze": ops_shape.unsqueeze, "flatten": ops_shape.flatten,
    "matmul": ops_linalg.matmul,
}

for _name, _function in {**OPERATORS, **METHODS}.items():
    setattr(Tensor, _name, _function)
Tensor.__abs__ = ops_unary.abs
Tensor.T = property(ops_shape.Transpose.apply, doc="The tensor with its axes reversed.")
