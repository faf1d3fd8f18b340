"""Naming a known mistake of the library (``grader/checks/mistakes/``) in a hidden check's
message, on evidence only (``mistakes/evidence.py``): a wrong gradient of a Function
(``name_known``, ``judge``), a wrong value of a site (``judge_value``, ``name_value_mistake``) or the
learner's exception (``value_mistake_raised``, ``named_raise``). Each judged case is kept for the
part, so that a later failing case names a mistake only if the earlier answers fit it too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from grader.checks.common import CheckFailure, explain, scaled_atol
from grader.checks.diagnose import same_exception, shape_pattern, value_pattern
from grader.checks.mistakes import evidence, fits, fits_value, predict, predict_value, value_mistakes
from grader.checks.mistakes import of as library_of
from grader.results import Failure


def known_for(function: str, arrays: Sequence[np.ndarray], upstream: Any, params: dict) -> list:
    """The library's known mistakes of ``function``, each with what it gives on this case."""
    return [(m, predict(m, arrays, upstream, params)) for m in library_of(function) if m.input < len(arrays)]


def _where(mistake: Any) -> tuple:
    """Where a known mistake shows: a Function's input, or a value's site."""
    return ("value", mistake.site) if hasattr(mistake, "site") else (mistake.op, mistake.input)


def seen_gradient(function: str, i: int, got: Any, expected: np.ndarray, rtol: float, atol: float,
                   predicting: Callable[[Any], dict | None]) -> None:
    """Keep a gradient the check judged, for the evidence a later failing case of the part needs."""
    evidence.seen((function, i), got, predicting, lambda g, p: fits(g, p, expected, rtol, atol),
                  lambda p: "values" in p and p["values"].shape == expected.shape and
                  bool(np.allclose(p["values"], expected, rtol=rtol, atol=atol, equal_nan=True)))


def name_known(known: list, i: int, what: str, got: Any, expected: np.ndarray, rtol: float, atol: float,
               partner: tuple[int, Any, np.ndarray] | None = None) -> None:
    """Raise the known mistake that ``got`` gives evidence of (``evidence.single_out``), if one.
    With ``partner`` (input j, its answer, its right gradient), the answers of i and j are swapped:
    a mistake is named then only if j's answer is a known mistake of j's too (Sub's minus moved
    from b to a is "sign on the wrong input" on a and "sign lost on b" on b); a one-input mistake
    whose partner fits none is no evidence against a plain swap (issue 45)."""
    mine = [(m, p) for m, p in known if m.input == i]
    mistake = evidence.single_out(got, mine, lambda g, p: fits(g, p, expected, rtol, atol), _where)
    if mistake is not None and partner is not None:
        j, theirs, right = partner
        other = evidence.single_out(theirs, [(m, p) for m, p in known if m.input == j],
                                    lambda g, p: fits(g, p, right, rtol, scaled_atol(right, atol)), _where)
        mistake = mistake if other is not None else None
    if mistake is not None:
        raise CheckFailure(f"{what} is wrong: {mistake.words()}.{where(got, expected)}", mistake.name)


def swapped_with(grads: Sequence, i: int, expected: np.ndarray, right_of: Callable[[int], np.ndarray | None],
                 rtol: float, atol: float) -> tuple[int, Any, np.ndarray] | None:
    """The input j whose right gradient is the answer for input ``i`` while j's answer is i's right
    gradient (the two swapped), with j's answer and right gradient; None if no input's is."""
    def close(a: Any, b: Any) -> bool:
        return isinstance(a, np.ndarray) and a.dtype.kind in "fiu" and a.shape == b.shape and \
            bool(np.allclose(a, b, rtol=rtol, atol=scaled_atol(b, atol)))
    for j in range(len(grads)):
        right = right_of(j) if j != i and close(grads[j], expected) else None
        if right is not None and close(grads[i], right) and not close(expected, right):
            return j, grads[j], right
    return None


def judge(what: str, function: str, arrays: Sequence[np.ndarray], upstream: Any, params: dict, i: int, got: Any,
          expected: npt.ArrayLike, **options: Any) -> None:
    """``explain`` for one gradient of a rule run by hand (``run_rule``), naming a known mistake
    of the library when the answer is its prediction."""
    rtol, atol = options.get("rtol", 1e-5), scaled_atol(np.asarray(expected), options.get("atol", 1e-7))
    try:
        explain(what, got, expected, **{"full": np.shape(upstream), **options})  # a gradient in the output's shape
    except CheckFailure:
        name_known(known_for(function, arrays, upstream, params), i, what, got, np.asarray(expected), rtol, atol)
        raise
    seen_gradient(function, i, got, np.asarray(expected), rtol, atol, lambda m: predict(m, arrays, upstream, params))


def judge_value(what: str, site: str, case: dict, got: Any, expected: npt.ArrayLike, **options: Any) -> None:
    """``explain`` for a computed value (not a Function's gradient), naming the known mistake
    of ``site`` (the library's) that computes ``got`` from ``case``, if one does."""
    rtol, atol = options.get("rtol", 1e-5), scaled_atol(np.asarray(expected, np.float64), options.get("atol", 1e-7))
    try:
        explain(what, got, expected, **options)
    except CheckFailure:
        name_value_mistake(site, case, what, got, expected, rtol, atol)
        raise
    seen_value(site, case, got, expected, rtol, atol)


def seen_value(site: str, case: dict, got: Any, expected: Any, rtol: float = 1e-5, atol: float = 1e-7) -> None:
    """Keep a value the check judged right (or wrong), as evidence for or against each mistake of ``site``."""
    evidence.seen(("value", site), got, lambda value_mistake: predict_value(value_mistake, case),
                  lambda g, p: fits_value(g, p, expected, rtol, atol),
                  lambda p: "raises" not in p and not fits_value(evidence.answer(p), p, expected, rtol, atol))




def name_value_mistake(site: str, case: dict, what: str, got: Any, expected: Any, rtol: float = 1e-5,
              atol: float = 1e-7) -> None:
    """Raise the known mistake of ``site`` whose value on ``case`` ``got`` equals, if one does."""
    known = [(value_mistake, predict_value(value_mistake, case)) for value_mistake in value_mistakes(site)]
    value_mistake = evidence.single_out(got, known, lambda g, p: fits_value(g, p, expected, rtol, atol), _where)
    if value_mistake is not None:
        predicted = dict(known)[value_mistake] or {}
        want = f"a {expected.__name__}" if isinstance(expected, type) else repr(expected)  # a class: it should raise
        shown = where(got, np.asarray(expected)) if "values" in predicted else f" It gave {got!r}, not {want}."
        raise CheckFailure(f"{what} is wrong: {value_mistake.words()}.{shown}", value_mistake.name)


def value_mistake_raised(failure: CheckFailure, site: str, case: dict) -> CheckFailure:
    """A learner's exception at ``site``, with the known mistake that predicts it named after it."""
    known = [(value_mistake, predict_value(value_mistake, case)) for value_mistake in value_mistakes(site)]
    return named_raise(failure, known)


def named_raise(failure: CheckFailure, known: list) -> CheckFailure:
    """A learner's exception, with the known mistake that predicts it named after it."""
    found = re.search(r" raised (\w+): (.*?)(?: at minitorch/|$)", str(failure), re.DOTALL)
    if failure.kind is Failure.RAISED and found:
        causes = evidence.raisers(found.group(1), found.group(2), known, same_exception, _where)
        if len(causes) == 1:
            mistake = causes[0]
            return CheckFailure(f"{failure} (known mistake: {mistake.name}): {mistake.message}. Fix: {mistake.fix}",
                                mistake.name, kind=Failure.RAISED)
        if causes:  # an ambiguous exception stays neutral: each cause, with its line, and none named
            return CheckFailure(f"{failure}{evidence.neutral(causes)}", failure.mistake, kind=Failure.RAISED)
    return failure


def where(got: Any, expected: np.ndarray) -> str:
    """Where a wrong gradient of the right shape differs most, to the digits where it differs."""
    got = np.asarray(got) if isinstance(got, np.generic) else got
    if not isinstance(got, np.ndarray) or got.dtype.kind not in "fiub":
        return ""
    if got.shape != expected.shape:
        shape = shape_pattern(got.shape, expected.shape, got, expected, atol=scaled_atol(expected, 1e-7)).text
        return f" It has shape {got.shape}, not {expected.shape}.{' ' + shape if shape else ''}"
    found = value_pattern(got, expected)
    return f"{' ' + found.text if found.text else ''} The largest difference: {found.where}."
