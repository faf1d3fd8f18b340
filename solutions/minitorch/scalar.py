"""Stage 1: automatic differentiation on single numbers.

Every operation builds a new ``Scalar`` and, right beside the forward computation, a
small function ``backward(g)`` that turns g = d(loss)/d(out) into d(loss)/d(input) for
each input: the chain rule, one step at a time. ``Scalar.backward`` hands the graph to
the shared engine in ``autodiff``.

====================  ============================  =======================================
op                    forward                       backward(g) returns (Task 1.2)
====================  ============================  =======================================
``a + b``             a + b                         one gradient per input
``a - b``, ``-a``     a - b, -a
``a * b``, ``a / b``  a * b, a / b
``a ** c``            a to the power c (a number)
``exp log sin cos``   the usual functions
``tanh sigmoid``      sigmoid(a) = 1 / (1 + e^-a)
``relu``              max(a, 0)
====================  ============================  =======================================
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Callable, Sequence, Union

from .autodiff import backpropagate

Number = Union[int, float]
Backward = Callable[[float], Sequence[float]]


class Scalar:
    """A number that remembers how it was computed.

    ``data`` is the value, ``grad`` is d(output)/d(self) once ``backward()`` has run
    (0.0 before). Unlike a Tensor, every Scalar in the graph keeps its gradient, so the
    whole graph can be drawn with values and gradients on its nodes.
    """

    def __init__(self, value: Number, name: str = "", *, _parents: tuple["Scalar", ...] = (),
                 _backward: Backward | None = None, _op: str = "") -> None:
        if isinstance(value, Scalar) or not isinstance(value, Real):
            raise TypeError(f"Scalar needs a real number, got {type(value).__name__}")
        self.data = float(value)
        self.grad = 0.0
        self.name = name
        self.op = _op
        self._parents = _parents
        self._backward = _backward

    def __repr__(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return f"Scalar({label}data={self.data:.6g}, grad={self.grad:.6g})"

    # ---- the engine's view of a Scalar (see autodiff.Node) --------------------------
    @property
    def parents(self) -> tuple["Scalar", ...]:
        return self._parents

    def chain_rule(self, grad: float) -> list[tuple["Scalar", float]]:
        if not self._parents:
            return []
        local = self._backward(grad)
        if not isinstance(local, (tuple, list)):
            raise TypeError(f"the backward of {self.op} returned {local!r}, not a tuple of one gradient per input")
        return list(zip(self._parents, local))

    def accumulate(self, grad: float) -> None:
        self.grad += grad

    def backward(self) -> None:
        """Fill ``.grad`` of every Scalar this one depends on, starting from d(self)/d(self) = 1.

        Calling it again adds the gradients once more (as PyTorch does): call
        ``zero_grad`` on the leaves between steps of gradient descent.
        """
        backpropagate(self, 1.0)

    def zero_grad(self) -> None:
        self.grad = 0.0

    # ---- binary operations ----------------------------------------------------------
    def __add__(self, other: "Scalar | Number") -> "Scalar":
        a, b = self, _lift(other)

        def backward(g: float) -> tuple[float, float]:
            # Task 1.2: Scalar.__add__ backward
            ### BEGIN SOLUTION
            return g, g
            ### END SOLUTION
        return _result(a.data + b.data, (a, b), backward, "+")

    def __sub__(self, other: "Scalar | Number") -> "Scalar":
        a, b = self, _lift(other)

        def backward(g: float) -> tuple[float, float]:
            # Task 1.2: Scalar.__sub__ backward
            ### BEGIN SOLUTION
            return g, -g
            ### END SOLUTION
        return _result(a.data - b.data, (a, b), backward, "-")

    def __mul__(self, other: "Scalar | Number") -> "Scalar":
        a, b = self, _lift(other)

        def backward(g: float) -> tuple[float, float]:
            # Task 1.2: Scalar.__mul__ backward
            ### BEGIN SOLUTION
            return g * b.data, g * a.data
            ### END SOLUTION
        return _result(a.data * b.data, (a, b), backward, "*")

    def __truediv__(self, other: "Scalar | Number") -> "Scalar":
        a, b = self, _lift(other)
        if b.data == 0.0:
            raise ZeroDivisionError(f"Scalar division by zero: {a.data} / 0")

        def backward(g: float) -> tuple[float, float]:
            # Task 1.2: Scalar.__truediv__ backward
            ### BEGIN SOLUTION
            return g / b.data, -g * a.data / (b.data * b.data)
            ### END SOLUTION
        return _result(a.data / b.data, (a, b), backward, "/")

    def __pow__(self, exponent: Number) -> "Scalar":
        if isinstance(exponent, Scalar) or not isinstance(exponent, Real):
            raise TypeError("Scalar ** c needs c to be a plain number "
                            f"(got {type(exponent).__name__})")
        a, c = self, float(exponent)

        def backward(g: float) -> tuple[float]:
            # Task 1.2: Scalar.__pow__ backward
            ### BEGIN SOLUTION
            return (0.0 if c == 0.0 else g * c * a.data ** (c - 1.0),)
            ### END SOLUTION
        return _result(a.data ** c, (a,), backward, f"**{exponent:g}")

    def __radd__(self, other: Number) -> "Scalar":
        return _lift(other) + self

    def __rsub__(self, other: Number) -> "Scalar":
        return _lift(other) - self

    def __rmul__(self, other: Number) -> "Scalar":
        return _lift(other) * self

    def __rtruediv__(self, other: Number) -> "Scalar":
        return _lift(other) / self

    # ---- unary operations -----------------------------------------------------------
    def __neg__(self) -> "Scalar":
        a = self

        def backward(g: float) -> tuple[float]:
            # Task 1.2: Scalar.__neg__ backward
            ### BEGIN SOLUTION
            return (-g,)
            ### END SOLUTION
        return _result(-a.data, (a,), backward, "neg")

    def exp(self) -> "Scalar":
        a, out = self, math.exp(self.data)

        def backward(g: float) -> tuple[float]:
            # Task 1.2: Scalar.exp backward
            ### BEGIN SOLUTION
            return (g * out,)
            ### END SOLUTION
        return _result(out, (a,), backward, "exp")

    def log(self) -> "Scalar":
        a = self
        if a.data <= 0.0:
            raise ValueError(f"Scalar.log needs a positive number, got {a.data}")

        def backward(g: float) -> tuple[float]:
            # Task 1.2: Scalar.log backward
            ### BEGIN SOLUTION
            return (g / a.data,)
            ### END SOLUTION
        return _result(math.log(a.data), (a,), backward, "log")

    def sin(self) -> "Scalar":
        a = self

        def backward(g: float) -> tuple[float]:
            # Task 1.2: Scalar.sin backward
            ### BEGIN SOLUTION
            return (g * math.cos(a.data),)
            ### END SOLUTION
        return _result(math.sin(a.data), (a,), backward, "sin")

    def cos(self) -> "Scalar":
        a = self

        def backward(g: float) -> tuple[float]:
            # Task 1.2: Scalar.cos backward
            ### BEGIN SOLUTION
            return (-g * math.sin(a.data),)
            ### END SOLUTION
        return _result(math.cos(a.data), (a,), backward, "cos")

    def tanh(self) -> "Scalar":
        a, out = self, math.tanh(self.data)

        def backward(g: float) -> tuple[float]:
            # Task 1.2: Scalar.tanh backward
            ### BEGIN SOLUTION
            return (g * (1.0 - out * out),)
            ### END SOLUTION
        return _result(out, (a,), backward, "tanh")

    def sigmoid(self) -> "Scalar":
        a, out = self, _sigmoid(self.data)

        def backward(g: float) -> tuple[float]:
            # Task 1.2: Scalar.sigmoid backward
            ### BEGIN SOLUTION
            return (g * out * (1.0 - out),)
            ### END SOLUTION
        return _result(out, (a,), backward, "sigmoid")

    def relu(self) -> "Scalar":
        a = self

        def backward(g: float) -> tuple[float]:
            # Task 1.2: Scalar.relu backward
            ### BEGIN SOLUTION
            return (g if a.data > 0.0 else 0.0,)
            ### END SOLUTION
        return _result(max(a.data, 0.0), (a,), backward, "relu")


def _lift(value: "Scalar | Number") -> Scalar:
    """A Python number taking part in an operation becomes a constant Scalar."""
    return value if isinstance(value, Scalar) else Scalar(value)


def _result(value: float, parents: tuple[Scalar, ...], backward: Backward, op: str) -> Scalar:
    return Scalar(value, _parents=parents, _backward=backward, _op=op)


def _sigmoid(x: float) -> float:
    # Two branches so that exp never overflows.
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)
