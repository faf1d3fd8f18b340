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
the mistake cannot happen). Nothing here imports the learner's package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.checks.diagnose import same_exception


@dataclass(frozen=True)
class Mistake:
    task: str
    op: str                # the Function, as the checks name it: "ops_unary.Tanh"
    input: int             # whose gradient it gets wrong
    name: str              # its short name (the class report's pitfall)
    message: str           # the mistake, in plain words
    fix: str               # what to write instead
    wrong: Callable[..., Any]

    def words(self) -> str:
        return f"{self.message} (known mistake: {self.name}). Fix: {self.fix}"


def library() -> list[Mistake]:
    from grader.checks.mistakes import stage2, stage3, stage4, stage5, stage7
    return [*stage2.MISTAKES, *stage3.MISTAKES, *stage4.MISTAKES, *stage5.MISTAKES, *stage7.MISTAKES]


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
        return {"raises": (type(error).__name__, str(error))}
    if values is None:
        return None
    return {"values": np.asarray(values)}


def fits(got: Any, predicted: dict, expected: np.ndarray | None, rtol: float, atol: float) -> bool:
    """Whether a returned gradient equals a predicted wrong one (and the prediction is not
    the right answer itself)."""
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
    return bool(np.allclose(got.astype(np.float64), wrong.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True))


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
