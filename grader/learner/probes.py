"""Probes: the small pieces of trusted code that run *inside* a learner's process.

A probe calls the learner's package on inputs the grader sent and returns what it saw as
plain data (``wire.py``): outputs, gradients, the inputs and upstream gradient as they are
after the call, the order of calls. It computes no expectation and decides nothing; the
grader does that outside, with its own NumPy (``checks/``). A probe may swap one of the
learner's helpers for a given one (``swaps``), so that a bug in an earlier task is not
charged again here: the given one is a stand-in that asks the grader (``stand_ins.py``).

This module imports only the standard library, NumPy and the probes' declarations: it is
loaded into the learner's process before it is confined, and holds nothing secret and no
code that computes what a task asks (``docs/GRADER.md``, "What the learner's process holds").
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from grader.learner.stand_ins import STAND_INS
from grader.probe_declarations import PROBES as DECLARED

PROBES: dict[str, Callable[..., Any]] = {}


def probe(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register ``fn`` under its name, which ``probe_declarations.PROBES`` must declare."""
    if fn.__name__ not in DECLARED:
        raise LookupError(f"probe {fn.__name__!r} is not declared in grader/probe_declarations.py")
    PROBES[fn.__name__] = fn
    return fn


def swaps_of(name: str) -> Mapping[str, str]:
    """The helpers probe ``name`` swaps in, as declared."""
    return DECLARED[name].swaps


@contextlib.contextmanager
def given(mt: Any, swaps: Mapping[str, str]):
    """Swap ``module.name`` (or ``module.Class.method``) of the learner's package for the
    stand-in of a given helper (``stand_ins.py``) during a call."""
    saved = []
    try:
        for target, helper in swaps.items():
            module, _, name = target.rpartition(".")
            owner = resolve(mt, module)
            saved.append((owner, name, getattr(owner, name)))
            setattr(owner, name, STAND_INS[helper])
        yield
    finally:
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)


def resolve(mt: Any, path: str) -> Any:
    obj = mt
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    return obj


def plain(value: Any) -> Any:
    """What the learner returned, as something that can cross the boundary."""
    if value is None or isinstance(value, (np.ndarray, np.generic, bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return type(value)(plain(v) for v in value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return {"unsupported": type(value).__name__}


def index_from(spec: Any) -> Any:
    """An index rebuilt from ``checks.common.index_spec`` (slices and Ellipsis do not travel)."""
    def one(item):
        if isinstance(item, list) and item and item[0] == "slice":
            return slice(*item[1:])
        if isinstance(item, list) and item == ["..."]:
            return Ellipsis
        if isinstance(item, list) and item == ["none"]:
            return None
        return item
    return tuple(one(i) for i in spec) if isinstance(spec, tuple) else one(spec)


# ---- probes ----------------------------------------------------------------------------
@probe
def rule(mt, function: str, arrays: list, upstream: Any, params: dict, swaps: dict | None = None,
         views: list | None = None, needs: list | None = None) -> dict:
    """Forward then backward of one Function on plain arrays; the inputs listed in
    ``views`` arrive with their last two axes swapped and are passed as transposed views
    (not contiguous), as a Linear layer's weight is. ``needs``: ctx.needs_input_grad
    (every input by default)."""
    cls = resolve(mt, function)
    arrays = [np.swapaxes(np.array(a), -1, -2) if i in (views or []) else np.array(a) for i, a in enumerate(arrays)]
    if "index" in params:
        params = dict(params, index=index_from(params["index"]))
    with given(mt, swaps or {}):
        ctx = mt.function.Context(tuple(bool(n) for n in needs) if needs else tuple(True for _ in arrays))
        out = cls.forward(ctx, *arrays, **params)
        grads = cls.backward(ctx, upstream)
    grads = list(grads) if isinstance(grads, (tuple, list)) else [grads]
    inputs = [np.swapaxes(a, -1, -2) if i in (views or []) else a for i, a in enumerate(arrays)]
    return {"out": plain(out), "grads": [plain(g) for g in grads], "upstream": upstream, "inputs": inputs}


@probe
def call(mt, function: str, args: list, kwargs: dict | None = None, swaps: dict | None = None) -> Any:
    with given(mt, swaps or {}):
        return plain(resolve(mt, function)(*args, **(kwargs or {})))


@probe
def unbroadcast_effects(mt, grad: np.ndarray, shape: list) -> dict:
    """``unbroadcast``'s answer, and the gradient it was given as it is afterwards."""
    return {"out": plain(mt.unbroadcast(grad, tuple(shape))), "grad": grad}


FUNCTIONS = {"sin": math.sin, "square": lambda x: x * x, "poly": lambda a, b, c: a * b * b + c}


@probe
def central_difference(mt, f: str, values: list, kwargs: dict) -> Any:
    return plain(mt.central_difference(FUNCTIONS[f], *values, **kwargs))


SCALAR_OPS: dict[str, Callable[..., Any]] = {
    "a + b": lambda a, b: a + b, "a - b": lambda a, b: a - b, "a * b": lambda a, b: a * b,
    "a / b": lambda a, b: a / b, "a ** 3": lambda a: a ** 3, "a ** -0.5": lambda a: a ** -0.5,
    "a ** 0": lambda a: a ** 0, "a + 2": lambda a: a + 2, "2 - a": lambda a: 2 - a, "3 * a": lambda a: 3 * a,
    "2 / a": lambda a: 2 / a, "-a": lambda a: -a, "a.exp()": lambda a: a.exp(), "a.log()": lambda a: a.log(),
    "a.sin()": lambda a: a.sin(), "a.cos()": lambda a: a.cos(), "a.tanh()": lambda a: a.tanh(),
    "a.sigmoid()": lambda a: a.sigmoid(), "a.relu()": lambda a: a.relu(),
}


@probe
def scalar_op(mt, name: str, values: list, upstream: float) -> list:
    """The local gradients the op's node hands its inputs for ``upstream``."""
    inputs = [mt.Scalar(v) for v in values]
    out = SCALAR_OPS[name](*inputs)
    pairs = out.chain_rule(upstream)
    by_input = {id(x): i for i, x in enumerate(inputs)}
    grads: list = [0.0] * len(inputs)
    for parent, grad in pairs:
        if id(parent) in by_input:
            grads[by_input[id(parent)]] += float(grad)
    return [float(out.data), grads]


class Node:
    """A stand-in graph node with known local derivatives, for the engine alone."""

    def __init__(self, index: int, parents=(), local=()) -> None:
        self.index, self.name, self.parents, self.local = index, f"n{index}", list(parents), list(local)
        self.grad, self.calls = 0.0, 0

    def chain_rule(self, grad: float) -> list:
        return [(p, grad * d) for p, d in zip(self.parents, self.local)]

    def accumulate(self, grad: float) -> None:
        self.grad += grad
        self.calls += 1


def _graph(parents: list, local: list | None = None) -> list[Node]:
    nodes: list[Node] = []
    for i, ps in enumerate(parents):
        nodes.append(Node(i, [nodes[p] for p in ps], local[i] if local else [1.0] * len(ps)))
    return nodes


@probe
def topological(mt, parents: list) -> list:
    nodes = _graph(parents)
    return [getattr(n, "index", -1) for n in mt.topological_order(nodes[-1])]


@probe
def chain(mt, length: int) -> int:
    node = Node(0)
    for k in range(1, length):
        node = Node(k, [node])
    return len(mt.topological_order(node))


@probe
def backpropagate(mt, parents: list, local: list, seeds: list) -> list:
    """Run the learner's backpropagate (with a given topological order) once per seed."""
    nodes = _graph(parents, local)
    seen = []
    with given(mt, swaps_of("backpropagate")):
        for seed in seeds:
            mt.backpropagate(nodes[-1], seed)
            seen.append([[n.grad, n.calls] for n in nodes])
    return seen


@probe
def tensor_graph(mt, x: np.ndarray, b: np.ndarray, upstream: np.ndarray, calls: int) -> dict:
    """``out = (x + b) + x`` on real Tensors (only the given Add, with a given unbroadcast
    and topological order), backward with a non-scalar upstream gradient ``calls`` times.
    ``x`` has the output's shape, so the gradients Add passes it share memory with
    ``upstream``: an engine that adds in place changes the caller's gradient."""
    with given(mt, swaps_of("tensor_graph")):
        tx, tb = mt.Tensor(x, requires_grad=True), mt.Tensor(b, requires_grad=True)
        out = (tx + tb) + tx
        seen = []
        for _ in range(calls):
            out.backward(upstream)
            seen.append([plain(None if tx.grad is None else np.array(tx.grad)),
                         plain(None if tb.grad is None else np.array(tb.grad))])
    return {"grads": seen, "upstream": upstream}
