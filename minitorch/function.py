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

``Mul.apply(x, y)`` runs it on Tensors. When an input needs a gradient, the ``ctx`` that
forward fills is a ``BackwardNode``: it becomes the output's ``grad_fn``, so what forward
saved is right where backward reads it (as in PyTorch, where ``ctx`` is the graph node).
When the engine later calls the node, every gradient a rule returns is checked against its
input's shape and dtype, and a wrong one is reported with the op's name.
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
        self.needs_input_grad = needs_input_grad
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
        arrays, record = [], False
        for t in inputs:
            if not isinstance(t, Tensor):
                return cls.apply(*_as_tensors(inputs), **params)
            arrays.append(t.data)
            record = record or t.requires_grad
        ctx = BackwardNode(cls, inputs) if record and _grad_enabled else Context()
        out = cls.forward(ctx, *arrays, **params)
        if type(out) is not np.ndarray:
            out = np.asarray(out)
        if type(ctx) is Context:  # nothing to record
            return Tensor._from_op(out)
        ctx.out_dtype = out.dtype
        return Tensor._from_op(out, ctx)


class BackwardNode(Context):
    """The ``grad_fn`` of a Tensor: a node of the graph the engine walks backwards, and the
    ``ctx`` its forward filled.

    It keeps the Function and, for each input that needs a gradient, where to send it:
    the input's own ``grad_fn`` or, for a leaf, the leaf Tensor itself. It does not keep
    the input tensors, so intermediate values that no backward saved are freed as soon as
    the forward pass is done with them.
    """

    __slots__ = ("function", "parents", "routes", "out_dtype", "needs_input_grad", "saved")

    def __init__(self, function: type[Function], inputs: tuple[Tensor, ...]) -> None:
        self.function, self.saved = function, ()
        # For each input that needs a gradient, its route: the input's number, where its
        # gradient goes, and the shape and dtype that gradient must have to get there.
        needs, parents, routes = [], [], []
        for i, t in enumerate(inputs):
            needs.append(t.requires_grad)
            if t.requires_grad:
                parent = t if t.grad_fn is None else t.grad_fn
                parents.append(parent)
                routes.append((i, parent, t.data.shape, t.data.dtype))
        self.needs_input_grad, self.parents, self.routes = tuple(needs), parents, routes

    @property
    def name(self) -> str:
        return self.function.__name__

    def __repr__(self) -> str:
        return f"<{self.name}>"

    def accumulate(self, grad: np.ndarray) -> None:
        pass  # only leaves keep their gradient

    def chain_rule(self, grad: np.ndarray) -> list[tuple[Any, np.ndarray]]:
        grads = self.function.backward(self, grad)
        if type(grads) is not tuple:
            grads = tuple(grads) if isinstance(grads, list) else (grads,)
        if len(grads) != len(self.needs_input_grad):
            raise RuntimeError(f"{self.name}.backward returned {len(grads)} gradient(s), but "
                               f"{self.name} has {len(self.needs_input_grad)} input(s): return one "
                               "per input (None for an input that needs none)")
        sent = []
        for i, parent, shape, dtype in self.routes:
            grad = grads[i]
            if grad is not None:
                # The common case costs three comparisons; anything else is looked at closely.
                if type(grad) is not np.ndarray or grad.dtype is not dtype or grad.shape != shape:
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
