"""The helpers of the notebooks' visible checks: a failure names the call, the case (shapes,
dtype, axis, keepdims...), what came back and what was expected, and the pattern that fits
(``minitorch.course.diagnose``: the diagnosis the hidden checks share).

    with checking("2.2"):        # a check cell: your exceptions come back with the line and case
        same(got, expected, "unbroadcast(g, (4, 1))", "g of shape (2, 4, 3)")
        check_backward(ops_binary.Sub, [a, b], upstream, reference=np.subtract)

``CheckFailed`` is an AssertionError; in a notebook it shows its message alone, first and
in full (IPython's ``_render_traceback_`` hook), and a wrong 2-D or larger array is also
drawn as heat maps below it.
"""

from __future__ import annotations

import types
from typing import Any, Callable, Sequence

import numpy as np

from ..function import Context
from ..gradcheck import numerical_grads
from . import diagnose, evidence, known_mistakes, repair
from .failures import CheckFailed, _task, called_from, checking, raised, returned_at
from .mismatch import hint_for, compare, fail, in_place, names_shapes, same_size

__all__ = ["CheckFailed", "called_from", "check_backward", "checking", "fail", "in_place", "names_shapes", "same",
           "same_dtype", "same_size", "seen"]


def same(got: Any, expected: Any, call: str, case: str = "", *, atol: float = 1e-6, rtol: float = 1e-5,
         dtype: Any = None, hint: str | dict[str, str] = "", swapped: Any = None, inputs: Sequence[np.ndarray] = (),
         moved_from: Any = None, known: tuple[str, dict] | None = None, full: tuple | None = None) -> None:
    """``got`` must equal ``expected``: the same type (a tuple, a float, an array), for an
    array the same shape, dtype (``dtype``, or ``expected``'s) and values (to atol, rtol).
    ``swapped`` and ``inputs`` help name a pattern (``diagnose.value_pattern``); with
    ``moved_from`` (a parameter before a step), the pattern is sought in the step taken;
    ``known``, the check's site and case (its inputs, by the names the library's site
    uses), names a known mistake when ``got`` is what it computes there. ``got`` may be the
    exception your code raised (named if a known mistake raises it; else shown with the call,
    the case, your line and ``hint``'s "raised" one), and
    ``expected`` an exception class (the call should raise it: then ``got`` is what it gave).
    ``hint`` is shown only for the kind of failure it addresses (``hint_for``); ``full``, the
    shape of what was to be summed (an upstream gradient's), tells an answer not summed at all."""
    __tracebackhide__ = True
    entries = known_mistakes.of_value(*known) if known else []
    # one learner's function per place: a case's "op" (Task 1.2's scalar ops) is a function of its own
    place = (known[0], known[1].get("op")) if known else None
    where = ("value", place) if known else None
    if isinstance(got, BaseException):  # your error, caught by the check: named if one known mistake alone raises it
        if isinstance(expected, type) and isinstance(got, expected):
            known_mistakes.seen_value(where, entries, got, atol, rtol, None)
            return  # it raised, as it should
        causes = known_mistakes.raising({"value": entries}, got, place) if known else []
        if len(causes) > 1:
            raise raised(got, call, case, evidence.neutral(causes)) from None
        if not causes:  # (of another type than the one the call should raise: that first)
            wanted = expected if isinstance(expected, type) and issubclass(expected, BaseException) else None
            raise raised(got, call, case, hint_for(hint, "raised"), wanted=wanted) from None
        raise raised(got, call, case, f"{causes[0]['message']}. Fix: {causes[0]['fix']}", causes[0]["name"]) from None
    try:
        compare(got, expected, call, case, atol=atol, rtol=rtol, dtype=dtype, hint=hint, swapped=swapped, inputs=inputs,
              moved_from=moved_from, full=full)
    except CheckFailed:
        right = None if isinstance(expected, type) else expected
        found = known_mistakes.fitting_value(entries, got, atol, rtol, right, where) if known else None
        if not found:
            raise
        shown = (got, np.asarray(expected)) if isinstance(got, np.ndarray) else (None, None)
        what = f"came back as {got!r}" if not isinstance(got, np.ndarray) else "came back with wrong values" \
            if got.shape == np.shape(expected) else f"came back with shape {got.shape}, not {np.shape(expected)}"
        if isinstance(got, float) and isinstance(expected, float):  # to the digits where they differ
            what = "came back as {}, expected {}".format(*diagnose.digits(got, expected))
        fail(call, case, f"{what}: {found['message']} (known mistake: {found['name']})", *shown, f"Fix: {found['fix']}")
    if known:
        known_mistakes.seen_value(where, entries, got, atol, rtol, None if isinstance(expected, type) else expected)


def same_dtype(got: Any, dtype: str, call: str, make: Callable[[], Any], hint: str = "", only: str = "") -> None:
    """``got``, a value's dtype, must be ``dtype``; if not, the message names the first line of
    your code that makes a value of another dtype (named ``only``, such as "self.weight", if
    given) while ``make`` runs (a layer made again)."""
    __tracebackhide__ = True
    if str(got) != dtype:
        line = repair.dtype_line(_task[-1], make, dtype, only) if _task else ""
        fail(call, "", f"came back as {str(got)!r}; expected {dtype!r}" + (f". {line}" if line else ""), hint=hint)


def _pattern(got: np.ndarray, want: np.ndarray, rtol: float, atol: float, inputs: Sequence[np.ndarray],
             full: tuple) -> str:
    """The diagnosis's own words for a wrong gradient, when a pattern fits (after a known mistake's)."""
    floats = [np.asarray(a) for a in inputs if np.asarray(a).dtype.kind == "f"]
    if got.shape == want.shape:
        found = diagnose.value_pattern(got, want, rtol=rtol, atol=atol, inputs=floats)
        return f".{' ' + found.text if found.text else ''} The largest difference: {found.where}"
    text = diagnose.shape_pattern(got.shape, want.shape, got, want, rtol=rtol, atol=atol, full=full).text
    return f". {text}" if text else ""


def _describe(inputs: Sequence[np.ndarray], params: dict) -> str:
    shapes = " and ".join(str(np.shape(a)) for a in inputs)
    dtypes = sorted({str(np.asarray(a).dtype) for a in inputs})
    extra = ", ".join(f"{k}={v!r}" for k, v in params.items())
    return f"inputs of shape{'s' if len(inputs) > 1 else ''} {shapes} ({', '.join(dtypes)})" + (f", {extra}" if extra else "")


def check_backward(op: Any, inputs: Sequence[np.ndarray], upstream: Any = None, expected: Sequence | None = None, *,
                   reference: Callable | None = None, params: dict | None = None, case: str = "",
                   needs: Sequence[bool] | None = None, atol: float = 1e-6, hint: str | dict[str, str] = "") -> list:
    """``op.forward(ctx, *inputs, **params)``, then ``op.backward(ctx, upstream)``: each
    gradient must equal ``expected`` (or, with ``reference``, central differences of that
    NumPy function), in the input's shape and dtype; the upstream gradient and the inputs
    must come back unchanged. Returns the gradients."""
    __tracebackhide__ = True
    params = dict(params or {})
    name = f"{op.__name__}.backward"
    what = _describe(inputs, params) + (f", {case}" if case else "")
    kept = [np.array(a, copy=True) for a in inputs]
    _note(op, inputs, upstream, expected, reference, params, needs, atol)
    ctx = Context(tuple(needs) if needs is not None else (True,) * len(inputs))
    try:
        out = op.forward(ctx, *inputs, **params)
    except (ArithmeticError, ValueError, IndexError, TypeError, AttributeError, KeyError) as error:
        raise raised(error, f"{op.__name__}.forward", what, hint_for(hint, "raised")) from None
    if upstream is None:
        upstream = np.random.default_rng(1).standard_normal(np.shape(out)).astype(np.asarray(out).dtype)
    given = np.array(upstream, copy=True)
    known = known_mistakes.of(op, inputs, upstream, params)
    # one place of evidence per code path: a mode given as a string (approximate="tanh") is a path of its own
    who = known_mistakes.name_of(op) + "".join(f" {k}={v}" for k, v in sorted(params.items()) if isinstance(v, str))
    try:
        grads = op.backward(ctx, upstream)
    except (ArithmeticError, ValueError, IndexError, TypeError, AttributeError, KeyError) as error:
        causes = known_mistakes.raising(known, error, op, who)
        if len(causes) > 1:  # an ambiguous exception stays neutral
            raise raised(error, name, what, evidence.neutral(causes)) from None
        if causes:
            raise raised(error, name, what, f"{causes[0]['message']}. Fix: {causes[0]['fix']}", causes[0]["name"]) from None
        raise raised(error, name, what, hint_for(hint, "raised")) from None
    if isinstance(grads, types.GeneratorType):
        fail(name, what, "returned a generator, not a tuple: (g for ...) in parentheses is a generator expression, "
             "which the engine takes for one gradient; return tuple(g for ...) or a list")
    grads = list(grads) if isinstance(grads, (tuple, list)) else [grads]
    if not np.array_equal(given, upstream):
        fail(name, what, "changed the upstream gradient it was given (an in-place operation such as grad *= ...)",
             hint="Compute a new array: the same gradient may flow to other parts of the graph.")
    for i, (before, after) in enumerate(zip(kept, inputs)):
        if not np.array_equal(before, after, equal_nan=True):
            fail(name, what, f"changed its input {i} in place")
    if len(grads) != len(inputs):
        last = grads[-1] if grads else None
        empty = len(grads) == len(inputs) + 1 and last is not None and np.size(last) == 0  # an extra empty piece
        fail(name, what, f"returned {len(grads)} gradient(s) for {len(inputs)} input(s)" + (
             f", the last of them empty (shape {np.shape(last)}): np.split makes an extra empty piece when the end of "
             "the axis is among its split points; split only where one input ends and the next begins" if empty else
             ": one per input, in order (None for one that needs none)"))
    if expected is None:
        exact = [np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in inputs]
        expected = numerical_grads(reference, exact, np.asarray(upstream, np.float64))
        _note(op, inputs, upstream, expected, reference, params, needs, atol)
    for i, (got, want) in enumerate(zip(grads, expected)):
        if want is None:
            continue
        dtype = np.asarray(inputs[i]).dtype
        loose = 1e-4 if dtype == np.float32 else 0.0  # float32 keeps about 7 digits
        where = (who, str(i))
        found = known_mistakes.fitting(known, i, got, max(atol, loose), max(1e-5, loose), want, where)
        partner = _swapped_with(grads, expected, i, max(atol, loose), max(1e-5, loose))
        if found and partner is not None and not known_mistakes.fitting(
                known, partner, grads[partner], max(atol, loose), max(1e-5, loose), expected[partner],
                (who, str(partner))):
            found = None  # swapped answers: named only if the other input's is a known mistake too (issue 45)
        if found:
            wrong = "came back with wrong values" if np.shape(got) == np.shape(want) else \
                f"came back with shape {np.shape(got)}, not {np.shape(want)}"
            fail(name, f"{what}: the gradient for input {i}",
                 f"{wrong}: {found['message']} (known mistake: {found['name']})"
                 + _pattern(got, np.asarray(want), max(1e-5, loose), max(atol, loose), inputs, np.shape(upstream)), got,
                 np.asarray(want),
                 f"Fix: {found['fix']}")
        if got is None and (needs is None or needs[i]):  # where it returns, and what belongs there
            line = returned_at(lambda: op.backward(ctx, np.array(upstream, copy=True)), op.backward)
            fail(name, f"{what}: the gradient for input {i}", f"came back as None; expected an array of shape "
                 f"{np.shape(want)}: ctx.needs_input_grad[{i}] is True, so backward returns its gradient as element {i} "
                 f"of its tuple (None only for an input that needs none)" + (f"; it returns at {line}" if line else ""),
                 hint=hint_for(hint, f"None {i}") or hint_for(hint, "type"))
        same(got, want, name, f"{what}: the gradient for input {i}", atol=max(atol, loose), rtol=max(1e-5, loose),
             dtype=dtype if dtype.kind == "f" else None, hint=hint,
             swapped=None if partner is None else np.asarray(expected[partner]),
             inputs=[np.asarray(a) for a in inputs if np.asarray(a).dtype.kind == "f"], full=np.shape(upstream))
        known_mistakes.seen_gradient(where, known, i, got, max(atol, loose), max(1e-5, loose), want)
    repair.forget()
    return grads


def _swapped_with(grads: list, expected: Sequence, i: int, atol: float, rtol: float) -> int | None:
    """The input whose gradient yours for input ``i`` is, when yours for that input is input ``i``'s: the two
    swapped. A swap is claimed only when both answers bear it out, never on one alone (issue 45)."""
    def close(a: Any, b: Any) -> bool:
        try:
            return a is not None and b is not None and np.shape(a) == np.shape(b) and \
                np.asarray(a).dtype.kind in "fiu" and bool(np.allclose(a, b, rtol=rtol, atol=atol))
        except (TypeError, ValueError):
            return False
    for j, other in enumerate(expected):
        if j != i and j < len(grads) and not close(expected[i], other) and close(grads[i], other) and \
                close(grads[j], expected[i]):
            return j
    return None


def _note(op: Any, inputs: Sequence[np.ndarray], upstream: Any, expected: Any, reference: Callable | None,
          params: dict, needs: Any, atol: float) -> None:
    """The case for a repair search (``repair.note``): this call again, and, with a NumPy
    ``reference``, two fresh cases (each input scaled by random factors near 1, signs kept)."""
    def again() -> None:
        check_backward(op, inputs, upstream, expected, reference=reference, params=params, needs=needs, atol=atol)

    def fresh() -> None:
        rng = np.random.default_rng(7)
        for _ in range(2):
            scaled = [np.asarray(a) * (1 + 0.3 * rng.uniform(-1, 1, np.shape(a))).astype(np.asarray(a).dtype)
                      if np.asarray(a).dtype.kind == "f" else a for a in inputs]
            check_backward(op, scaled, None, reference=reference, params=params, needs=needs, atol=atol)
    repair.note(op, again, fresh if reference is not None else None)


def seen(got: Any, expected: Any, known: tuple[str, dict], *, atol: float = 1e-6, rtol: float = 1e-5) -> None:
    """Keep ``got`` as evidence about the known mistakes of ``known`` (a site and a case, as
    ``same`` takes them) without judging it: a later ``same`` of the cell names a mistake only
    if this answer fits it too. A check that runs several steps keeps every step so, before
    judging the first: a mistake that moves one step as another does is told apart by the rest."""
    known_mistakes.seen_value(("value", (known[0], known[1].get("op"))), known_mistakes.of_value(*known), got, atol,
                              rtol, expected)
