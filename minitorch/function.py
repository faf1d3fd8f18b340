"""Functions: the unit of differentiation for tensors.

A ``Function`` subclass pairs a ``forward`` with its ``backward``. Both are static and work
on plain ndarrays, so each rule can be called and tested without building a graph:

    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b):              # ndarrays in, ndarray out
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):             # d(loss)/d(out) in,
            a, b = ctx.saved                 # one d(loss)/d(input) per input out
            ...

``Mul.apply(x, y)`` runs it on Tensors and records a ``BackwardNode`` as the output's
``grad_fn``. When the engine later calls the node, every gradient a rule returns is checked
against its input's shape and dtype, and a wrong one is reported with the op's name.
"""

from __future__ import annotations

import contextlib
import inspect
from numbers import Number
from typing import Any

import numpy as np

from .shapes import broadcasts_to
from .tensor import Tensor, as_array

_grad_enabled = True


def is_grad_enabled() -> bool:
    return _grad_enabled


class no_grad(contextlib.ContextDecorator):
    """``with mt.no_grad(): ...`` computes values without recording a graph."""

    def __enter__(self) -> None:
        global _grad_enabled
        self._previous, _grad_enabled = _grad_enabled, False

    def __exit__(self, *exc: Any) -> None:
        global _grad_enabled
        _grad_enabled = self._previous


class Context:
    """What a forward leaves for its backward.

    ``ctx.save_for_backward(*arrays)`` stores arrays, read back as ``ctx.saved``. Other
    facts (an axis, a shape) can be set as attributes: ``ctx.axis = axis``.
    ``ctx.needs_input_grad[i]`` tells whether input ``i`` needs a gradient at all.
    """

    def __init__(self, needs_input_grad: tuple[bool, ...] = ()) -> None:
        self.needs_input_grad = needs_input_grad  # filled in when the graph is recorded
        self.saved: tuple[Any, ...] = ()

    def save_for_backward(self, *values: Any) -> None:
        self.saved = values


class Function:
    """Base class of every differentiable tensor operation. See the module docstring."""

    @staticmethod
    def forward(ctx: Context, *inputs: np.ndarray, **params: Any) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Any:
        raise NotImplementedError

    @classmethod
    def apply(cls, *inputs: Any, **params: Any) -> Tensor:
        """Run ``forward`` on the inputs' data; record the graph if gradients are needed.

        Inputs that are not Tensors (Python or NumPy numbers, arrays, lists) become
        constants. A number takes the dtype of the tensors beside it, so ``x * 2`` keeps
        a float32 ``x`` in float32.
        """
        for x in inputs:
            if not isinstance(x, Tensor):
                inputs = _as_tensors(inputs)
                break
        ctx = Context()
        out = cls.forward(ctx, *[t.data for t in inputs], **params)
        if type(out) is not np.ndarray:
            out = np.asarray(out)
        if _grad_enabled:
            for t in inputs:
                if t.requires_grad:
                    return Tensor._from_op(out, BackwardNode(cls, ctx, inputs, out.dtype))
        return Tensor._from_op(out)


class BackwardNode:
    """The ``grad_fn`` of a Tensor: a node of the graph the engine walks backwards.

    It keeps the Function, its Context and, for each input that needs a gradient, where
    to send it: the input's own ``grad_fn`` or, for a leaf, the leaf Tensor itself. It
    does not keep the input tensors, so intermediate values that no backward saved are
    freed as soon as the forward pass is done with them.
    """

    __slots__ = ("function", "ctx", "parents", "_targets", "_count", "out_dtype")

    def __init__(self, function: type[Function], ctx: Context, inputs: tuple[Tensor, ...],
                 out_dtype: np.dtype) -> None:
        self.function, self.ctx, self.out_dtype = function, ctx, out_dtype
        self._count = len(inputs)
        # Where each gradient goes, and the shape and dtype it must have to get there.
        self.parents, self._targets, needs = [], [], []
        for i, t in enumerate(inputs):
            needs.append(t.requires_grad)
            if t.requires_grad:
                self.parents.append(t if t.grad_fn is None else t.grad_fn)
                self._targets.append((i, t.data.shape, t.data.dtype))
        ctx.needs_input_grad = tuple(needs)

    @property
    def name(self) -> str:
        return self.function.__name__

    def __repr__(self) -> str:
        return f"<{self.name}>"

    def accumulate(self, grad: np.ndarray) -> None:
        pass  # only leaves keep their gradient

    def chain_rule(self, grad: np.ndarray) -> list[tuple[Any, np.ndarray]]:
        grads = self.function.backward(self.ctx, grad)
        if not isinstance(grads, (tuple, list)):
            grads = (grads,)
        if len(grads) != self._count:
            raise RuntimeError(f"{self.name}.backward returned {len(grads)} gradient(s), but "
                               f"{self.name} has {self._count} input(s): return one per "
                               "input (None for an input that needs none)")
        sent = []
        for parent, (i, shape, dtype) in zip(self.parents, self._targets):
            grad = grads[i]
            if grad is not None:
                if type(grad) is not np.ndarray or grad.shape != shape or grad.dtype != dtype:
                    grad = self._checked(i, shape, dtype, grad)
                sent.append((parent, grad))
        return sent

    def _checked(self, index: int, shape: tuple[int, ...], dtype: np.dtype, grad: Any) -> np.ndarray:
        """The engine's promise: a gradient has exactly its input's shape and dtype."""
        grad = np.asarray(grad)
        if grad.shape == shape and grad.dtype == dtype:
            return grad
        label = f"{self.name}.backward: the gradient for input {index} (`{_input_name(self.function, index)}`)"
        if grad.shape != shape:
            hint = ""
            if grad.ndim >= len(shape) and broadcasts_to(shape, grad.shape):
                hint = (": the input was broadcast in the forward pass, so its gradient "
                        "must be summed back over the broadcast axes (unbroadcast)")
            raise ValueError(f"{label} has shape {grad.shape}, but that input has shape "
                             f"{shape}{hint}")
        if grad.dtype == self.out_dtype and np.issubdtype(grad.dtype, np.floating):
            # The forward promoted mixed dtypes (float32 with float64); undo that here.
            return grad.astype(dtype)
        raise TypeError(f"{label} has dtype {grad.dtype}, but that input has dtype "
                        f"{dtype}: a constant or an intermediate array of another "
                        "dtype crept into the rule")


_names_cache: dict[type, list[str]] = {}


def _input_name(function: type[Function], index: int) -> str:
    """The name of forward's parameter number ``index`` (after ctx), for error messages."""
    if function not in _names_cache:
        params = list(inspect.signature(function.forward).parameters.values())[1:]
        _names_cache[function] = [("*" if p.kind is p.VAR_POSITIONAL else "") + p.name
                                  for p in params if p.kind in (p.POSITIONAL_ONLY,
                                  p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    names = _names_cache[function]
    if index < len(names) and not names[index].startswith("*"):
        return names[index]
    variadic = next((n[1:] for n in names if n.startswith("*")), "input")
    return f"{variadic}[{index - (len(names) - 1)}]"


def _as_tensors(inputs: tuple[Any, ...]) -> tuple[Tensor, ...]:
    if all(isinstance(x, Tensor) for x in inputs):
        return inputs
    like = next((x.dtype for x in inputs if isinstance(x, Tensor)), np.dtype(np.float64))
    return tuple(x if isinstance(x, Tensor) else _constant(x, like) for x in inputs)


def _constant(value: Any, like: np.dtype) -> Tensor:
    if isinstance(value, (Number, np.generic)) and not isinstance(value, np.ndarray):
        # A lone number adapts to the tensor beside it instead of promoting it (as PyTorch).
        return Tensor._from_op(np.asarray(value, dtype=like))
    return Tensor._from_op(as_array(value))
