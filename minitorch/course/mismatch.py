"""A visible check's comparison of what came back with what was expected, in words: the
type, the shape, the dtype or the values that differ, the pattern the difference fits
(``diagnose``), and the hint a check gives for that kind of failure (``visible.same`` adds the
known mistakes; ``fail`` raises the message)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import diagnose, repair
from .failures import CheckFailed, raised, stuck


def _show(value: Any, places: int = 4) -> str:
    if isinstance(value, np.ndarray):
        text = np.array2string(value, precision=places, threshold=24, edgeitems=3, max_line_width=88, separator=", ")
        return text.replace("\n", "\n" + " " * 13)
    return repr(value)


def _kind(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} ({value.dtype})"
    if isinstance(value, np.generic):
        return f"a NumPy scalar ({type(value).__name__}), not an array"
    return f"a {type(value).__name__}"


def fail(call: str, case: str, problem: str, got: Any = None, expected: Any = None, hint: str = "") -> None:
    """Raise CheckFailed: "call with case: problem. hint" and both values."""
    __tracebackhide__ = True
    text = f"{call}{f' with {case}' if case else ''}: {problem}"
    for line in (hint, stuck()):
        text += f"\n  {line}" if line else ""
    if got is not None or expected is not None:
        places = diagnose.precision(got, expected) if isinstance(got, np.ndarray) and isinstance(expected, np.ndarray) \
            and got.dtype.kind in "fiub" and expected.dtype.kind in "fiub" else 4  # to the digits where they differ
        text += f"\n  got:       {_show(got, places)}\n  expected:  {_show(expected, places)}"
    raise CheckFailed(text)


def in_place(held: Any, now: Any, call: str, case: str) -> None:
    """Fail unless ``held``, the array a parameter held before a step, holds its values
    ``now``: an update in place, as every other reference to that array sees it."""
    __tracebackhide__ = True
    if isinstance(held, np.ndarray) and isinstance(now, np.ndarray) and held.shape == now.shape \
            and not np.array_equal(held, now):
        fail(call, case, "has the right values, but the array p.data held before the step still has the old ones: the "
             "step gave p.data a new array. Change p.data in place (p.data -= ..., or p.data[...] = ...): any other "
             "reference to that array (a view of it, or another Parameter sharing it) keeps the old values")


def _values(got: np.ndarray, expected: np.ndarray, rtol: float, atol: float, **known: Any) -> tuple[str, str]:
    found = diagnose.value_pattern(got, expected, rtol=rtol, atol=atol, **known)
    return found.where, found.text


NONE = "came back as None: the function ended without returning its value (a `return` missing?)"


def _scalar_wrong(got: Any, expected: float, rtol: float, atol: float) -> str:
    if got is None:
        return f"{NONE}; expected the Python float {expected!r}"
    if not isinstance(got, float):
        return f"came back as {_kind(got)}; expected the Python float {expected!r}"
    found = diagnose.value_pattern(np.array(got), np.array(expected), rtol=rtol, atol=atol)
    return f"came back as {got!r}; expected {expected!r}" + (f". {found.text}" if found.text else "")


def hint_for(hint: str | dict[str, str], kind: str) -> str:
    """The check's hint for this kind of failure, if it has one that addresses it. A plain
    string is for a wrong answer (its type, shape or values); a dict names the kinds its
    hints address: "raised" (your code raised), "type", "shape", "values", "dtype"."""
    if isinstance(hint, dict):
        return hint.get(kind, "")
    return hint if kind in ("type", "shape", "values") else ""


def compare(got: Any, expected: Any, call: str, case: str, *, atol: float, rtol: float, dtype: Any,
          hint: str | dict[str, str], swapped: Any, inputs: Sequence[np.ndarray], moved_from: Any, full: tuple | None) -> None:
    __tracebackhide__ = True
    if isinstance(expected, type) and issubclass(expected, BaseException):  # the call should have raised
        fail(call, case, f"came back as {got!r}; expected a {expected.__name__}", hint=hint_for(hint, "values"))
    if isinstance(expected, tuple) or isinstance(expected, (bool, int, str)) and not isinstance(expected, float):
        if got is None:
            fail(call, case, f"{NONE}; expected {expected!r}", hint=hint_for(hint, "type"))
        if type(got) is not type(expected) or got != expected:
            more = f" ({type(got).__name__}, not {type(expected).__name__})" if type(got) is not type(expected) else ""
            fail(call, case, f"came back as {got!r}{more}; expected {expected!r}", hint=hint_for(hint, "type" if more else "values"))
        return
    if isinstance(expected, float):
        if not isinstance(got, float) or not np.isclose(got, expected, rtol=rtol, atol=atol):
            fail(call, case, _scalar_wrong(got, expected, rtol, atol), hint=hint_for(hint, "values" if isinstance(got, float) else "type"))
        return
    expected = np.asarray(expected)
    want = np.dtype(dtype) if dtype is not None else expected.dtype
    if got is None:
        fail(call, case, f"{NONE}; expected an array of shape {expected.shape}", hint=hint_for(hint, "type"))
    if isinstance(got, np.generic) and not expected.shape:
        got = np.asarray(got)  # a NumPy scalar is a 0-d array to NumPy
    if not isinstance(got, np.ndarray):
        if isinstance(got, (np.number, int, float)) and expected.shape:   # one number where several were due
            fail(call, case, f"came back as one number ({_kind(got)}); expected an array of shape {expected.shape}: "
                 "a sum, mean or argmax with no axis reduces every axis to one number (give it the axis)", got,
                 expected, hint_for(hint, "shape"))
        fail(call, case, f"came back as {_kind(got)}; expected an array of shape {expected.shape} ({want}): "
             "np.asarray(...) makes one (a Python number forgets the dtype)", got, expected, hint_for(hint, "type"))
    if got.shape != expected.shape:
        extra = diagnose.shape_pattern(got.shape, expected.shape, got if got.dtype.kind in "fiub" else None, expected,
                                       rtol=rtol, atol=atol, full=full).text
        fail(call, case, f"came back with shape {got.shape}; expected shape {expected.shape}"
             + (f". {extra}" if extra else ""), got, expected, hint_for(hint, "shape"))
    if got.dtype.kind not in "fiub":
        fail(call, case, f"came back with dtype {got.dtype}; expected numbers ({want})", got, expected, hint_for(hint, "type"))
    right = np.allclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    if not right:
        known = {"swapped": None if swapped is None else np.asarray(swapped), "inputs": inputs}
        where, pattern = _values(got, expected, rtol, atol, **known)
        if moved_from is not None:
            start = np.asarray(moved_from, np.float64)
            step = diagnose.value_pattern(got - start, expected - start, rtol=rtol, atol=atol).text
            pattern = f"The step it took, compared with the right step: {step}" if step else pattern
        if expected.ndim >= 2 and not repair.searching():
            from .heatmaps import show_after_cell
            show_after_cell(got, expected, f"{call}{f' with {case}' if case else ''}")
        fail(call, case, f"came back with wrong values. {pattern + ' ' if pattern else ''}The largest difference: "
             f"{where}", got, expected, hint_for(hint, "values"))
    if got.dtype != want and want.kind == "f":
        fail(call, case, f"came back as {got.dtype}; expected {want} (the input's dtype): a float64 constant or array "
             "crept in (dtype drift)", hint=hint_for(hint, "dtype"))


SHAPES_FIX = ("Fix: put every shape in the message (an f-string prints a tuple as Python does, (2, 3)), so that whoever "
              "reads it sees which shapes clashed")


def names_shapes(error: Any, shapes: Sequence, call: str) -> None:
    """``error``, the ValueError raised for ``shapes`` that do not broadcast, must name
    every one of them (printed as a tuple or a list, with or without spaces)."""
    __tracebackhide__ = True
    said = str(error).replace(" ", "")
    forms = [{str(tuple(s)).replace(" ", ""), str(list(s)).replace(" ", ""), "(" + ",".join(map(str, s)) + ")"}
             for s in shapes]
    missing = [tuple(s) for s, shown in zip(shapes, forms) if not any(form in said for form in shown)]
    if isinstance(error, ValueError) and missing:
        listed = " and ".join(filter(None, [", ".join(str(s) for s in missing[:-1]), str(missing[-1])]))
        _, _, rest = str(raised(error, call, "", f"The task asks for a ValueError that names the shapes. {SHAPES_FIX}"))\
            .partition("\n")
        raise CheckFailed(f"{call} raised ValueError, as it should, but its message does not name the "
                          f"shape{'s' if len(missing) > 1 else ''} {listed}: \"{error}\"\n{rest}")


def same_size(got: Any, expected: np.ndarray, call: str, case: str, overflowed: np.ndarray | None = None,
              named: str = "", fix: str = "") -> None:
    """``got`` must equal ``expected`` to a thousandth of each value's own size (no absolute
    tolerance: a gradient near 1e-20 is judged as one); when ``got`` is ``overflowed``, what
    an intermediate that overflowed gives, and that differs from ``expected``, ``named`` says so."""
    __tracebackhide__ = True
    if isinstance(got, np.ndarray) and got.shape == expected.shape and np.allclose(got, expected, rtol=1e-3, atol=0.0):
        return
    fits = overflowed is not None and isinstance(got, np.ndarray) and got.shape == overflowed.shape and \
        np.array_equal(got, overflowed) and not np.allclose(overflowed, expected, rtol=1e-3, atol=0.0)
    fail(call, case, f"came back with wrong values{': ' + named if fits else ''} (judged to a thousandth of each "
         "value's size)", got, expected, fix if fits else "")
