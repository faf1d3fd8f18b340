"""What every stage's checks share: the failure they raise, how a learner's call is made,
and how a wrong array is explained (``rules.py`` runs and judges one rule of an op).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.boundary.runner import Borrowed, Raised
from grader.boundary.wire import oversized


class CheckFailure(AssertionError):
    """A failed check. ``message`` is for the learner; ``pitfall`` names the mistake for
    the class report; ``keep`` is the share of the part's points still earned."""

    def __init__(self, message: str, pitfall: str = "wrong result", keep: float = 0.0) -> None:
        super().__init__(message)
        self.pitfall, self.keep = pitfall, keep


def learner_raised(error: Raised, doing: str) -> CheckFailure:
    """A learner's exception, with what was being done and the learner's line."""
    if error.type == "NotImplementedError":
        return CheckFailure(f"not implemented yet ({error.message})" if error.message else "not implemented yet",
                            "not implemented")
    where = f" at {error.where}" if error.where else ""
    if isinstance(error, Borrowed):
        return CheckFailure(f"{doing} called {error.message}{where}", "called the grader's version")
    return CheckFailure(f"{doing} raised {error.type}: {error.message}{where}", "raised an error")


def call_learner(w, probe: str, doing: str, **args):
    """A probe's observations; the learner's exception becomes a CheckFailure naming ``doing``."""
    try:
        return w.call(probe, doing=f"running {doing}", **args)
    except Raised as error:
        raise learner_raised(error, doing) from None


# ---- explaining a wrong array ------------------------------------------------------------
def explain(what: str, got: Any, expected: np.ndarray, *, rtol: float = 1e-5, atol: float = 1e-7,
            kind: str = "") -> None:
    """Raise CheckFailure unless ``got`` equals ``expected`` in type, shape, dtype and
    values, naming the likely mistake. ``kind`` ("broadcast", "unbroadcast", "reduction",
    "matmul") says
    which hints can be true; ``atol`` is scaled by the size of the largest expected value
    (down to a thousandth), so that a small but wrong term is not lost under it."""
    expected = np.asarray(expected)
    if got is None:
        raise CheckFailure(f"{what}: got None, expected an array of shape {expected.shape}", "returned None")
    if (too_large := oversized(got)) is not None:
        raise CheckFailure(f"{what}: got {too_large}, expected an array of shape {expected.shape}; so large a value "
                           "is not sent back (only this value is lost)", "oversized answer")
    if isinstance(got, dict) and "unsupported" in got:
        raise CheckFailure(f"{what}: got a {got['unsupported']}, expected a NumPy array (backward rules work "
                           "on plain ndarrays: use .data of a Tensor)", "wrong type")
    if isinstance(got, (bool, int, float, list, tuple)) and not isinstance(got, np.generic):  # NumPy scalars are 0-d
        raise CheckFailure(f"{what}: got a Python {type(got).__name__} ({_short(got)}), expected a NumPy array of "
                           f"shape {expected.shape}{' (a 0-d array: np.asarray of a number makes one)' if not expected.shape else ''}"
                           ": a Python number forgets the dtype (float32 stays float32 only in an array)",
                           "python scalar, not an array")
    got = np.asarray(got)
    if got.shape != expected.shape:
        hint, pitfall = "", "wrong shape"
        if kind in ("broadcast", "unbroadcast") and got.size > expected.size and _stretches(expected.shape, got.shape):
            hint, pitfall = (" The input was broadcast in the forward pass: sum the gradient over the broadcast "
                             "axes (unbroadcast) so it gets the input's shape."), "missing unbroadcast"
        elif kind in ("reduction", "unbroadcast") and got.size == expected.size and _squeezed(got.shape) == _squeezed(expected.shape):
            hint, pitfall = " The sizes are right but a size-1 axis is missing or extra: did you lose keepdims?", \
                "lost keepdims"
        elif kind == "matmul" and got.shape == expected.shape[::-1]:
            hint, pitfall = " The shape is transposed: check the order of the matmul operands and their transposes.", \
                "transposed matmul gradient"
        raise CheckFailure(f"{what} has shape {got.shape} but should have shape {expected.shape}.{hint}", pitfall)
    atol = scaled_atol(expected, atol)
    numbers = got.dtype.kind in "fiub"
    right = numbers and np.allclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                                    equal_nan=True)
    drift = got.dtype != expected.dtype and expected.dtype.kind == "f"
    if drift and right:  # the right numbers in the wrong dtype: half the part's points
        raise CheckFailure(f"{what} has dtype {got.dtype} but should have dtype {expected.dtype} (the input's): a "
                           "float64 constant or array crept into the rule (dtype drift).", "dtype drift", keep=0.5)
    if right and not drift:
        return
    if not numbers:
        raise CheckFailure(f"{what} has dtype {got.dtype}, expected numbers of dtype {expected.dtype}", "wrong type")
    text, pitfall = _diagnose(got, expected, rtol, atol, kind)
    also = f" It also has dtype {got.dtype} instead of {expected.dtype}." if drift else ""
    raise CheckFailure(f"{what} is wrong: {text}{also}", pitfall)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def scaled_atol(expected: np.ndarray, atol: float) -> float:
    """``atol`` times the largest finite expected value (at least a thousandth)."""
    finite = np.abs(expected[np.isfinite(expected)]) if expected.dtype.kind in "fc" else np.abs(expected).ravel()
    return atol * max(float(finite.max(initial=0.0)), 1e-3)


def _squeezed(shape: tuple) -> tuple:
    return tuple(n for n in shape if n != 1)


def _stretches(shape: tuple, target: tuple) -> bool:
    return len(shape) <= len(target) and all(n in (t, 1) for n, t in zip(shape, target[len(target) - len(shape):]))


def _diagnose(got: np.ndarray, expected: np.ndarray, rtol: float, atol: float, kind: str) -> tuple[str, str]:
    g, e = got.astype(np.float64).ravel(), expected.astype(np.float64).ravel()
    broken = ~np.isfinite(g) & np.isfinite(e)
    gaps = np.nan_to_num(np.abs(g - e), nan=-1.0, posinf=np.inf)
    worst = int(np.argmax(broken)) if broken.any() else int(np.argmax(gaps))
    index = tuple(int(i) for i in np.unravel_index(worst, expected.shape))
    where = f"at index {index} it is {g[worst]:.6g}, expected {e[worst]:.6g}"
    if broken.any():
        return f"it has inf or nan values ({where}).", "overflow or nan"
    if np.abs(e).max(initial=0) > 0 and np.allclose(g, -e, rtol=rtol, atol=atol):
        return f"it has the wrong sign ({where}).", "wrong sign"
    nonzero = np.abs(e) > 1e-8
    if nonzero.sum() >= 2:
        ratio = g[nonzero] / e[nonzero]
        if np.allclose(ratio, ratio[0], rtol=1e-6) and not np.isclose(ratio[0], 1) \
                and np.allclose(g, ratio[0] * e, rtol=rtol, atol=atol):
            return f"it is off by a constant factor of {ratio[0]:.4g} ({where}).", "constant factor"
    if kind == "matmul" and expected.ndim == 2 and expected.shape[0] == expected.shape[1] \
            and np.allclose(got, expected.T, rtol=rtol, atol=atol):
        return f"it is the transpose of the right answer ({where}).", "transposed matmul gradient"
    return f"{where}.", "wrong values"


# ---- running one learner's rule ---------------------------------------------------------
def describe_params(params: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items() if k != "index") or ""


def index_spec(index: Any) -> Any:
    """An index as plain data for ``probes.index_from`` (slices, None and Ellipsis encoded)."""
    def one(item):
        if isinstance(item, slice):
            return ["slice", item.start, item.stop, item.step]
        if item is Ellipsis:
            return ["..."]
        if item is None:
            return ["none"]
        return item
    return tuple(one(i) for i in index) if isinstance(index, tuple) else one(index)


def shapes_pairs(rng: np.random.Generator, count: int = 6) -> list[tuple[tuple, tuple]]:
    """Broadcastable shape pairs: equal, a missing leading axis, size-1 axes, 0-d, and both
    a missing leading axis and a stretched size-1 axis, on either side."""
    fixed = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1), (1, 3)), ((), (2, 2)), ((3, 1, 2), (4, 1)),
             ((1,), (2, 3, 1)), ((2, 3, 4), (3, 1)), ((3, 1), (2, 3, 4))]
    drawn = []
    for _ in range(count):
        out = tuple(int(n) for n in rng.integers(1, 4, rng.integers(0, 4)))
        pick = lambda: tuple(n if rng.random() < 0.6 else 1 for n in out)[int(rng.integers(0, len(out) + 1)):]  # noqa: E731
        drawn.append((pick(), pick()))
    return fixed + drawn



def order_problem(calls: list, pattern: list, times: int, unit: str) -> str:
    """What is wrong with the order of a training loop's calls, or "" when nothing is.
    Besides ``zero_grad``, the calls must be ``pattern`` ``times`` over. The loop may clear
    the gradients before each backward or after each step (the first backward meets
    gradients nothing has used yet), but never between a backward and its step, and no
    backward may add to gradients a step already used."""
    if [c for c in calls if c != "zero_grad"] != pattern * times:
        return f"each {unit} must call {', '.join(pattern[:-1])}, then {pattern[-1]}, once each and in that order"
    used, waiting = False, False  # gradients already used by a step; a backward waiting for its step
    for call in calls:
        if call == "zero_grad":
            if waiting:
                return "zero_grad between backward and step throws the gradients away before step uses them"
            used = False
        elif call == "backward":
            if used:
                return "there is no zero_grad between one step and the next backward, so the gradients add up"
            waiting = True
        elif call == "step":
            used, waiting = True, False
    return ""
