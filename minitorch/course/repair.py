"""The repair search of a failed visible check: when no known mistake was named, small
edits of the learner's own function (``mutants.py``'s error model) are tried, and the
check's cell runs again with each; an edit is accepted only when every case of the cell
passes with it (and, for a rule checked against a NumPy reference, fresh random cases
too). When every accepted edit is on one line, the message names that line and the kind
of change, never the edited code.

It needs nothing but the check itself: its own cases and expected values. ``failures.
checking`` calls ``found_line`` with the failure; ``visible.check_backward`` notes the case
it runs (``note``) so that each edit is tried on the failing case first, which is cheap.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import linecache
import pathlib
import re
import sys
import time
import types
import warnings
from typing import Any, Callable

from . import diagnose, made_at, mutants, task_code

SECONDS = 1.0      # at most this long per failing check
_state: dict[str, Any] = {"searching": False, "case": None}


def searching() -> bool:
    """True while a check runs again under an edit: no second search, no pictures, no hints."""
    return bool(_state["searching"])


def note(owner: Any, replay: Callable[[], Any], fresh: Callable[[], Any] | None = None) -> None:
    """The case a check is about to run: ``owner`` (a Function, whose methods are searched
    first), ``replay`` runs it again, ``fresh`` runs it on new random inputs (or None)."""
    if not _state["searching"]:
        _state["case"] = (owner, replay, fresh)


def forget() -> None:
    _state["case"] = None


def _suspects(task: str, error: BaseException, package: pathlib.Path) -> list[tuple[str, Callable]]:
    """The functions to edit: the one whose line raised, else the checked Function's, else the task's."""
    functions = task_code.functions(task, package)
    codes = {f.__code__: (w, f) for w, f in functions}
    frames = [frame.f_code for frame, _ in __import__("traceback").walk_tb(error.__traceback__)]
    raised = [codes[c] for c in frames if c in codes]
    if raised:
        return raised[-1:]
    case = _state["case"]
    owner = getattr(case[0], "__name__", None) if case else None
    mine = [(w, f) for w, f in functions if owner and f.__qualname__.startswith(f"{owner}.")]
    return mine or functions


def _returned_last(functions: list[tuple[str, Callable]], run: Callable[[], Any]) -> list[tuple[str, Callable]]:
    """A task's functions whose code (or a function made in it, such as a backward closure)
    ran when ``run`` ran the check once more, the one that returned last first: a check
    stops at its first wrong answer, so that one is the likeliest to blame (the last to
    return, not to be called: GPT.forward returns after the blocks it calls). All of them
    when none ran."""
    owners: dict[types.CodeType, tuple[str, Callable]] = {}
    for where, function in functions:
        codes = [function.__code__]
        while codes:
            code = codes.pop()
            owners[code] = (where, function)
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    ran: list[tuple[str, Callable]] = []

    def seen(frame: types.FrameType, event: str, _: Any) -> None:
        if event == "return" and frame.f_code in owners:
            ran.append(owners[frame.f_code])
    _state["searching"], kept = True, sys.getprofile()
    sys.setprofile(seen)
    try:
        _passes(run)
    finally:
        sys.setprofile(kept)
        _state["searching"] = False
    return list(dict.fromkeys(reversed(ran))) or functions


def _passes(run: Callable[[], Any]) -> bool:
    return task_code.failure(run) is None


def drift_line(task: str, error: BaseException, package: pathlib.Path, cell: Callable[[], Any] | None = None) -> str:
    """Where a dtype drift (a float32 case's answer in float64) begins, in words: the failing case (else its ``cell``)
    under a tracer (``mutants.first_other_dtype``), the first line of yours making another dtype (an int64 count)."""
    want = re.search(r"expected (float\d+) \(the input's dtype\)", str(error))
    case = _state["case"]
    if not want or case is None and cell is None or _state["searching"]:
        return ""
    return _made_words(_suspects(task, error, package), case[1] if case else cell, want.group(1),
                       f"NumPy makes {want.group(1)} mixed with int64 or float64 into float64")


def dtype_line(task: str, run: Callable[[], Any], dtype: str, only: str = "") -> str:
    """Where a value of another dtype than ``dtype`` (of the name ``only``, if given, such as
    "self.weight") is first made in the task's functions while ``run`` runs (a layer asked
    for float32 whose weight is float64), in words; "" when no line is found."""
    if _state["searching"]:
        return ""
    return _made_words(task_code.functions(task, pathlib.Path(__file__).resolve().parents[1]), run, dtype,
                       "NumPy's random draws are float64: make the value in the dtype asked for", only)


def _made_words(suspects: list[tuple[str, Callable]], run: Callable[[], Any], dtype: str, why: str,
                only: str = "") -> str:
    _state["searching"] = True
    try:
        found = mutants.first_other_dtype(lambda: _passes(run), [f for _, f in suspects], dtype, only)
    finally:
        _state["searching"] = False
    if found is None:
        return ""
    function, line, name, made = found
    where = next(w for w, f in suspects if f is function)
    file, _, qualname = where.partition(" ")
    what = f"{name} is {made}" if name else f"it returns {made}"
    if only:
        return f"{name} is made in {made} at line {line} of {file} {qualname} ({why})."
    return (f"The first value of another dtype than {dtype} in your code is made at line {line} of {file} "
            f"{qualname}: {what} there ({why}).")


def origin_line(task: str, error: BaseException, package: pathlib.Path) -> str:
    """Where the value was made that a line of yours passed to a call that refused it (the given unbroadcast, a
    NumPy function): the failing case once more under a tracer (``mutants.where_made``), the line of your own that
    last gave it its value, when its shape is one the error names. "" when none is."""
    case = _state["case"]
    if case is None or _state["searching"] or " raised " not in str(error) or "known mistake" in str(error):
        return ""
    suspects = _suspects(task, error, package)
    _state["searching"] = True
    try:
        found = mutants.where_made(lambda: _passes(case[1]), [f for _, f in suspects])
    finally:
        _state["searching"] = False
    if found is None:
        return ""
    function, _, read = found
    file, _, qualname = next(w for w, f in suspects if f is function).partition(" ")
    return diagnose.made_words(str(error), [(name, shape, line, file, qualname.strip("()"),
                                            linecache.getline(function.__code__.co_filename, line).strip())
                                           for name, line, shape in read])


def not_finite_line(task: str, error: BaseException, package: pathlib.Path) -> str:
    """Where the first NaN or inf of yours is made, for an answer with one where the right one is finite: the case
    once more under a tracer (``made_at.first_not_finite``), in words; "" when no line of yours makes one."""
    case = _state["case"]
    if case is None or _state["searching"] or "NaN or inf where the answer is finite" not in str(error) or \
            "known mistake" in str(error):
        return ""
    suspects, _state["searching"] = _suspects(task, error, package), True
    try:
        found = made_at.first_not_finite(lambda: _passes(case[1]), [f for _, f in suspects], SECONDS / 2)
    finally:
        _state["searching"] = False
    file, _, qualname = next((w for w, f in suspects if found and f is found[0]), "").partition(" ")
    return made_at.words(found[1], file, qualname.strip("()"), *found[2:]) if found else ""


def found_line(task: str, error: BaseException, cell: types.FrameType | None, package: pathlib.Path,
               began: float) -> str:
    """The line a repair search points at, in words ("" when none, or more than one line, fits).
    ``cell`` is the frame of the check's cell (module code, run again under each edit) and
    ``began`` when it started: a cell that took long to fail is not run again."""
    start, case = time.perf_counter(), _state["case"]
    if "dtype drift" in str(error):   # no case noted (a plain function's check): its cell again, when quick
        quick = not (case or cell is None or cell.f_code.co_flags & inspect.CO_NEWLOCALS or start - began > SECONDS / 2)
        drift = drift_line(task, error, package, (lambda: exec(cell.f_code, dict(cell.f_globals))) if quick else None)  # noqa: S102
        if drift:
            return drift
    made = origin_line(task, error, package)
    if made:
        return made
    if SECONDS <= 0 or _state["searching"] or cell is None or cell.f_code.co_flags & inspect.CO_NEWLOCALS or \
            "known mistake" in str(error) or start - began > (SECONDS / 2 if case else SECONDS / 10):
        return ""
    code, names = cell.f_code, cell.f_globals
    whole = lambda: exec(code, dict(names))  # noqa: E731, S102 - the check's own cell, run again
    suspects = _suspects(task, error, package)
    ordered = len(suspects) > 1 and not case  # searched one function at a time, the likeliest first
    if ordered:
        suspects = _returned_last(suspects, whole)
    plans: list[tuple[str, Callable, mutants.Edit]] = []
    for where, function in suspects:
        found = mutants.edits(function)
        if found is None or len(plans) + len(found) > mutants.LIMIT:
            if ordered and plans:
                break  # the functions that returned earlier are left out
            return ""  # too long to search in time
        plans += [(where, function, edit) for edit in found]
    if not plans:
        return ""
    accepted: list[tuple[str, mutants.Edit]] = []
    owner, further = getattr(case[0], "__name__", "") if case else "", False
    _state["searching"] = True
    try:
        for where, function, edit in plans:
            if ordered and accepted and where != accepted[0][0]:
                break  # a function that returned later holds the repair: the earlier ones are not searched
            if time.perf_counter() - start > SECONDS:
                return ""  # not searched to the end: no line can be named honestly
            with mutants.patched(function, edit.code):
                if case and not _passes(case[1]) or case and case[2] and not _passes(case[2]):
                    continue  # the failing case first, then fresh ones, then the whole cell: all of it, or all of it
                later = task_code.failure(whole)  # up to another Function's failure (a second mistake: Sin's and Cos's)
                if later is not None and not (case and case[2] and task_code.elsewhere(later, owner, function)):
                    continue
            accepted.append((where, edit))
            further = further or later is not None
            if len({(w, e.line) for w, e in accepted}) > 1:
                return ""  # edits on two lines make the check pass: no one line to name
    finally:
        _state["searching"] = False
    if not accepted:
        return ""
    where, edit = accepted[0]
    kinds = " or ".join(dict.fromkeys(mutants.KINDS[e.kind] for _, e in accepted))
    file, _, function = where.partition(" ")
    passes = "this case and fresh random ones right (a later case of another op still fails)" if further else \
        "every case of this check pass"
    return (f"A small edit of line {edit.line} of {file} {function} makes {passes}: look there at {kinds}."
            + _made_above(error, next(f for w, f in suspects if w == where), edit.line))


def _made_above(error: BaseException, function: Callable, line: int) -> str:
    """Where your line raised below the edited ``line`` of the same ``function``, using a
    value made there: the words that say so ("" otherwise), since "your line" is the one
    that raised, not the one to change."""
    code, frames, seen = function.__code__, [], error
    while seen is not None and not frames:  # your exception, or the one a check's failure was made from
        frames = [n for f, n in __import__("traceback").walk_tb(seen.__traceback__) if f.f_code is code]
        seen = seen.__context__
    if not frames or frames[-1] <= line:
        return ""
    made = mutants.names_at(code, line, stored=True) & mutants.names_at(code, frames[-1], stored=False)
    return (f" Line {frames[-1]}, your line below it, raised: it uses {' and '.join(sorted(made))}, made at line {line}."
            if made else "")
