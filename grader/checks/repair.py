"""The autograder's repair search for a failure that no known mistake explains: for a rule
(``located``), the learner's process tries small edits of the Function's own forward and
backward (``learner/probes_repair.py``, the notebooks' error model) on the failing case and
on two fresh random ones; for a value (``located_value``: Task 1.1's central difference, an
optimizer's steps), edits of the package function that computes it, on every kind of the
check's cases and fresh ones. It sends back what each edit gave; the comparison with the
expected values happens here, and those values never leave this process. When every edit that
makes all the cases right changes the same line, the message names that line and the kind
of change, never the edited code. Time: one search (or NaN trace) takes at most ``SEARCH``
seconds, a hand-in's learner process at most ``BUDGET`` seconds of them (later ones go without).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from grader.boundary.failures import Lost, Raised
from grader.checks.common import FILE, NAME, CheckFailure, drift_noted, scaled_atol
from grader.checks.diagnose import made_words
from grader.checks.numeric import numeric_vjp
from grader.results import Failure

SEARCH, BUDGET = 2.0, 5.0
WORDS = {"return": "a `return` missing (the function ended without returning its value)",
         "sign": "the sign of one term", "swap": "the order of two operands",  # edit_kinds.KINDS (a test holds them equal)
         "axis": "an axis, keepdims or a transpose",
         "keepdims": "whether a reduction keeps its reduced axis as size 1 (dropped, it no longer lines up)",
         "constant": "a constant (a number or a power)", "factor": "one factor or divisor too many",
         "group": "which operations group first (parentheses around a product or quotient)",
         "variable": "which variable is used", "term": "one term of a sum (one too many)",
         "multiply": "a factor missing (a variable or a named constant to multiply by)",
         "unwrap": "a function applied once too often", "wrap": "a function missing (such as exp or log)",
         "transpose": "a transpose (.T reverses every axis; of a batch of matrices only the last two swap)",
         "index": "an index missing (a value used whole where the loop's own part of it belongs)",
         "operator": "an operator (* for ** and the like: * and /, + and *)",
         "function": "which function is applied (such as abs for sign, exp for log, sum for mean)",
         "helper": "which function or variable is used (a helper's value, such as a density, for another value)",
         "halved": "a constant factor on one term (a 1/2 or a 2 missing or too many)"}
RAISED_AT = re.compile(r" at (minitorch/[\w/]+\.py), line (\d+), in \w+: ")  # common.failure_of's words for your line


def located(failure: CheckFailure, w: Any, function: str, reference: Callable[..., np.ndarray],
            arrays: Sequence[np.ndarray], upstream: np.ndarray, differentiable: Sequence[int] | None,
            params: dict, swaps: dict | None = None, views: Sequence[int] = (), rtol: float = 1e-5,
            atol: float = 1e-7) -> CheckFailure:
    """``failure`` (a rule's wrong gradient or its exception), with the line a repair search
    points at when one does; unchanged for a named known mistake, or once the budget is spent."""
    raised = str(failure) if failure.kind == Failure.RAISED else ""
    return _budgeted(failure, w, lambda seconds: _search(w, function, reference, arrays, upstream, differentiable,
                                                          params, swaps, views, rtol, atol, seconds, raised))


def _search(w: Any, function: str, reference: Callable[..., np.ndarray], arrays: Sequence[np.ndarray],
            upstream: np.ndarray, differentiable: Sequence[int] | None, params: dict, swaps: dict | None,
            views: Sequence[int], rtol: float, atol: float, seconds: float, raised: str = "") -> str:
    rng = np.random.default_rng(11)
    cases = [(list(arrays), np.asarray(upstream))]
    for _ in range(2):  # fresh cases: each input scaled by random factors near 1, its signs kept
        scaled = [a * (1 + 0.3 * rng.uniform(-1, 1, a.shape)) if a.dtype.kind == "f" else a for a in arrays]
        cases.append((scaled, rng.standard_normal(np.shape(reference(*scaled)))))
    inputs = range(len(arrays)) if differentiable is None else differentiable
    expected = [(np.asarray(reference(*a)), {i: numeric_vjp(reference, a, up, i) for i in inputs}) for a, up in cases]
    sent = [{"arrays": [np.ascontiguousarray(np.swapaxes(x, -1, -2)) if i in views else x for i, x in enumerate(a)],
             "upstream": up} for a, up in cases]
    at = RAISED_AT.search(raised)
    try:
        answer = w.call("rule_edits", doing=f"trying small edits of {function}", function=function, cases=sent,
                        params=params, swaps=swaps or {}, views=list(views), seconds=seconds,
                        task=str(getattr(w, "task", "") or ""), **({"raised_at": [at[1], int(at[2])]} if at else {}))
    except (Raised, Lost):
        return ""
    return _place(answer, lambda seen: _right(seen, expected, rtol, atol), "makes this case and fresh random ones right",
                  int(at[2]) if at else 0)


def located_value(failure: CheckFailure, w: Any, function: str, probe: str, calls: Sequence[dict],
                  expected: Sequence[Any], rtol: float = 1e-5, atol: float = 1e-7,
                  right: Callable[[Any, Any], bool] | None = None, fields: Sequence[str] = ()) -> CheckFailure:
    """``failure`` of a value's check (``probe`` on each of ``calls``, whose right answers are
    ``expected``, the failing case and fresh ones among them), with the line a repair search
    of the package's ``function`` points at, when one does. ``right(answer, expected)``
    judges one answer (default: a number or an array close to ``expected``); ``fields``, the
    keys of the probe's answer it reads, are all each edit sends back (every key, if none)."""
    fits = right or (lambda got, want: _close(got, np.asarray(want, np.float64), rtol, atol))

    def search(seconds: float) -> str:
        try:
            answer = w.call("call_edits", doing=f"trying small edits of {function}", function=function, inner=probe,
                            calls=list(calls), seconds=seconds, **({"fields": list(fields)} if fields else {}))
        except (Raised, Lost):
            return ""
        every = lambda seen: isinstance(seen, list) and len(seen) == len(expected) and all(  # noqa: E731
            fits(got, want) for got, want in zip(seen, expected))
        return _place(answer, every, "makes every case of this check right")
    return _budgeted(failure, w, search)


def drift_located(failure: CheckFailure, w: Any, function: str, arrays: Sequence[np.ndarray], upstream: Any,
                  params: dict, swaps: dict | None = None) -> CheckFailure:
    """``failure`` (a rule's dtype drift on a float32 case), with the first line of the
    learner's own code that makes a value of another dtype than float32, when one does
    (``learner/probes_repair.dtype_origin``: the case once more under a tracer)."""
    try:
        found = w.call("dtype_origin", doing=f"finding where {function}'s dtype changes", function=function,
                       arrays=list(arrays), upstream=upstream, params=params, dtype="float32", swaps=swaps or {},
                       task=str(getattr(w, "task", "") or ""))
    except (Raised, Lost):
        return failure
    return drift_noted(failure, found)


def origin_located(failure: CheckFailure, w: Any, function: str, arrays: Sequence[np.ndarray], upstream: Any,
                   params: dict, swaps: dict | None = None, views: Sequence[int] = ()) -> CheckFailure:
    """``failure`` (a rule's exception, raised by a call that refused a value its line passed on: the given
    unbroadcast, a NumPy function), with the line of the learner's own that made that value, when the error names
    its shape (``learner/probes_repair.value_origin``: the case once more under a tracer)."""
    if failure.kind is not Failure.RAISED or "known mistake" in str(failure):
        return failure
    try:
        found = w.call("value_origin", doing=f"finding where {function}'s refused value was made", function=function,
                       arrays=list(arrays), upstream=upstream, params=params, swaps=swaps or {}, views=list(views),
                       task=str(getattr(w, "task", "") or ""))
    except (Raised, Lost):
        return failure
    file, name = (found.get(k) for k in ("file", "function")) if isinstance(found, dict) else (None, None)
    if not (isinstance(file, str) and FILE.fullmatch(file) and isinstance(name, str) and NAME.fullmatch(name)):
        return failure
    read = [(r["name"], tuple(r["shape"]) if r["shape"] is not None else None, r["line"], file, name, r["code"])
            for r in found.get("read", []) if isinstance(r, dict) and isinstance(r.get("name"), str)
            and r["name"].isidentifier() and isinstance(r.get("line"), int) and isinstance(r.get("code"), str)
            and (r.get("shape") is None or isinstance(r["shape"], list) and all(isinstance(n, int) for n in r["shape"]))]
    words = made_words(str(failure), read)
    if not words:
        return failure
    text = str(failure).rstrip()
    return CheckFailure(f"{text}{' ' if text.endswith('.') else '. '}{words}", failure.mistake, failure.keep,
                        failure.kind, failure.not_finite)


def not_finite_located(failure: CheckFailure, w: Any, function: str, arrays: Sequence[np.ndarray], upstream: Any,
                       params: dict, swaps: dict | None = None, views: Sequence[int] = ()) -> CheckFailure:
    """``failure`` (an answer with a NaN or an inf where the right one is finite), with the first line of the learner's
    that makes one, and how (``nan_origin``: the case once more under a tracer, within the search's budget)."""
    return _budgeted(failure, w, lambda seconds: _not_finite_note(w, function, arrays, upstream, params, swaps, views,
                                                                   seconds)) if failure.not_finite else failure


def _not_finite_note(w: Any, function: str, arrays: Sequence[np.ndarray], upstream: Any, params: dict,
                     swaps: dict | None, views: Sequence[int], seconds: float) -> str:
    try:
        found = w.call("nan_origin", doing=f"finding where {function}'s NaN is made", function=function,
                       arrays=list(arrays), upstream=upstream, params=params, swaps=swaps or {}, views=list(views),
                       task=str(getattr(w, "task", "") or ""), seconds=seconds)
    except (Raised, Lost):
        return ""
    file, name, line, local, how, small = (found.get(k) if isinstance(found, dict) else None for k in (
        "file", "function", "line", "name", "how", "small"))
    if not (isinstance(file, str) and FILE.fullmatch(file) and isinstance(name, str) and NAME.fullmatch(name)
            and isinstance(line, int) and isinstance(local, str) and (not local or local.isidentifier())
            and how in ("", "divides", "zero by zero", "log", "power", "exp") and isinstance(small, list)
            and all(isinstance(n, str) and n.isidentifier() for n in small)):
        return ""
    return not_finite_words(line, file, name, local, how, small)


def not_finite_words(line: int, file: str, function: str, name: str, how: str, small: list[str]) -> str:
    """``nan_origin``'s finding in words, as the notebooks' ``made_at.words`` says it (a test holds them alike)."""
    value = f": {name} holds one there" if name else ": it returns one there"
    zero = " or ".join(f"{n} is 0" for n in small)
    cause = {"divides": f"; that line divides by zero ({zero} on this case)" if small else "; that line divides",
             "zero by zero": f"; that line divides 0 by 0 ({zero} on this case)" if small else "; that line divides 0 by 0",
             "log": f"; that line takes a log or a square root of 0 or less ({zero} or less on this case)" if small
             else "; that line takes a log or a square root", "power": "; that line raises to a power (0 to a "
             f"negative power?{f' {zero} on this case' if small else ''})", "exp": "; that line takes an exp (of a "
             "large number: it overflows)"}.get(how, "")
    return (f"The first NaN or inf of your code on this case is made at line {line} of {file} ({function}){value}"
            f"{cause}. Guard that case (np.where) or compute it another way.")


def _budgeted(failure: CheckFailure, w: Any, search: Callable[[float], str]) -> CheckFailure:
    spent = getattr(w, "repair_seconds", 0.0)
    if failure.kind not in (Failure.WRONG, Failure.RAISED) or "known mistake" in str(failure) \
            or spent > BUDGET - 0.2:
        return failure
    start = time.monotonic()
    try:
        note = search(min(SEARCH, BUDGET - spent))
    finally:
        w.repair_seconds = spent + time.monotonic() - start
    if not note:
        return failure
    text = str(failure).rstrip()
    return CheckFailure(f"{text}{' ' if text.endswith('.') else '. '}{note}", failure.mistake, failure.keep,
                        failure.kind, failure.not_finite)


def _place(answer: Any, right: Callable[[Any], bool], claim: str, raised_at: int = 0) -> str:
    """The one line of every edit whose answers are ``right``, in words; "" unless there is one.
    ``raised_at``: the line of the learner's that raised, below it, whose values it made are said."""
    if not isinstance(answer, dict) or answer.get("incomplete") or not isinstance(answer.get("edits"), list):
        return ""  # not searched to the end: no line can be named honestly
    accepted = [e for e in answer["edits"] if isinstance(e, dict) and right(e.get("seen"))]
    places = {(e.get("file"), e.get("function"), e.get("line")) for e in accepted}
    if len(places) != 1:
        return ""
    file, name, line = places.pop()
    kinds = [WORDS[k] for k in dict.fromkeys(e.get("kind") for e in accepted) if k in WORDS]
    if not (isinstance(file, str) and FILE.fullmatch(file) and isinstance(name, str) and NAME.fullmatch(name)
            and isinstance(line, int) and kinds):
        return ""
    lists = [e["made"] for e in accepted if isinstance(e.get("made"), list)]
    made = sorted({n for names in lists for n in names if isinstance(n, str) and n.isidentifier()})
    below = f" Line {raised_at}, your line below it, raised: it uses {' and '.join(made)}, made at line {line}." \
        if made and raised_at > line else ""
    return f"A small edit of line {line} of {file} ({name}) {claim}: look there at {' or '.join(kinds)}.{below}"


def _right(seen: Any, expected: list, rtol: float, atol: float) -> bool:
    """Whether an edit's answers (output and gradients per case) are all right."""
    if not isinstance(seen, list) or len(seen) != len(expected):
        return False
    for got, (out, grads) in zip(seen, expected):
        if not isinstance(got, dict) or not isinstance(got.get("grads"), list) or not _close(got.get("out"), out, 1e-7, 1e-10):
            return False
        if any(i >= len(got["grads"]) or not _close(got["grads"][i], want, rtol, atol) for i, want in grads.items()):
            return False
    return True


def _close(got: Any, want: np.ndarray, rtol: float, atol: float) -> bool:
    got = np.asarray(got) if isinstance(got, (np.generic, float, int)) else got
    return isinstance(got, np.ndarray) and got.shape == want.shape and got.dtype.kind in "fiub" and \
        bool(np.allclose(got.astype(np.float64), want, rtol=rtol, atol=scaled_atol(want, atol), equal_nan=True))
