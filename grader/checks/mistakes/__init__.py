"""The library of known mistakes: for each task, the common wrong answers of its rules as
small NumPy functions, each with its words and its fix. One source for both kinds of check:

* the hidden checks (``rules.check_rule``) compute each prediction on their own inputs and
  name a mistake only when the learner's answer equals its prediction (within the check's
  tolerance), or raised the exception it predicts;
* the notebooks' visible checks never see this code: ``make release`` evaluates each mistake
  on the visible checks' own fixed cases (``table.py``) and writes only the predicted wrong
  values, with the words and the fix, into the package's course room.

A ``Mistake``'s ``wrong(arrays, upstream, **params)`` is the wrong gradient for input
``input`` (it may raise, as the learner's code with that mistake would, or give None where
the mistake cannot happen). A ``ValueMistake`` is the same for a task whose answer is a value,
not a Function's gradient (a shape, ``unbroadcast``'s sum, an optimizer's step, attention
weights): its ``site`` names what is computed, and ``wrong(**case)`` gives what the
mistake computes from the case's inputs (the same names in the hidden and the visible
checks: each site's docstring in its stage module lists them). Nothing here imports the
learner's package.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.checks.diagnose import same_exception

REL = 1e-4  # an answer fits a prediction within a ten-thousandth of the prediction's distance from the right answer
ZERO = 1e-9  # of that distance: a prediction of 0 everywhere (nothing computed) is fitted this closely


@dataclass(frozen=True)
class Mistake:
    task: str
    op: str                # the Function, as the checks name it: "ops_unary.Tanh"
    input: int             # whose gradient it gets wrong
    name: str              # its short name (the class report's mistake)
    message: str           # the mistake, in plain words
    fix: str               # what to write instead
    wrong: Callable[..., Any]
    names_its_error: bool = True  # False: an exception it raises is not evidence of it (another mistake raises it too)
    look: str = ""         # the line to look at, in words, when it is one of several causes of an exception

    def words(self) -> str:
        return f"{self.message} (known mistake: {self.name}). Fix: {self.fix}"


@dataclass(frozen=True)
class ValueMistake:
    task: str
    site: str              # what is computed, with the case's names: "unbroadcast" (grad, shape)
    name: str
    message: str
    fix: str
    wrong: Callable[..., Any]
    typed: bool = False    # a tuple or list it gives is compared with its type ([4, 3] is not (4, 3))
    look: str = ""         # the line to look at, in words, when it is one of several causes of an exception

    def words(self) -> str:
        return f"{self.message} (known mistake: {self.name}). Fix: {self.fix}"


@functools.cache
def _stages() -> tuple:
    """Every ``stageN*.py`` module here, in order: each holds ``MISTAKES`` and/or ``VALUE_MISTAKES``."""
    import importlib
    import pkgutil
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("stage"))
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in names)


def library() -> list[Mistake]:
    """Every known mistake of a Function, of the tasks the course has (``grader/tasks.toml``)."""
    from grader.tasks import TASKS
    return [m for stage in _stages() for m in getattr(stage, "MISTAKES", []) if m.task in TASKS]


def value_mistakes(site: str | None = None) -> list[ValueMistake]:
    """The known mistakes of the values computed at ``site`` (every site's, without one)."""
    from grader.tasks import TASKS
    return [s for stage in _stages() for s in getattr(stage, "VALUE_MISTAKES", []) if (site is None or s.site == site)
            and s.task in TASKS]


def of(op: str, input: int | None = None) -> list[Mistake]:
    """The known mistakes of one Function (of one of its inputs)."""
    return [m for m in library() if m.op == op and (input is None or m.input == input)]


def predict(mistake: Mistake, arrays: Sequence[np.ndarray], upstream: np.ndarray, params: dict) -> dict | None:
    """What the mistake gives on this case: {"values": array} or {"raises": (type, message)},
    or None where it cannot happen or gives the right answer anyway (``right``)."""
    try:
        with np.errstate(all="ignore"):
            values = mistake.wrong([np.asarray(a) for a in arrays], np.asarray(upstream), **params)
    except (ArithmeticError, ValueError, IndexError, TypeError) as error:
        return {"raises": (type(error).__name__, str(error))} if mistake.names_its_error else None
    if values is None:
        return None
    return {"values": np.asarray(values)}


def fits(got: Any, predicted: dict, expected: np.ndarray | None, rtol: float, atol: float) -> bool:
    """Whether a returned gradient equals a predicted wrong one (and the prediction is not
    the right answer itself). Past the relative ``rtol``, the tolerance follows the size of
    the difference judged (``tolerance``): a ten-thousandth of the prediction's distance
    from the right answer, ``atol`` only where there is no right answer to measure it by."""
    if isinstance(got, np.generic):  # a 0-d answer may come back as a NumPy scalar
        got = np.asarray(got)
    if "values" not in predicted or not isinstance(got, np.ndarray) or got.dtype.kind not in "fiub":
        return False
    wrong = predicted["values"]
    if got.shape != wrong.shape or wrong.size == 0:  # an empty answer is no evidence of any mistake
        return False
    if expected is not None and expected.shape == wrong.shape and \
            np.allclose(wrong, expected, rtol=rtol, atol=atol, equal_nan=True):
        return False
    near = tolerance(wrong, expected, atol)
    return bool(np.allclose(got.astype(np.float64), wrong.astype(np.float64), rtol=rtol, atol=near, equal_nan=True))


def predict_value(value_mistake: ValueMistake, case: dict) -> dict | None:
    """What the mistake computes on this case: {"values": array}, {"equals": a tuple, list or
    string}, {"raises": (type, message)}, or None where it cannot happen."""
    try:
        with np.errstate(all="ignore"):
            value = value_mistake.wrong(**case)
    except (ArithmeticError, ValueError, IndexError, TypeError, KeyError) as error:
        return {"raises": (type(error).__name__, str(error))}
    if value is None:
        return None
    if isinstance(value, (tuple, list, str)):  # a shape, an order of names: compared item by item
        if value_mistake.typed and not isinstance(value, str):
            return {"equals": list(value), "type": "list" if isinstance(value, list) else "tuple"}
        return {"equals": list(value) if not isinstance(value, str) else value}
    return {"values": np.asarray(value, np.float64)}


def _numbers(value: Any) -> bool:
    try:
        return np.asarray(value).dtype.kind in "fiu"
    except (ValueError, TypeError):
        return False


def fits_value(got: Any, predicted: dict, expected: Any, rtol: float, atol: float) -> bool:
    """Whether a computed value equals a mistake's prediction (and the prediction is not the
    right answer itself): equal for a tuple, list or string, close for numbers."""
    if "equals" in predicted:
        wrong, kind = predicted["equals"], predicted.get("type")
        if not _same_items(got, wrong) or kind and type(got).__name__ != kind:
            return False
        return not _same_items(expected, wrong) or bool(kind) and type(expected).__name__ != kind
    if isinstance(got, (int, float)) and not isinstance(got, bool):
        got = np.asarray(got, np.float64)
    exp = None if expected is None else np.asarray(expected, np.float64) if _numbers(expected) else None
    return fits(got, predicted, exp, rtol, atol)


def _same_items(a: Any, b: Any) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and list(a) == list(b)


def raised_as_predicted(kind: str, message: str, predicted: dict) -> bool:
    return "raises" in predicted and same_exception(kind, message, *predicted["raises"])


def unbroadcast(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum ``grad`` down to ``shape`` (the mistakes' own, independent of any package)."""
    grad = np.asarray(grad)
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


def tolerance(wrong: np.ndarray, expected: np.ndarray | None, atol: float) -> float:
    """The absolute part of the tolerance for ``wrong``: ``REL`` times its largest finite
    distance from the right answer, or the check's ``atol`` where that is a tenth of the
    distance or less (``atol`` alone where there is no right answer of its shape)."""
    if expected is None or np.shape(expected) != wrong.shape or np.asarray(expected).dtype.kind not in "fiub":
        return atol
    with np.errstate(all="ignore"):
        distance = np.abs(wrong.astype(np.float64) - np.asarray(expected, np.float64))
    finite = distance[np.isfinite(distance)]
    if not finite.size or finite.max() <= 0:
        return atol
    if not np.any(wrong):   # nothing computed comes back as exactly 0: a small answer is not "0"
        return ZERO * float(finite.max())
    # the check's own atol (a sampled frequency's noise) only where it is a tenth of that distance or less
    return max(REL * float(finite.max()), min(atol, float(finite.max()) / 10))
