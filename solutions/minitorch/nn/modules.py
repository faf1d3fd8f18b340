"""The building blocks of stage 6: ``Module``, ``Parameter``, ``Linear`` and ``MLP``.

A Module is a Python object whose attributes may be Parameters, other Modules, or lists,
tuples and dicts of them; ``parameters()`` finds them all, however deeply nested.
"""

from __future__ import annotations

import math
from typing import Any, Iterator, Sequence

import numpy as np

from .. import ops_activation, ops_unary
from ..tensor import Tensor

_rng = np.random.default_rng(0)


def manual_seed(seed: int) -> None:
    """Make the initial weights of the Modules created next reproducible."""
    global _rng
    _rng = np.random.default_rng(seed)


def _rng_normal(shape: tuple[int, ...]) -> np.ndarray:
    """Draws from N(0, 1), from the generator ``manual_seed`` sets."""
    return _rng.standard_normal(shape)


class Parameter(Tensor):
    """A Tensor that is a trainable weight: it always requires a gradient."""

    __slots__ = ()

    def __init__(self, data: Any, dtype: Any = None) -> None:
        super().__init__(data, requires_grad=True, dtype=dtype)


class Module:
    """Base class of models. Subclasses set attributes in ``__init__`` and define
    ``forward``; calling the module calls ``forward``."""

    def forward(self, *args: Any) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any) -> Tensor:
        return self.forward(*args)

    def parameters(self) -> list[Parameter]:
        """Every Parameter of this module and of the modules inside it, each once, in the
        order the attributes were set. Looks inside lists, tuples and dicts too."""
        # Task 6.1: Module.parameters
        ### BEGIN SOLUTION
        found: dict[int, Parameter] = {}
        for value in _walk(vars(self).values()):
            if isinstance(value, Parameter):
                found.setdefault(id(value), value)
            elif isinstance(value, Module):
                for p in value.parameters():
                    found.setdefault(id(p), p)
        return list(found.values())
        ### END SOLUTION

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = None


def _walk(values: Any) -> Iterator[Any]:
    """Yield the values, looking inside lists, tuples and dicts (not inside Modules)."""
    for value in values:
        if isinstance(value, (list, tuple)):
            yield from _walk(value)
        elif isinstance(value, dict):
            yield from _walk(value.values())
        else:
            yield value


class Linear(Module):
    """out = x @ weight.T + bias, for x of shape (..., in_features).

    ``weight`` has shape (out_features, in_features) and ``bias`` (out_features,), as in
    PyTorch. Both start uniform in [-1/√in_features, 1/√in_features], which keeps the
    outputs' spread about the same as the inputs'.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 dtype: Any = np.float64) -> None:
        self.in_features, self.out_features = in_features, out_features
        # Task 6.1: Linear.__init__ (the initial weight and bias)
        ### BEGIN SOLUTION
        bound = 1.0 / math.sqrt(in_features)
        self.weight = Parameter(_rng.uniform(-bound, bound, (out_features, in_features)), dtype=dtype)
        self.bias = Parameter(_rng.uniform(-bound, bound, (out_features,)), dtype=dtype) if bias else None
        ### END SOLUTION

    def forward(self, x: Tensor) -> Tensor:
        if x.shape[-1:] != (self.in_features,):
            raise ValueError(f"Linear({self.in_features}, {self.out_features}) got input of "
                             f"shape {x.shape}: its last axis must have size {self.in_features}")
        # Task 6.1: Linear.forward
        ### BEGIN SOLUTION
        out = x @ self.weight.T
        return out if self.bias is None else out + self.bias
        ### END SOLUTION

    def __repr__(self) -> str:
        return f"Linear({self.in_features}, {self.out_features}, bias={self.bias is not None})"


ACTIVATIONS = {"relu": ops_unary.relu, "tanh": ops_unary.tanh, "sigmoid": ops_unary.sigmoid,
               "gelu": ops_activation.gelu}


class MLP(Module):
    """A stack of Linear layers with ``activation`` between them (not after the last).

    ``MLP([2, 64, 64, 3])`` maps (N, 2) inputs to (N, 3) outputs through two hidden
    layers of 64 units.
    """

    def __init__(self, sizes: Sequence[int], activation: str = "relu", dtype: Any = np.float64) -> None:
        if len(sizes) < 2:
            raise ValueError(f"MLP needs at least an input and an output size, got {list(sizes)}")
        if activation not in ACTIVATIONS:
            raise ValueError(f"MLP: unknown activation {activation!r}; choose from {sorted(ACTIVATIONS)}")
        self.activation = activation
        # Task 6.1: MLP.__init__
        ### BEGIN SOLUTION
        self.layers = [Linear(m, n, dtype=dtype) for m, n in zip(sizes[:-1], sizes[1:])]
        ### END SOLUTION

    def forward(self, x: Tensor) -> Tensor:
        # Task 6.1: MLP.forward
        ### BEGIN SOLUTION
        act = ACTIVATIONS[self.activation]
        for layer in self.layers[:-1]:
            x = act(layer(x))
        return self.layers[-1](x)
        ### END SOLUTION

    def __repr__(self) -> str:
        sizes = [self.layers[0].in_features] + [layer.out_features for layer in self.layers]
        return f"MLP({sizes}, activation={self.activation!r})"
