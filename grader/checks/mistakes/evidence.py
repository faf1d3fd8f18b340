"""A name needs evidence: the hidden checks name a known mistake only when the learner's
answers fit its prediction on every case the check (one part) has run, and the case that
failed is a discriminating one for it: there its prediction differs, beyond the tolerance,
from the right answer and from every other prediction the library holds for that answer.

The tolerance follows the size of the difference judged: an answer fits a prediction when
it is within ``REL`` (in ``__init__.py``: a ten-thousandth) of the largest distance between that prediction and the right answer
(and the check's own relative tolerance), never a fixed absolute amount, so a case where
a mistake's answer is a hair from 0 and the right answer is 2 cannot name "it is 0".

An exception names a known mistake only when no other known cause raises the same exception
on that case (``raisers``); otherwise the message lists the plausible causes, each with the
line to look at, and names none (``neutral``).

A part runs in ``fresh()`` (``grader.checks.part``); each case that a check judged is kept
(``seen``) and is looked at again only when a name is about to be given (``consistent``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

_records: list[list[tuple]] = []


@contextlib.contextmanager
def fresh() -> Iterator[None]:
    """One check's (one part's) record of the cases it has judged."""
    _records.append([])
    try:
        yield
    finally:
        _records.pop()


def seen(where: Any, got: Any, predict: Callable[[Any], dict | None], fit: Callable[[Any, dict], bool],
         correct: Callable[[dict], bool]) -> None:
    """Keep a judged case: ``where`` (a site, or a Function and an input), the learner's answer,
    and how to get any mistake's prediction there (``predict``), whether an answer fits a
    prediction (``fit``) and whether a prediction is the right answer itself (``correct``)."""
    if _records:
        _records[-1].append((where, got, predict, fit, correct))


def consistent(where: Any, mistake: Any) -> bool:
    """Whether the learner's answers on the cases this check judged before fit ``mistake``:
    where its prediction was not the right answer, the answer was that prediction."""
    for place, got, predict, fit, correct in (_records[-1] if _records else []):
        if place != where:
            continue
        predicted = predict(mistake)
        if not predicted or correct(predicted):
            continue  # the mistake changes nothing there: no evidence either way
        if isinstance(got, BaseException):
            if "raises" not in predicted:
                return False
            continue
        if "raises" in predicted or not fit(got, predicted):
            return False
    return True


def answer(predicted: dict) -> Any:
    """A prediction as an answer a learner could have given (to compare two predictions)."""
    if "values" in predicted:
        return predicted["values"]
    if "equals" in predicted:
        return list(predicted["equals"]) if predicted.get("type") == "list" else \
            predicted["equals"] if isinstance(predicted["equals"], str) else tuple(predicted["equals"])
    return None


def single_out(got: Any, known: list[tuple[Any, dict | None]], fit: Callable[[Any, dict], bool],
               where: Callable[[Any], Any]) -> Any:
    """The one known mistake ``got`` gives evidence of on this case, or None: it fits its
    prediction; no mistake of another name fits too; no other prediction lies within the
    tolerance of this one (the case would not tell them apart); and the answers on the
    earlier cases of the check fit it too. A mistake the earlier answers already belie is no
    rival: a case before told it apart (two mistakes that agree here, but not on a case the
    check ran before, are told apart by that case)."""
    known = [(m, p) for m, p in known if consistent(where(m), m)]
    fitting = [(m, p) for m, p in known if p and "raises" not in p and fit(got, p)]
    if len({m.name for m, _ in fitting}) != 1:
        return None
    mistake, predicted = fitting[0]
    mine = answer(predicted)
    for other, theirs in known:
        if other.name != mistake.name and theirs and "raises" not in theirs and mine is not None and fit(mine, theirs):
            return None
    return mistake


def raisers(kind: str, message: str, known: list[tuple[Any, dict | None]], same: Callable[..., bool],
            where: Callable[[Any], Any]) -> list:
    """The known mistakes that raise this exception here (one per name), each consistent with
    the check's earlier cases."""
    found: dict[str, Any] = {}
    for mistake, predicted in known:
        if predicted and "raises" in predicted and same(kind, message, *predicted["raises"]) and \
                mistake.name not in found and consistent(where(mistake), mistake):
            found[mistake.name] = mistake
    return list(found.values())


def neutral(causes: list) -> str:
    """Several known causes raise the same exception: each, with the line to look at; none named."""
    listed = "; ".join(f"{m.message} ({'look at ' + m.look if m.look else 'fix: ' + m.fix})" for m in causes)
    return f" More than one known mistake raises this here, so none is named. Plausible causes: {listed}."
