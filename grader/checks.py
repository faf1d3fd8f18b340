"""Trusted checks of a learner's minitorch, one ``check_X_Y`` per task id.

Each check imports nothing of this project but ``grader.numeric``; it receives the
learner's package as ``mt``, calls the learner's rules on plain ndarrays wherever it can
(so that an earlier task's bug costs nothing here), and compares with NumPy and with
central differences of trusted NumPy functions, in float64, on shapes drawn from a fixed
seed. A failure raises ``CheckFailure`` whose message says what is wrong in words a
learner can act on (see ``explain``).
"""

from __future__ import annotations

import contextlib
import math
import warnings
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .numeric import numeric_vjp, unbroadcast_by_loops


class CheckFailure(AssertionError):
    """A check failed; the message is meant for the learner."""


# ---- explaining a wrong gradient -------------------------------------------------------
def explain(what: str, got: Any, expected: np.ndarray, *, input_shape: tuple | None = None,
            rtol: float = 1e-5, atol: float = 1e-7) -> None:
    """Raise CheckFailure unless ``got`` equals ``expected`` in shape, dtype and values,
    naming the likely mistake."""
    if got is None:
        raise CheckFailure(f"{what}: got None, expected an array of shape {expected.shape}")
    got = np.asarray(got)
    if got.shape != expected.shape:
        hint = ""
        if input_shape is not None and got.size > expected.size and _stretches(expected.shape, got.shape):
            hint = (" The input was broadcast in the forward pass: sum the gradient over the "
                    "broadcast axes (unbroadcast) so it gets the input's shape.")
        elif got.size == expected.size and tuple(n for n in expected.shape if n != 1) == tuple(n for n in got.shape if n != 1):
            hint = " The sizes are right but a size-1 axis is missing or extra: did you lose keepdims?"
        elif got.shape == expected.shape[::-1]:
            hint = " The shape is transposed: check the order of the matmul operands and their transposes."
        raise CheckFailure(f"{what} has shape {got.shape} but should have shape {expected.shape}.{hint}")
    if got.dtype != expected.dtype:
        raise CheckFailure(f"{what} has dtype {got.dtype} but should have dtype {expected.dtype} "
                           "(the input's): a float64 constant or array crept into the rule "
                           "(dtype drift).")
    if np.allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True):
        return
    raise CheckFailure(f"{what} is wrong: {_diagnose(got, expected, rtol, atol)}")


def _diagnose(got: np.ndarray, expected: np.ndarray, rtol: float, atol: float) -> str:
    g, e = got.astype(np.float64).ravel(), expected.astype(np.float64).ravel()
    worst = int(np.argmax(np.abs(g - e)))
    index = tuple(int(i) for i in np.unravel_index(worst, expected.shape))
    where = f"at index {index} it is {g[worst]:.6g}, expected {e[worst]:.6g}"
    if np.allclose(g, -e, rtol=rtol, atol=atol):
        return f"it has the wrong sign ({where})."
    nonzero = np.abs(e) > 1e-8
    if nonzero.any():
        ratio = g[nonzero] / e[nonzero]
        if np.allclose(ratio, ratio[0], rtol=1e-6) and np.allclose(g, ratio[0] * e, rtol=rtol, atol=atol):
            return f"it is off by a constant factor of {ratio[0]:.4g} ({where})."
    if expected.ndim == 2 and expected.shape[0] == expected.shape[1] and np.allclose(got, expected.T, rtol=rtol, atol=atol):
        return f"it is the transpose of the right answer ({where})."
    return f"{where}."


def _stretches(shape: tuple, target: tuple) -> bool:
    if len(shape) > len(target):
        return False
    return all(n in (t, 1) for n, t in zip(shape, target[len(target) - len(shape):]))


# ---- running a learner's rule alone --------------------------------------------------
def run_rule(mt, function: Any, arrays: Sequence[np.ndarray], upstream: np.ndarray | None = None,
             rng: np.random.Generator | None = None, **params: Any):
    """Forward and backward of one Function on plain arrays. Returns (out, grads, upstream),
    and fails if the rule modified its inputs or the upstream gradient in place."""
    arrays = [np.array(a) for a in arrays]
    before = [a.copy() for a in arrays]
    ctx = mt.function.Context(tuple(True for _ in arrays))
    out = np.asarray(function.forward(ctx, *arrays, **params))
    if upstream is None:
        upstream = (rng or np.random.default_rng(0)).standard_normal(out.shape).astype(out.dtype)
    upstream_before = upstream.copy()
    grads = function.backward(ctx, upstream)
    if not isinstance(grads, (tuple, list)):
        grads = (grads,)
    name = function.__name__
    if not np.array_equal(upstream, upstream_before, equal_nan=True):
        raise CheckFailure(f"{name}.backward changed the upstream gradient it was given (an in-place "
                           "operation such as grad *= ... or grad[...] = ...): compute a new array instead.")
    for i, (a, b) in enumerate(zip(arrays, before)):
        if not np.array_equal(a, b, equal_nan=True):
            raise CheckFailure(f"{name} changed its input {i} in place.")
    if len(grads) != len(arrays):
        raise CheckFailure(f"{name}.backward returned {len(grads)} gradient(s) for {len(arrays)} input(s).")
    return out, grads, upstream


def check_rule(mt, function: Any, reference: Callable[..., np.ndarray], arrays: Sequence[np.ndarray],
               rng: np.random.Generator, differentiable: Sequence[int] | None = None,
               label: str = "", rtol: float = 1e-5, atol: float = 1e-7, **params: Any) -> None:
    """The forward against ``reference`` and each gradient against central differences."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    name = f"{function.__name__}{label}"
    shapes = " and ".join(str(a.shape) for a in arrays)
    out, grads, upstream = run_rule(mt, function, arrays, rng=rng, **params)
    explain(f"{name}.forward on input shape(s) {shapes}", out, np.asarray(reference(*arrays)), rtol=1e-7, atol=1e-10)
    for i in (range(len(arrays)) if differentiable is None else differentiable):
        expected = numeric_vjp(reference, arrays, upstream, i)
        explain(f"{name}.backward: the gradient for input {i} (shape {arrays[i].shape}, inputs {shapes})",
                grads[i], expected, input_shape=arrays[i].shape, rtol=rtol, atol=atol)


def check_float32(mt, function: Any, arrays: Sequence[np.ndarray], **params: Any) -> None:
    """float32 inputs give float32 gradients of the inputs' exact shapes."""
    arrays = [np.asarray(a, dtype=np.float32) for a in arrays]
    _, grads, _ = run_rule(mt, function, arrays, **params)
    for i, (a, g) in enumerate(zip(arrays, grads)):
        if g is not None:
            g = np.asarray(g)
            if g.dtype != np.float32:
                raise CheckFailure(f"{function.__name__}.backward: with float32 inputs the gradient for "
                                   f"input {i} is {g.dtype}, not float32 (dtype drift: a float64 "
                                   "constant or array crept in).")
            if g.shape != a.shape:
                explain(f"{function.__name__}.backward: the gradient for input {i}", g,
                        np.zeros(a.shape, np.float32), input_shape=a.shape)


@contextlib.contextmanager
def patched(module: Any, **replacements: Any) -> Iterator[None]:
    """Swap functions of the learner's module for trusted ones while a check runs, so that
    a bug in an earlier task is not charged again."""
    saved = {name: getattr(module, name) for name in replacements}
    for name, value in replacements.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


def trusted_unbroadcast(grad: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    return unbroadcast_by_loops(np.asarray(grad), shape) if grad.shape != tuple(shape) else grad


def quiet() -> contextlib.AbstractContextManager:
    """NumPy's RuntimeWarnings from correct code (log of 0, overflow in a discarded branch)
    must not cost points: they would reach stderr, which nbgrader counts as a failure."""
    stack = contextlib.ExitStack()
    stack.enter_context(np.errstate(all="ignore"))
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    return stack


def shapes_pairs(rng: np.random.Generator, count: int = 6) -> list[tuple[tuple, tuple]]:
    """Broadcastable shape pairs: equal, a missing leading axis, size-1 axes, 0-d."""
    fixed = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1), (1, 3)), ((), (2, 2)), ((3, 1, 2), (4, 1)),
             ((1,), (2, 3, 1))]
    drawn = []
    for _ in range(count):
        out = tuple(int(n) for n in rng.integers(1, 4, rng.integers(0, 4)))
        pick = lambda: tuple(n if rng.random() < 0.6 else 1 for n in out)[int(rng.integers(0, len(out) + 1)):]  # noqa: E731
        drawn.append((pick(), pick()))
    return fixed + drawn


def math_erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)
