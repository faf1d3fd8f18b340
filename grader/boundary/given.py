"""The given versions of earlier tasks, computed on the grader's side of the boundary.

While a check swaps one of these in (``probe_declarations.py``, or a call's ``swaps``), the
learner's package holds a *stand-in* (``learner/stand_ins.py``) that forwards its
arguments over the pipe; the runner answers with a function from ``HELPERS`` only if the
call in progress declared that helper, and refuses otherwise. So the learner's process
never holds code that computes what a task asks: a stand-in captured, copied or called
at another time gets a refusal, and the call that made it loses its part.

Everything here reads arguments sent by the learner's process, so every value is checked
(``Unusable`` names what was wrong), and every size and every matrix product's work is
bounded before anything is built: no request costs the grader more than a fraction of a
second or more than a few times the memory it carried.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

MOST_ELEMENTS = 2**22   # of any array a helper builds (32 MiB of float64)
MOST_WORK = 2**27       # multiply-adds of one helper's matrix products (a tenth of a second)
MOST_NODES = 100_000    # of a graph the given topological order walks


class Unusable(ValueError):
    """Arguments a given helper cannot take; the message is the learner's to read."""


def _array(value: Any, what: str, ndim: int | None = None) -> np.ndarray:
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiub":
        raise Unusable(f"{what} must be a numeric array, not {type(value).__name__}")
    if ndim is not None and value.ndim != ndim:
        raise Unusable(f"{what} must have {ndim} axes, not shape {value.shape}")
    return value


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MOST_ELEMENTS:
        raise Unusable(f"{what} must be a whole number from 0 to {MOST_ELEMENTS}, not {value!r}")
    return value


def unbroadcast(args: dict) -> np.ndarray | dict:
    """The gradient of a broadcast input: summed over the axes broadcasting added or stretched.
    When nothing is summed, ``{"reshape": shape}``: the stand-in returns the learner's own
    gradient reshaped, a view of it as NumPy's reshape gives, so that an engine that adds
    into what a rule passed it still changes the caller's gradient and is caught (Task 1.4)."""
    grad = _array(args.get("grad"), "unbroadcast's grad")
    shape = args.get("shape")
    if not isinstance(shape, list) or len(shape) > grad.ndim:
        raise Unusable(f"unbroadcast's shape must be a shape of at most {grad.ndim} axes, not {shape!r}")
    shape = tuple(_count(n, "each size of unbroadcast's shape") for n in shape)
    extra = grad.ndim - len(shape)
    if any(n not in (1, grad.shape[extra + i]) for i, n in enumerate(shape)):
        raise Unusable(f"a gradient of shape {grad.shape} does not broadcast from shape {shape}")
    axes = (*range(extra), *(extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1))
    return grad.sum(axis=axes, keepdims=True).reshape(shape) if axes else {"reshape": list(shape)}


def stable_logsumexp(args: dict) -> np.ndarray:
    """log(sum(exp(x))) over ``axes``, kept, computed after taking out each maximum."""
    x = _array(args.get("x"), "stable_logsumexp's x")
    axes = args.get("axes")
    axes = tuple(axes) if isinstance(axes, (list, tuple)) else axes
    try:
        m = np.max(x, axis=axes, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            return m + np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True))
    except (TypeError, ValueError, np.exceptions.AxisError) as error:
        raise Unusable(f"stable_logsumexp cannot reduce x of shape {x.shape} over axes {axes!r} ({error})") from None


def topological_order(parents_of: Callable[[int], list[int]]) -> list[int]:
    """Node 0 (the root) first, each node before its parents, every node reached once;
    ``parents_of(k)`` asks the learner's process for the numbers of node k's parents."""
    order: list[int] = []
    seen = {0}
    stack: list[tuple[int, bool]] = [(0, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        stack.append((node, True))
        for parent in parents_of(node):
            if isinstance(parent, bool) or not isinstance(parent, int) or not 0 <= parent < MOST_NODES:
                raise Unusable(f"a graph node's parent must be numbered 0 to {MOST_NODES - 1}, not {parent!r}")
            if parent not in seen:
                seen.add(parent)
                stack.append((parent, False))
    return order[::-1]


def linear_init(args: dict) -> dict:
    """A layer's parameters, all zero (the checks load their own weights)."""
    rows, columns = _count(args.get("out_features"), "out_features"), _count(args.get("in_features"), "in_features")
    if rows * columns > MOST_ELEMENTS:
        raise Unusable(f"a {rows} x {columns} weight is larger than any check builds")
    return {"weight": np.zeros((rows, columns)), "bias": np.zeros(rows) if args.get("bias", True) else None}


def _floats(value: Any, what: str, ndim: int | None = None) -> np.ndarray:
    """A float array (matrix products on integers skip BLAS and would cost far more)."""
    array = _array(value, what, ndim)
    if array.dtype.kind != "f" or array.ndim < 1:
        raise Unusable(f"{what} must be an array of floats with at least one axis, not {array.dtype} of shape {array.shape}")
    return array


def _affine(x: np.ndarray, layer: Any, what: str) -> np.ndarray:
    if not isinstance(layer, list) or len(layer) != 2:
        raise Unusable(f"{what} must be sent as [weight, bias]")
    x = _floats(x, f"{what}'s input")
    weight = _floats(layer[0], f"{what}'s weight", 2)
    bias = None if layer[1] is None else _floats(layer[1], f"{what}'s bias", 1)
    if x.shape[-1] != weight.shape[1] or (bias is not None and bias.shape != weight.shape[:1]):
        raise Unusable(f"{what} of weight {weight.shape} cannot take inputs of shape {x.shape}")
    rows = x.size // max(x.shape[-1], 1)
    if rows * weight.shape[0] > MOST_ELEMENTS or rows * weight.size > MOST_WORK:
        raise Unusable(f"{what}'s output would be larger than any check builds")
    out = x @ weight.T
    return out if bias is None else out + bias


def linear_forward(args: dict) -> np.ndarray:
    x = _array(args.get("x"), "Linear's input")
    return _affine(x, [args.get("weight"), args.get("bias")], "Linear")


def _attention(x: np.ndarray, heads: Any, layers: Any) -> np.ndarray:
    if x.ndim != 3:
        raise Unusable(f"attention's input must have shape (B, T, D), not {x.shape}")
    B, T, D = x.shape
    if isinstance(heads, bool) or not isinstance(heads, int) or heads < 1 or D % heads:
        raise Unusable(f"attention's heads must be a whole number dividing D = {D}, not {heads!r}")
    if not isinstance(layers, dict) or T > 4096:
        raise Unusable("attention needs its query, key, value and proj layers and at most 4,096 positions")
    if B * heads * T * T > MOST_ELEMENTS or B * T * T * D > MOST_WORK:
        raise Unusable(f"attention over {T} positions and {heads} heads is larger than any check builds")
    d = D // heads
    q, k, v = (_affine(x, layers.get(name), f"attention's {name}").reshape(B, T, heads, d).transpose(0, 2, 1, 3)
               for name in ("query", "key", "value"))
    scores = np.where(np.tril(np.ones((T, T), bool)), q @ k.transpose(0, 1, 3, 2) / math.sqrt(d), -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return _affine((weights @ v).transpose(0, 2, 1, 3).reshape(B, T, D), layers.get("proj"), "attention's proj")


def attention(args: dict) -> np.ndarray:
    """Causal multi-head self-attention, forward only."""
    return _attention(_floats(args.get("x"), "attention's input"), args.get("heads"), args.get("layers"))


def _norm(a: np.ndarray, ln: Any, what: str) -> np.ndarray:
    if not isinstance(ln, list) or len(ln) != 3 or not isinstance(ln[2], float) or not ln[2] > 0:
        raise Unusable(f"{what} must be sent as [weight, bias, eps > 0]")
    weight, bias = _floats(ln[0], f"{what}'s weight", 1), _floats(ln[1], f"{what}'s bias", 1)
    if weight.shape != a.shape[-1:] or bias.shape != a.shape[-1:]:
        raise Unusable(f"{what}'s weight and bias must have shape {a.shape[-1:]}")
    centred = a - a.mean(-1, keepdims=True)
    return centred / np.sqrt((centred ** 2).mean(-1, keepdims=True) + ln[2]) * weight + bias


def block(args: dict) -> np.ndarray:
    """A transformer block, forward only: x + attn(ln1(x)), then h + down(gelu(up(ln2(h))))
    with GELU's tanh form, as the reference's."""
    x = _floats(args.get("x"), "Block's input", 3)
    layers = args.get("layers")
    if not isinstance(layers, dict):
        raise Unusable("Block needs its layers")
    h = x + _attention(_norm(x, layers.get("ln1"), "Block's ln1"), args.get("heads"), layers.get("attn"))
    u = _affine(_norm(h, layers.get("ln2"), "Block's ln2"), layers.get("up"), "Block's up")
    gelu = 0.5 * u * (1 + np.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))
    return h + _affine(gelu, layers.get("down"), "Block's down")


# every helper but topological_order, which asks its questions as it goes (runner.py)
HELPERS: dict[str, Callable[[dict], Any]] = {
    "unbroadcast": unbroadcast, "stable_logsumexp": stable_logsumexp, "linear_init": linear_init,
    "linear_forward": linear_forward, "attention": attention, "block": block,
}
NAMES = (*HELPERS, "topological_order")
