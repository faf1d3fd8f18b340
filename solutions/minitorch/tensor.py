"""The Tensor: an ndarray that remembers how it was computed.

A Tensor holds its values in ``.data`` (a NumPy array) and, when it was produced by an
operation that needs gradients, the record of that operation in ``.grad_fn``. Leaves
(tensors made by the user with ``requires_grad=True``) collect gradients in ``.grad``.

Its operators and methods (``a + b``, ``a @ b``, ``x.sum(axis=1)``, ``x[0, ::2]``) are
defined here, each one call of an operation: ``a + b`` is ``mt.add(a, b)``. The operations
are ``Function`` classes in the ``ops_*`` modules, which build on this one, so imports flow
one way: ``autodiff`` <- ``tensor`` <- ``function`` <- ``ops_*``; the methods find the
operations in the package when they are called, once every module has loaded.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .autodiff import backpropagate

# The minitorch package itself, whose operations (``mt.add``, ``mt.sum``...) Tensor's
# methods call. It is still loading when this module is imported; the methods look the
# operations up when they run.
mt = sys.modules[__package__]


def as_array(data: Any, dtype: Any = None) -> np.ndarray:
    """``data`` as a fresh floating-point ndarray.

    Floating-point input keeps its dtype (float32 stays float32); Python numbers, ints and
    bools become float64, unless ``dtype`` says otherwise.
    """
    if isinstance(data, Tensor):
        data = data.data
    array = np.array(data, dtype=dtype)
    if dtype is None and array.dtype.kind != "f":  # not a floating-point dtype
        if array.dtype == object:
            raise TypeError(f"cannot make a Tensor from {type(data).__name__}: "
                            "expected numbers, nested lists of numbers or an ndarray")
        array = array.astype(np.float64)
    return array


class Tensor:
    """An n-dimensional array of floats with reverse-mode automatic differentiation.

    Args:
        data: anything ``np.array`` accepts. It is copied.
        requires_grad: collect d(output)/d(this tensor) in ``.grad`` on ``backward()``.
        dtype: the NumPy dtype to store; by default float input keeps its dtype and
            everything else becomes float64.
    """

    __slots__ = ("data", "requires_grad", "grad", "grad_fn", "__weakref__")
    # Make NumPy hand `ndarray + Tensor` over to Tensor.__radd__ instead of looping.
    __array_ufunc__ = None

    def __init__(self, data: Any, requires_grad: bool = False, dtype: Any = None) -> None:
        self.data = as_array(data, dtype)
        if requires_grad and self.data.dtype.kind != "f":
            raise TypeError(f"only floating-point tensors can require gradients, "
                            f"not {self.data.dtype}")
        self.requires_grad = bool(requires_grad)
        self.grad: np.ndarray | None = None
        self.grad_fn = None

    @staticmethod
    def _from_op(data: np.ndarray, grad_fn: Any = None) -> "Tensor":
        """The output of an operation: ``data`` is used as it is, not copied."""
        out = _new_tensor(Tensor)
        out.data = data
        out.requires_grad = grad_fn is not None
        out.grad = None
        out.grad_fn = grad_fn
        return out

    # ---- array facts ----------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def size(self) -> int:
        return self.data.size

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def item(self) -> float:
        if self.size != 1:
            raise ValueError(f"item() needs a one-element tensor, this one has shape {self.shape}")
        return self.data.item()

    def numpy(self) -> np.ndarray:
        """The values as an ndarray (shared, not copied, as in PyTorch)."""
        return self.data

    def detach(self) -> "Tensor":
        """The same values, cut off from the graph (the data is shared, not copied)."""
        return Tensor._from_op(self.data)

    def zero_grad(self) -> None:
        self.grad = None

    def __repr__(self) -> str:
        body = np.array2string(self.data, separator=", ", prefix="Tensor(")
        extras = []
        if self.dtype != np.float64:
            extras.append(f"dtype={self.dtype}")
        if self.grad_fn is not None:
            extras.append(f"grad_fn={self.grad_fn.name}")
        elif self.requires_grad:
            extras.append("requires_grad=True")
        return "Tensor(" + ", ".join([body] + extras) + ")"

    # ---- operators and methods: each is one operation of an ops_* module -------------
    def __add__(self, other: Any) -> Tensor: return mt.add(self, other)
    def __radd__(self, other: Any) -> Tensor: return mt.add(other, self)  # 2 + x
    def __sub__(self, other: Any) -> Tensor: return mt.sub(self, other)
    def __rsub__(self, other: Any) -> Tensor: return mt.sub(other, self)
    def __mul__(self, other: Any) -> Tensor: return mt.mul(self, other)
    def __rmul__(self, other: Any) -> Tensor: return mt.mul(other, self)
    def __truediv__(self, other: Any) -> Tensor: return mt.div(self, other)
    def __rtruediv__(self, other: Any) -> Tensor: return mt.div(other, self)
    def __pow__(self, other: Any) -> Tensor: return mt.pow(self, other)
    def __rpow__(self, other: Any) -> Tensor: return mt.pow(other, self)
    def __matmul__(self, other: Any) -> Tensor: return mt.matmul(self, other)
    def __rmatmul__(self, other: Any) -> Tensor: return mt.matmul(other, self)
    def __neg__(self) -> Tensor: return mt.neg(self)
    def __abs__(self) -> Tensor: return mt.abs(self)
    def __getitem__(self, index: Any) -> Tensor: return mt.getitem(self, index)

    def exp(self) -> Tensor: return mt.exp(self)
    def log(self) -> Tensor: return mt.log(self)
    def sqrt(self) -> Tensor: return mt.sqrt(self)
    def abs(self) -> Tensor: return mt.abs(self)
    def sin(self) -> Tensor: return mt.sin(self)
    def cos(self) -> Tensor: return mt.cos(self)
    def tanh(self) -> Tensor: return mt.tanh(self)
    def sigmoid(self) -> Tensor: return mt.sigmoid(self)
    def relu(self) -> Tensor: return mt.relu(self)
    def gelu(self, approximate: str = "none") -> Tensor: return mt.gelu(self, approximate)

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor: return mt.sum(self, axis, keepdims)
    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor: return mt.mean(self, axis, keepdims)
    def max(self, axis: Any = None, keepdims: bool = False) -> Tensor: return mt.max(self, axis, keepdims)
    def min(self, axis: Any = None, keepdims: bool = False) -> Tensor: return mt.min(self, axis, keepdims)
    def logsumexp(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        return mt.logsumexp(self, axis, keepdims)
    def softmax(self, axis: int = -1) -> Tensor: return mt.softmax(self, axis)
    def log_softmax(self, axis: int = -1) -> Tensor: return mt.log_softmax(self, axis)

    def reshape(self, *shape: Any) -> Tensor: return mt.reshape(self, *shape)
    def transpose(self, *axes: Any) -> Tensor: return mt.transpose(self, *axes)
    def broadcast_to(self, shape: Any) -> Tensor: return mt.broadcast_to(self, shape)
    def squeeze(self, axis: Any = None) -> Tensor: return mt.squeeze(self, axis)
    def unsqueeze(self, axis: int) -> Tensor: return mt.unsqueeze(self, axis)
    def flatten(self) -> Tensor: return mt.flatten(self)
    def matmul(self, other: Any) -> Tensor: return mt.matmul(self, other)

    @property
    def T(self) -> Tensor:
        """The tensor with its axes reversed (a matrix transposed)."""
        return mt.transpose(self)

    # ---- the engine's view of a Tensor (see autodiff.Node) --------------------------
    # In the engine's graph a Tensor is a leaf: the nodes between leaves are the
    # ``grad_fn`` records of the operations (function.BackwardNode).
    parents: tuple = ()

    def chain_rule(self, grad: np.ndarray) -> list:
        return []

    def accumulate(self, grad: np.ndarray) -> None:
        # The first gradient is copied: the array may be shared or be the caller's own.
        if self.requires_grad:
            self.grad = np.array(grad) if self.grad is None else self.grad + grad

    def backward(self, grad: Any = None) -> None:
        """Accumulate d(self)/d(leaf) into ``.grad`` of every leaf that requires it.

        ``grad`` is d(loss)/d(self), of the same shape as this tensor; it may be left out
        only when this tensor has one element (it is then 1). It is never modified.
        """
        if not self.requires_grad:
            raise RuntimeError("backward() was called on a tensor that does not require "
                               "grad: no input of the computation had requires_grad=True")
        if grad is None:
            if self.size != 1:
                raise RuntimeError(f"backward() on a tensor of shape {self.shape} needs a grad "
                                   "argument of that shape; only one-element tensors default "
                                   "to a gradient of ones")
            grad = np.array(1, dtype=self.dtype).reshape(self.shape)
        else:
            grad = np.asarray(grad.data if isinstance(grad, Tensor) else grad)
            if grad.shape != self.shape:
                raise ValueError(f"backward(grad): grad has shape {grad.shape} but the tensor "
                                 f"has shape {self.shape}")
            grad = grad.astype(self.dtype, copy=False)
        backpropagate(self if self.grad_fn is None else self.grad_fn, grad)


_new_tensor = object.__new__  # a Tensor without running __init__ (no copy, no checks)
