"""minitorch: reverse-mode automatic differentiation on NumPy arrays, built step by step.

    import minitorch as mt
    x = mt.Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (x * x).sum().backward()
    x.grad                      # 2 * x

Stage 1 (Scalar, the engine), stage 2 (broadcasting), stage 3 (unary ops, reductions),
stage 4 (shapes, indexing), stage 5 (matmul, GELU, softmax, cross-entropy) and stage 6
(nn, optim, training) and stage 7 (layer_norm, where, the transformer and language
modules) each add a layer.
"""

from . import datasets, language, nn, optim, training
from .autodiff import backpropagate, topological_order
from .course import plotting  # the room of the course's tools (course/): its two public names
from .course.hints import hint
from .function import Context, Function, is_grad_enabled, no_grad
from .gradcheck import GradcheckError, gradcheck, numerical_grads
from .losses import cross_entropy, mse_loss
from .nn import manual_seed
from .numerical import central_difference
from .ops_activation import gelu
from .ops_binary import add, div, maximum, minimum, mul, pow, sub
from .ops_index import cat, getitem, stack
from .ops_linalg import matmul
from .ops_norm import layer_norm
from .ops_select import where
from .ops_reduce import max, mean, min, sum
from .ops_shape import broadcast_to, flatten, reshape, squeeze, transpose, unsqueeze
from .ops_softmax import log_softmax, logsumexp, softmax
from .ops_unary import abs, cos, exp, log, neg, relu, sigmoid, sin, sqrt, tanh
from .scalar import Scalar
from .shapes import broadcast_shapes, unbroadcast
from .tensor import Tensor

__all__ = [
    "Scalar", "central_difference", "topological_order", "backpropagate",
    "Tensor", "Function", "Context", "no_grad", "is_grad_enabled",
    "broadcast_shapes", "unbroadcast",
    "add", "sub", "mul", "div", "pow", "maximum", "minimum",
    "neg", "exp", "log", "sqrt", "abs", "sin", "cos", "tanh", "sigmoid", "relu",
    "sum", "mean", "max", "min",
    "reshape", "transpose", "broadcast_to", "squeeze", "unsqueeze", "flatten",
    "getitem", "cat", "stack", "matmul", "gelu", "logsumexp", "log_softmax", "softmax",
    "cross_entropy", "mse_loss", "gradcheck", "GradcheckError", "numerical_grads", "manual_seed", "where", "layer_norm",
    "nn", "optim", "training", "datasets", "plotting", "language", "hint",
]
