"""What every stage's checks share: the failure they raise, how a learner's call is made,
how what went wrong in the learner's process becomes words (``failure_of``, the one place)
and how a wrong array is explained (``rules.py`` runs and judges one rule of an op).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import numpy.typing as npt

from grader.boundary.failures import Borrowed, Lost, Raised, Unimportable
from grader.boundary.wire import oversized
from grader.checks.diagnose import shape_pattern, value_pattern
from grader.results import Failure


class CheckFailure(AssertionError):
    """A failed part. ``message`` is for the learner; ``kind`` is what happened (a value
    code may branch on); ``mistake`` names the mistake for the class report (the kind's own
    unless the check names it: ``WRONG``); ``keep`` is the share of the part's points
    still earned; ``not_finite`` says the answer holds NaN or inf where the right one is
    finite (a check at large magnitudes names that instability)."""

    def __init__(self, message: str, mistake: str | None = None, keep: float = 0.0,
                 kind: Failure = Failure.WRONG, not_finite: bool = False) -> None:
        super().__init__(message)
        self.kind, self.mistake, self.keep, self.not_finite = kind, mistake or kind.mistake, keep, not_finite


def failure_of(error: Raised | Unimportable | Lost, doing: str = "the learner's code") -> CheckFailure:
    """What went wrong in the learner's process, as the learner reads it: the one place
    these words are made."""
    if isinstance(error, Lost):
        return CheckFailure(str(error), kind=Failure.IMPORT_LOST if error.importing else error.kind)
    if isinstance(error, Unimportable):
        where = f" ({error.where})" if error.where else ""
        return CheckFailure(f"the package could not be imported: {error.type}: {error.message}{where}",
                            kind=Failure.IMPORT_FAILED)
    if error.type == "NotImplementedError":
        return CheckFailure(f"not implemented yet ({error.message})" if error.message else "not implemented yet",
                            kind=Failure.NOT_IMPLEMENTED)
    where = f" at {error.where}" if error.where else ""
    if isinstance(error, Borrowed):
        return CheckFailure(f"{doing} called {error.message}{where}", kind=Failure.BORROWED)
    return CheckFailure(f"{doing} raised {error.type}: {error.message}{where}", kind=Failure.RAISED)


def learner_raised(error: Raised, doing: str) -> CheckFailure:
    """A learner's exception, with what was being done and the learner's line."""
    return failure_of(error, doing)


def call_learner(w, probe: str, doing: str, **args):
    """A probe's observations; the learner's exception becomes a CheckFailure naming ``doing``."""
    try:
        return w.call(probe, doing=f"running {doing}", **args)
    except Raised as error:
        raise learner_raised(error, doing) from None


NONE = "came back as None: the function ended without returning its value (a `return` missing?)"


# ---- explaining a wrong array ------------------------------------------------------------
def explain(what: str, got: Any, expected: npt.ArrayLike, *, rtol: float = 1e-5, atol: float = 1e-7,
            kind: str = "", full: tuple | None = None) -> None:
    """Raise CheckFailure unless ``got`` equals ``expected`` in type, shape, dtype and
    values, naming the likely mistake in the words of the visible checks (``diagnose.py``,
    the one diagnosis); ``kind`` "matmul" names a transposed result as a matmul gradient;
    ``atol`` is scaled by the size of the largest expected value
    (down to a thousandth), so that a small but wrong term is not lost under it; ``full``, a
    gradient's upstream shape (the forward output's), says when one came back in that shape."""
    expected = np.asarray(expected)
    if got is None:
        raise CheckFailure(f"{what}: {NONE}; expected an array of shape {expected.shape}", "returned None")
    if (too_large := oversized(got)) is not None:
        raise CheckFailure(f"{what}: got {too_large}, expected an array of shape {expected.shape}; so large a value "
                           "is not sent back (only this value is lost)", kind=Failure.OVERSIZED)
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
        numbers = got.dtype.kind in "fiub" and expected.dtype.kind in "fiub"
        found = shape_pattern(got.shape, expected.shape, got if numbers else None, expected if numbers else None,
                              rtol=rtol, atol=scaled_atol(expected, atol) if numbers else atol, full=full)
        mistake = "transposed matmul gradient" if found.mistake == "transposed" and kind == "matmul" else found.mistake
        raise CheckFailure(f"{what} has shape {got.shape} but should have shape {expected.shape}."
                           f"{' ' + found.text if found.text else ''}", mistake)
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
    text, mistake = _diagnose(got, expected, rtol, atol, kind)
    also = f" It also has dtype {got.dtype} instead of {expected.dtype}." if drift else ""
    not_finite = bool((~np.isfinite(got.astype(np.float64)) & np.isfinite(expected.astype(np.float64))).any())
    raise CheckFailure(f"{what} is wrong: {text}{also}", mistake, not_finite=not_finite)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def scaled_atol(expected: np.ndarray, atol: float) -> float:
    """``atol`` times the largest finite expected value (at least a thousandth)."""
    finite = np.abs(expected[np.isfinite(expected)]) if expected.dtype.kind in "fc" else np.abs(expected).ravel()
    return atol * max(float(finite.max(initial=0.0)), 1e-3)


def _diagnose(got: np.ndarray, expected: np.ndarray, rtol: float, atol: float, kind: str) -> tuple[str, str]:
    """The pattern a wrong array fits, in the words of the visible checks (diagnose.py)."""
    found = value_pattern(got, expected, rtol=rtol, atol=atol)
    mistake = "transposed matmul gradient" if found.mistake == "transposed" and kind == "matmul" else found.mistake
    return (f"{found.text} The largest difference: {found.where}." if found.text else f"{found.where}."), mistake


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


FILE, NAME = re.compile(r"minitorch/[\w/]+\.py"), re.compile(r"[\w.]+")  # a probe's file and function, checked


def drift_noted(failure: CheckFailure, found: Any) -> CheckFailure:
    """``failure`` with the words for a probe's finding of where a dtype drift begins (``dtype_origin``,
    ``call_dtype_origin``); unchanged when it found none."""
    if not isinstance(found, dict) or not found:
        return failure
    file, name, line, local, made = (found.get(k) for k in ("file", "function", "line", "name", "dtype"))
    if not (isinstance(file, str) and FILE.fullmatch(file) and isinstance(name, str) and NAME.fullmatch(name)
            and isinstance(line, int) and isinstance(local, str) and (not local or local.isidentifier())
            and isinstance(made, str) and re.fullmatch(r"(u?int|float|complex)\d+", made)):
        return failure
    what = f"{local} is {made}" if local else f"it returns {made}"
    text = str(failure).rstrip()
    return CheckFailure(f"{text}{' ' if text.endswith('.') else '. '}The first value of another dtype than float32 in "
                        f"your code is made at line {line} of {file} ({name}): {what} there (NumPy makes float32 mixed "
                        "with int64 or float64 into float64).", failure.mistake, failure.keep, failure.kind,
                        failure.not_finite)
