"""A name needs evidence: a visible check names a known mistake only when your answers fit
its prediction on every case the check has run, and the case that failed tells it apart:
there its prediction differs, beyond the tolerance, from the right answer and from every
other known mistake's prediction. An exception names a mistake only when no other known
mistake raises the same exception there; otherwise the check lists the plausible causes.

The tolerance follows the size of the difference judged: your answer fits a prediction when
it is within a ten-thousandth (``REL``) of that prediction's distance from the right answer
(or within the check's own tolerance, for a sampled frequency, where that is a tenth of the
distance or less). A prediction of 0 everywhere (nothing computed, one point twice) is fitted
only within a billionth (``ZERO``) of its distance: such a mistake gives exactly 0, and an
answer that is merely small (a step of its own, 1e-6 for eps) is another mistake.

Each check cell is one ``block()`` (``failures.checking``); the cases it judged are kept
(``seen``) and looked at again only when a mistake is about to be named (``consistent``).
The predictions themselves are the table's (``known_mistakes.json``): values only.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

import numpy as np

REL = 1e-4
ZERO = 1e-9   # of the distance: a prediction of 0 everywhere (nothing computed) is fitted this closely

_blocks: list[list[tuple]] = []


@contextlib.contextmanager
def block() -> Iterator[None]:
    """One check cell: the cases it judges are its evidence."""
    _blocks.append([])
    try:
        yield
    finally:
        _blocks.pop()


def seen(where: Any, entries: list[dict], got: Any, fit: Callable[[Any, dict], bool]) -> None:
    """Keep a judged case: where (a Function's input, or a value's site), the known mistakes'
    entries there (only those whose prediction is not the right answer), your answer, and
    whether an answer fits an entry."""
    if _blocks:
        _blocks[-1].append((where, entries, got, fit))


def consistent(where: Any, name: str) -> bool:
    """Whether your answers on the cases this check judged before fit the mistake ``name``
    wherever it predicts something other than the right answer."""
    for place, entries, got, fit in (_blocks[-1] if _blocks else []):
        if place != where:
            continue
        for entry in (e for e in entries if e["name"] == name):
            if isinstance(got, BaseException) != ("raises" in entry) or not isinstance(got, BaseException) and \
                    not fit(got, entry):
                return False
    return True


def tolerance(wrong: np.ndarray, expected: Any, atol: float) -> float:
    """``REL`` times the largest finite distance of ``wrong`` from the right answer, or the
    check's ``atol`` where that is a tenth of the distance or less (``atol`` without a right
    answer of its shape)."""
    try:
        right = np.asarray(expected, np.float64)
    except (TypeError, ValueError):
        return atol
    if expected is None or right.shape != wrong.shape:
        return atol
    with np.errstate(all="ignore"):
        distance = np.abs(wrong - right)
    finite = distance[np.isfinite(distance)]
    if not finite.size or finite.max() <= 0:
        return atol
    if not np.any(wrong):   # nothing computed comes back as exactly 0: a small answer is not "0"
        return ZERO * float(finite.max())
    # the check's own atol (a sampled frequency's noise) only where it is a tenth of that distance or less
    return max(REL * float(finite.max()), min(atol, float(finite.max()) / 10))


def answer(entry: dict) -> Any:
    """An entry's prediction as an answer you could have given (to compare two predictions)."""
    if "values" in entry:
        return np.asarray(entry["values"], np.float64).reshape(entry["shape"])
    if "equals" in entry:
        return entry["equals"] if isinstance(entry["equals"], str) else \
            list(entry["equals"]) if entry.get("type") == "list" else tuple(entry["equals"])
    return None


def single_out(got: Any, entries: list[dict], fit: Callable[[Any, dict], bool], where: Any) -> dict | None:
    """The one entry ``got`` gives evidence of here, or None: it fits; no entry of another
    name fits too, or lies within the tolerance of it; your earlier answers fit it too. A
    mistake your earlier answers already belie is no rival: a case before told it apart."""
    entries = [e for e in entries if consistent(where, e["name"])]
    fitting = [e for e in entries if "raises" not in e and fit(got, e)]
    if len({e["name"] for e in fitting}) != 1:
        return None
    found = fitting[0]
    mine = answer(found)
    if any(e["name"] != found["name"] and "raises" not in e and fit(mine, e) for e in entries):
        return None
    return found


def raisers(entries: list[dict], error: BaseException, same: Callable[..., bool], where: Any) -> list[dict]:
    """The entries that raise ``error`` here, one per name, each consistent with the earlier cases."""
    found: dict[str, dict] = {}
    for entry in entries:
        if "raises" in entry and same(type(error).__name__, str(error), *entry["raises"]) and \
                entry["name"] not in found and consistent(where, entry["name"]):
            found[entry["name"]] = entry
    return list(found.values())


def neutral(causes: list[dict]) -> str:
    """Several known mistakes raise this exception here: each, with the line to look at; none named."""
    listed = "\n".join(f"    - {e['message']}: " + (f"look at {e['look']}" if e.get("look") else f"fix: {e['fix']}")
                       for e in causes)
    return f"More than one known mistake raises this here, so none is named. Plausible causes:\n{listed}"
