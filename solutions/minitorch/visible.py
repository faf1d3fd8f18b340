"""The helpers of the notebooks' visible checks: a failure names the call, the case (shapes,
dtype, axis, keepdims...), what came back and what was expected, and the likely mistake.

    same(got, expected, "unbroadcast(g, (4, 1))", "g of shape (2, 4, 3)")
    check_backward(ops_binary.Sub, [a, b], upstream, reference=np.subtract)

``CheckFailed`` is an AssertionError; its frames here are hidden from IPython's traceback.
"""

from __future__ import annotations

import types
from typing import Any, Callable, Sequence

import numpy as np

from .function import Context
from .gradcheck import numerical_grads


class CheckFailed(AssertionError):
    """A visible check that failed; the message says what to fix."""


def _show(value: Any) -> str:
    if isinstance(value, np.ndarray):
        text = np.array2string(value, precision=4, threshold=24, edgeitems=3, max_line_width=88, separator=", ")
        return text.replace("\n", "\n" + " " * 13)
    return repr(value)


def _kind(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} ({value.dtype})"
    if isinstance(value, np.generic):
        return f"a NumPy scalar ({type(value).__name__}), not an array"
    return f"a {type(value).__name__}"


def fail(call: str, case: str, problem: str, got: Any = None, expected: Any = None, hint: str = "") -> None:
    """Raise CheckFailed: "call with case: problem. hint" and both values."""
    __tracebackhide__ = True
    text = f"{call}{f' with {case}' if case else ''}: {problem}"
    if hint:
        text += f"\n  {hint}"
    if got is not None or expected is not None:
        text += f"\n  got:       {_show(got)}\n  expected:  {_show(expected)}"
    raise CheckFailed(text)


def _stretches(small: tuple, big: tuple) -> bool:
    return len(small) <= len(big) and all(n in (m, 1) for n, m in zip(small[::-1], big[::-1]))


def _values_hint(got: np.ndarray, expected: np.ndarray, rtol: float, atol: float) -> tuple[str, str]:
    g, e = got.astype(np.float64).ravel(), expected.astype(np.float64).ravel()
    bad = ~np.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
    index = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), expected.shape))
    where = f"at index {index} it is {g[np.argmax(bad)]:.6g}, expected {e[np.argmax(bad)]:.6g}"
    if not np.all(np.isfinite(g[np.isfinite(e)])):
        return where, "It holds nan or inf where the answer is finite: an exp overflowed, or 0/0 (compute it another way)."
    if np.abs(e).max(initial=0) > 0 and np.allclose(g, -e, rtol=rtol, atol=atol):
        return where, "It has the wrong sign."
    nonzero = np.abs(e) > 1e-8
    if nonzero.sum() >= 2:
        ratio = g[nonzero] / e[nonzero]
        if np.allclose(ratio, ratio[0], rtol=1e-6) and not np.isclose(ratio[0], 1):
            return where, f"It is off by a constant factor of {ratio[0]:.4g}."
    return where, ""


def same(got: Any, expected: Any, call: str, case: str = "", *, atol: float = 1e-6, rtol: float = 1e-5,
         dtype: Any = None, hint: str = "") -> None:
    """``got`` must equal ``expected``: the same type (a tuple, a float, an array), for an
    array the same shape, dtype (``dtype``, or ``expected``'s) and values (to atol, rtol)."""
    __tracebackhide__ = True
    if isinstance(expected, tuple) or isinstance(expected, (bool, int, str)) and not isinstance(expected, float):
        if type(got) is not type(expected) or got != expected:
            more = f" ({type(got).__name__}, not {type(expected).__name__})" if type(got) is not type(expected) else ""
            fail(call, case, f"came back as {got!r}{more}; expected {expected!r}", hint=hint)
        return
    if isinstance(expected, float):
        if not isinstance(got, float) or not np.isclose(got, expected, rtol=rtol, atol=atol):
            fail(call, case, f"came back as {_kind(got) if not isinstance(got, float) else repr(got)}; expected the "
                 f"Python float {expected!r}", hint=hint)
        return
    expected = np.asarray(expected)
    want = np.dtype(dtype) if dtype is not None else expected.dtype
    if got is None:
        fail(call, case, f"came back as None; expected an array of shape {expected.shape}", hint=hint)
    if isinstance(got, np.generic) and not expected.shape:
        got = np.asarray(got)  # a NumPy scalar is a 0-d array to NumPy
    if not isinstance(got, np.ndarray):
        fail(call, case, f"came back as {_kind(got)}; expected an array of shape {expected.shape} ({want}): "
             "np.asarray(...) makes one (a Python number forgets the dtype)", got, expected, hint)
    if got.shape != expected.shape:
        extra = hint
        if got.size == expected.size and tuple(n for n in got.shape if n != 1) == tuple(n for n in expected.shape if n != 1):
            extra = "The numbers may be right but a size-1 axis is missing or extra: keep it (keepdims=True, or np.expand_dims)."
        elif got.size > expected.size and _stretches(expected.shape, got.shape):
            extra = ("It has the broadcast shape: sum over the axes the input was stretched along (unbroadcast) to get "
                     "the input's shape.")
        elif got.shape == expected.shape[::-1] and got.ndim == 2:
            extra = "It is transposed: check the order of the operands and their transposes."
        fail(call, case, f"came back with shape {got.shape}; expected shape {expected.shape}", got, expected,
             " ".join(p for p in (extra, hint if extra != hint else "") if p))
    numbers = got.dtype.kind in "fiub"
    if not numbers:
        fail(call, case, f"came back with dtype {got.dtype}; expected numbers ({want})", got, expected, hint)
    right = np.allclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    if not right:
        where, extra = _values_hint(got, expected, rtol, atol)
        fail(call, case, f"came back with wrong values: {where}", got, expected, " ".join(p for p in (extra, hint) if p))
    if got.dtype != want and want.kind == "f":
        fail(call, case, f"came back as {got.dtype}; expected {want} (the input's dtype): a float64 constant or array "
             "crept in (dtype drift)", hint=hint)


def _describe(inputs: Sequence[np.ndarray], params: dict) -> str:
    shapes = " and ".join(str(np.shape(a)) for a in inputs)
    dtypes = sorted({str(np.asarray(a).dtype) for a in inputs})
    extra = ", ".join(f"{k}={v!r}" for k, v in params.items())
    return f"inputs of shape{'s' if len(inputs) > 1 else ''} {shapes} ({', '.join(dtypes)})" + (f", {extra}" if extra else "")


def check_backward(op: Any, inputs: Sequence[np.ndarray], upstream: Any = None, expected: Sequence | None = None, *,
                   reference: Callable | None = None, params: dict | None = None, case: str = "",
                   needs: Sequence[bool] | None = None, atol: float = 1e-6, hint: str = "") -> list:
    """``op.forward(ctx, *inputs, **params)``, then ``op.backward(ctx, upstream)``: each
    gradient must equal ``expected`` (or, with ``reference``, central differences of that
    NumPy function), in the input's shape and dtype; the upstream gradient and the inputs
    must come back unchanged. Returns the gradients."""
    __tracebackhide__ = True
    params = dict(params or {})
    name = f"{op.__name__}.backward"
    what = _describe(inputs, params) + (f", {case}" if case else "")
    kept = [np.array(a, copy=True) for a in inputs]
    ctx = Context(tuple(needs) if needs is not None else (True,) * len(inputs))
    out = op.forward(ctx, *inputs, **params)
    if upstream is None:
        upstream = np.random.default_rng(1).standard_normal(np.shape(out)).astype(np.asarray(out).dtype)
    given = np.array(upstream, copy=True)
    grads = op.backward(ctx, upstream)
    if isinstance(grads, types.GeneratorType):
        fail(name, what, "returned a generator, not a tuple: (g for ...) in parentheses is a generator expression, "
             "which the engine takes for one gradient; return tuple(g for ...) or a list")
    grads = list(grads) if isinstance(grads, (tuple, list)) else [grads]
    if not np.array_equal(given, upstream):
        fail(name, what, "changed the upstream gradient it was given (an in-place operation such as grad *= ...)",
             hint="Compute a new array: the same gradient may flow to other parts of the graph.")
    for i, (before, after) in enumerate(zip(kept, inputs)):
        if not np.array_equal(before, after, equal_nan=True):
            fail(name, what, f"changed its input {i} in place")
    if len(grads) != len(inputs):
        fail(name, what, f"returned {len(grads)} gradient(s) for {len(inputs)} input(s): one per input, in order "
             "(None for one that needs none)")
    if expected is None:
        exact = [np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in inputs]
        expected = numerical_grads(reference, exact, np.asarray(upstream, np.float64))
    for i, (got, want) in enumerate(zip(grads, expected)):
        if want is None:
            continue
        dtype = np.asarray(inputs[i]).dtype
        loose = 1e-4 if dtype == np.float32 else 0.0  # float32 keeps about 7 digits
        same(got, want, name, f"{what}: the gradient for input {i}", atol=max(atol, loose), rtol=max(1e-5, loose),
             dtype=dtype if dtype.kind == "f" else None, hint=hint)
    return grads
