"""Known mistakes, on the visible checks' own cases: which wrong answer each predicts.

``make release`` evaluates the grader's library of known mistakes (it lives beside the
hidden checks, never in this package) on the fixed cases of the notebooks' checks and
writes ``known_mistakes.json`` here: for each case (a fingerprint of the Function, its
inputs, the upstream gradient and the parameters) and each input, the wrong gradient a
mistake gives, or the exception it raises, with its words and its fix; for a check of a
value (``same(..., known=(site, case))``: a shape, a sum, an optimizer's step) the value
each known mistake computes from that case. Only values the checks already show; no code
that computes a task. A check names a mistake only when your answer equals its prediction.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
from functools import cache
from typing import Any, Sequence

import numpy as np

from . import diagnose, evidence

TABLE = pathlib.Path(__file__).with_name("known_mistakes.json")


def name_of(op: Any) -> str:
    """``ops_unary.Tanh`` for minitorch.ops_unary.Tanh: the name the grader's library uses."""
    return f"{str(getattr(op, '__module__', '')).removeprefix('minitorch.')}.{getattr(op, '__name__', op)}"


def key(op: Any, inputs: Sequence[Any], upstream: Any, params: dict) -> str:
    """The case's fingerprint: the Function, each array's dtype, shape and bytes, the parameters."""
    h = hashlib.sha256(f"{name_of(op)}|{sorted((k, repr(v)) for k, v in params.items())}".encode())
    for a in [*inputs, upstream]:
        a = np.asarray(a)
        h.update(f"|{a.dtype}{a.shape}|".encode() + np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:20]


def _fold(h: Any, value: Any) -> None:
    """Feed a case's value into the hash: arrays by dtype, shape and bytes; containers item by item."""
    if isinstance(value, dict):
        for k in sorted(value):
            h.update(f"|{k}=".encode())
            _fold(h, value[k])
    elif isinstance(value, (list, tuple)):
        h.update(f"|{type(value).__name__}{len(value)}[".encode())
        for item in value:
            _fold(h, item)
        h.update(b"]")
    elif isinstance(value, np.ndarray):
        h.update(f"|{value.dtype}{value.shape}|".encode() + np.ascontiguousarray(_near(value)).tobytes())
    else:
        h.update(f"|{value!r}".encode())


def _near(value: np.ndarray) -> np.ndarray:
    """A float array to float32's precision: a case made by the learner's own code (the gradients of their model)
    differs from the reference's in its last bits, and is still the case the table was made for."""
    if value.dtype.kind != "f":
        return value
    with np.errstate(over="ignore"):
        return value.astype(np.float32)


def value_key(site: str, case: dict) -> str:
    """The fingerprint of a value's check: its site and every input of its case."""
    h = hashlib.sha256(f"value|{site}".encode())
    _fold(h, case)
    return h.hexdigest()[:20]


@cache
def _table() -> dict:
    try:
        return json.loads(TABLE.read_text(encoding="utf-8"))["cases"]
    except (OSError, ValueError, KeyError):
        return {}


def of(op: Any, inputs: Sequence[Any], upstream: Any, params: dict) -> dict[str, list[dict]]:
    """The known mistakes of this case, by input (``"0"``, ``"1"``...)."""
    try:
        return _table().get(key(op, inputs, upstream, params), {})
    except (TypeError, ValueError):  # an input that is not an array: no known case
        return {}


def _fit(atol: float, rtol: float, expected: Any) -> Any:
    """Whether an answer fits an entry: its shape, and its values within ``rtol`` and a
    tolerance that follows the entry's distance from the right answer (``evidence.tolerance``)."""
    def fit(got: Any, entry: dict) -> bool:
        if "equals" in entry:
            return isinstance(got, (tuple, list, str)) and _plain(got) == entry["equals"] and \
                type(got).__name__ == entry.get("type", type(got).__name__)
        if isinstance(got, (int, float)) and not isinstance(got, bool) or isinstance(got, np.generic):
            got = np.asarray(got, np.float64)
        if "values" not in entry or not isinstance(got, np.ndarray) or got.dtype.kind not in "fiub" or \
                tuple(entry["shape"]) != got.shape:
            return False
        wrong = np.asarray(entry["values"], np.float64).reshape(got.shape)
        near = evidence.tolerance(wrong, expected, atol)
        return bool(np.allclose(got.astype(np.float64), wrong, rtol=rtol, atol=near, equal_nan=True))
    return fit


def fitting(known: dict[str, list[dict]], i: int, got: Any, atol: float, rtol: float, expected: Any = None,
            where: Any = None) -> dict | None:
    """The known mistake your gradient for input ``i`` gives evidence of (``evidence.single_out``), if one."""
    return evidence.single_out(got, known.get(str(i), []), _fit(atol, rtol, expected), where)


def raising(known: dict[str, list[dict]], error: BaseException, op: Any = None, who: str | None = None) -> list[dict]:
    """The known mistakes that raise this exception here, one per name, each consistent with
    the check's earlier cases (several: the check names none of them)."""
    found: dict[str, dict] = {}
    for i, entries in known.items():
        where = ("value", op) if i == "value" else (who or name_of(op), i)
        for entry in evidence.raisers(entries, error, diagnose.same_exception, where):
            found.setdefault(entry["name"], entry)
    return list(found.values())


def of_value(site: str, case: dict) -> list[dict]:
    """The known mistakes of a value's check, each with what it computes on this case."""
    try:
        return _table().get(value_key(site, case), {}).get("value", [])
    except (TypeError, ValueError):
        return []


def fitting_value(known: list[dict], got: Any, atol: float, rtol: float, expected: Any = None,
                  where: Any = None) -> dict | None:
    """The known mistake that computes ``got`` on this case, if the evidence singles one out."""
    return evidence.single_out(got, known, _fit(atol, rtol, expected), where)


def seen_value(where: Any, known: list[dict], got: Any, atol: float, rtol: float, expected: Any) -> None:
    evidence.seen(where, known, got, _fit(atol, rtol, expected))


def seen_gradient(where: Any, known: dict[str, list[dict]], i: int, got: Any, atol: float, rtol: float,
                  expected: Any) -> None:
    evidence.seen(where, known.get(str(i), []), got, _fit(atol, rtol, expected))


def _plain(value: Any) -> Any:
    """Tuples as lists, all the way down, as the table (JSON) holds them."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value.item() if isinstance(value, np.generic) else value
