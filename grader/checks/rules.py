"""One learner's rule (``Function.forward`` then ``backward``) run in the learner's
process, through ``probes.rule``, and judged here against NumPy and central differences:
its output, every gradient's shape, dtype and numbers, the upstream gradient left as it
was, float32 kept float32, and values far from 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from grader.boundary.runner import Raised
from grader.boundary.wire import oversized
from grader.checks.common import CheckFailure, describe_params, explain, learner_raised, scaled_atol
from grader.checks.mistakes import predict
from grader.checks.naming import judge_value, known_for, name_known, named_raise, seen_gradient, swapped_with
from grader.checks.numeric import numeric_vjp, numeric_vjp_relative
from grader.checks.repair import drift_located, located, not_finite_located, origin_located


def run_rule(w, function: str, arrays: Sequence[np.ndarray], upstream: npt.ArrayLike, label: str = "",
             swaps: dict | None = None, views: Sequence[int] = (), changed_upstream: list | None = None,
             needs: Sequence[bool] = (), **params: Any) -> tuple[Any, list]:
    """Forward and backward of one Function in the learner's process; fails if the rule
    changed its inputs or the upstream gradient, or returned the wrong number of gradients.
    With a ``changed_upstream`` list, a changed upstream gradient is appended to it instead
    of failing at once, so that the caller can judge the values first. ``needs``, when
    given, is ctx.needs_input_grad (every input needs a gradient otherwise)."""
    name = function.rpartition(".")[2] + label
    upstream = np.asarray(upstream)
    shapes = " and ".join(str(np.shape(np.swapaxes(a, -1, -2) if i in views else a)) + (" (a transposed view)" if i in views else "")
                          for i, a in enumerate(arrays))
    extra = describe_params(params)
    doing = f"{name} on input shape(s) {shapes}" + (f" with {extra}" if extra else "")
    try:
        seen = w.call("rule", doing=f"running {doing}", function=function, arrays=list(arrays), upstream=upstream,
                      params=params, swaps=swaps or {}, views=list(views), **({"needs": list(needs)} if needs else {}))
    except Raised as error:
        raise learner_raised(error, doing) from None
    if not np.array_equal(seen["upstream"], upstream, equal_nan=True):
        if changed_upstream is not None:
            changed_upstream.append(name)
        else:
            raise in_place_upstream(name)
    for i, (after, before) in enumerate(zip(seen["inputs"], arrays)):
        if not np.array_equal(after, before, equal_nan=True):
            raise CheckFailure(f"{name} changed its input {i} in place.", "in-place input")
    if len(seen["grads"]) == 1 and len(arrays) > 1 and seen["grads"][0] == {"unsupported": "generator"}:
        raise CheckFailure(f"{name}.backward returned a generator, not a tuple: (g for ...) in parentheses is a "
                           "generator expression, which the engine takes for one gradient; return tuple(g for ...) "
                           "or a list", "generator, not a tuple")
    if len(seen["grads"]) != len(arrays):
        count = len(seen["grads"])
        if len(arrays) == 1:
            hint = "a one-input rule returns a tuple of one array, or the array alone"
        elif count == len(arrays) + 1 and np.size(seen["grads"][-1]) == 0 and seen["grads"][-1] is not None:
            hint = (f"one too many, the last of them empty (shape {np.shape(seen['grads'][-1])}): np.split makes an extra "
                    "empty piece when the end of the axis is among its split points; split only where one input ends "
                    "and the next begins")
        else:
            hint = "one gradient per input, in the order of forward's inputs (None for one that needs none)"
        raise CheckFailure(f"{name}.backward returned {count} gradient(s) for {len(arrays)} input(s) ({hint}).",
                           "wrong count")
    return seen["out"], seen["grads"]


def in_place_upstream(name: str, keep: float = 0.0) -> CheckFailure:
    return CheckFailure(f"{name}.backward changed the upstream gradient it was given (an in-place operation such as "
                        "grad *= ... or grad[...] = ...): the same array may also flow to other inputs of the graph "
                        "(a residual connection sends it two ways), so compute a new array instead.",
                        "in-place upstream", keep=keep)


def check_rule(w, function: str, reference: Callable[..., np.ndarray], arrays: Sequence[np.ndarray],
               rng: np.random.Generator, differentiable: Sequence[int] | None = None, label: str = "",
               rtol: float = 1e-5, atol: float = 1e-7, kind: str = "", swaps: dict | None = None,
               views: Sequence[int] = (), mistakes: Sequence[tuple[int, str, str, Callable]] = (),
               upstream_order: str = "C", missing: dict[int, str] | None = None, value: tuple[str, dict] | None = None,
               **params: Any) -> None:
    """The forward against ``reference`` and each gradient against central differences of
    it, in float64, for a random upstream gradient. ``mistakes`` are known wrong rules,
    (input, what the mistake is, its name for the class report, ``f(arrays, upstream)``
    giving the wrong gradient): a wrong gradient that equals one is explained in its words.
    ``upstream_order="F"`` sends the upstream gradient laid out in memory column by column
    (as a transposed array is): a rule must read it by index, never by memory order.
    ``missing``: for an input, what its gradient is, said when it comes back None. ``value``: the
    forward's site in the library of value mistakes and its case, to name one a wrong output fits."""
    arrays = [np.asarray(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in arrays]
    expected_out = np.asarray(reference(*arrays))
    upstream = np.asarray(rng.standard_normal(expected_out.shape), order=upstream_order)  # type: ignore[call-overload]
    sent = [np.ascontiguousarray(np.swapaxes(a, -1, -2)) if i in views else a for i, a in enumerate(arrays)]
    changed: list = []
    known = known_for(function, arrays, upstream, params)
    try:
        out, grads = run_rule(w, function, sent, upstream, label, swaps, views, changed, **params)
    except CheckFailure as failure:
        failure = origin_located(named_raise(failure, known), w, function, sent, upstream, params, swaps, views)
        raise located(failure, w, function, reference, arrays, upstream, differentiable, params, swaps, views) from None
    name = function.rpartition(".")[2] + label
    shapes = " and ".join(str(a.shape) + (" (a transposed view)" if i in views else "") for i, a in enumerate(arrays))
    if value is None:
        explain(f"{name}.forward on input shape(s) {shapes}", out, expected_out, rtol=1e-7, atol=1e-10)
    else:  # the case gives the evidence for a value mistake of the forward's, as a value check's would
        judge_value(f"{name}.forward on input shape(s) {shapes}", *value, out, expected_out, rtol=1e-7, atol=1e-10)
    for i in (range(len(arrays)) if differentiable is None else differentiable):
        expected = numeric_vjp(reference, arrays, upstream, i)
        what = f"{name}.backward: the gradient for input {i} (shape {arrays[i].shape}, inputs {shapes})"
        if grads[i] is None:
            note = (missing or {}).get(i, "")
            raise located(CheckFailure(f"{what}: got None, expected an array of shape {expected.shape}: the input "
                                       f"needs a gradient (ctx.needs_input_grad[{i}] is True), so backward returns it "
                                       f"as element {i} of its tuple (None only for an input that needs none)"
                                       + (f". {note}" if note else ""), "returned None"),
                          w, function, reference, arrays, upstream, differentiable, params, swaps, views, rtol, atol)
        try:
            explain(what, grads[i], expected, rtol=rtol, atol=atol, kind=kind, full=upstream.shape)
        except CheckFailure as failure:
            tolerance = scaled_atol(expected, atol)
            for _, words, mistake, wrong in (m for m in mistakes if m[0] == i):
                got = grads[i]
                if isinstance(got, np.ndarray) and got.shape == expected.shape and \
                        np.allclose(got, wrong(arrays, upstream), rtol=rtol, atol=tolerance):
                    raise CheckFailure(f"{what} is wrong: {words}.", mistake) from None
            float_input = lambda j: arrays[j].dtype.kind == "f"  # noqa: E731
            partner = swapped_with(grads, i, expected, lambda j: numeric_vjp(reference, arrays, upstream, j)
                                   if float_input(j) and arrays[j].shape == arrays[i].shape else None, rtol, atol)
            name_known(known, i, what, grads[i], expected, rtol, tolerance, partner)
            failure = not_finite_located(failure, w, function, sent, upstream, params, swaps, views)
            raise located(failure, w, function, reference, arrays, upstream, differentiable, params, swaps, views,
                          rtol, atol) from None
        seen_gradient(function, i, grads[i], expected, rtol, scaled_atol(expected, atol),
                       lambda m: predict(m, arrays, upstream, params))
    if changed:  # the right numbers, but the caller's array was changed: half the part's points
        raise in_place_upstream(changed[0], keep=0.5)


def check_float32(w, function: str, arrays: Sequence[np.ndarray], reference: Callable[..., np.ndarray],
                  label: str = "", swaps: dict | None = None, differentiable: Sequence[int] | None = None,
                  **params: Any) -> None:
    """float32 inputs give float32 gradients of the inputs' exact shapes (half the part's
    points are kept when only this fails); with ``differentiable``, only those inputs'
    gradients are this part's to judge."""
    arrays = [np.asarray(a, dtype=np.float32) for a in arrays]
    upstream = np.ones(np.shape(reference(*[a.astype(np.float64) for a in arrays])), np.float32)
    _, grads = run_rule(w, function, arrays, upstream, label + " (float32)", swaps, **params)
    name = function.rpartition(".")[2] + label
    for i, (a, g) in enumerate(zip(arrays, grads)):
        if differentiable is not None and i not in differentiable:
            continue
        if not isinstance(g, np.ndarray):
            got = oversized(g) or ("None" if g is None else type(g).__name__)
            raise CheckFailure(f"{name}.backward: with float32 inputs the gradient for input {i} is {got}, not a "
                               f"float32 array of shape {a.shape}", "no float32 gradient")
        if g.dtype != np.float32 or g.shape != a.shape:
            drift = CheckFailure(f"{name}.backward: with float32 inputs the gradient for input {i} is {g.dtype} of "
                                 f"shape {g.shape}, not float32 of shape {a.shape} (dtype drift: a float64 constant "
                                 "or array crept in).", "dtype drift", keep=0.5)
            raise (drift_located(drift, w, function, arrays, upstream, params, swaps) if g.shape == a.shape
                   else drift)


def check_large(w, function: str, reference: Callable[..., np.ndarray], arrays: Sequence[np.ndarray], what: str,
                hint: str, label: str = "", swaps: dict | None = None, differentiable: Sequence[int] | None = None,
                dtypes: Sequence[Any] = (np.float64, np.float32), **params: Any) -> None:
    """The rule at large magnitudes (``what`` describes them), in each of ``dtypes``: the
    forward and every gradient against central differences with a step relative to each
    input (computed in float64 on the inputs as the dtype rounds them). ``hint`` names
    what usually breaks there (an exp that overflows, a 0/0)."""
    name = function.rpartition(".")[2] + label
    for dtype in dtypes:
        sent = [np.asarray(a).astype(dtype) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in arrays]
        exact = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in sent]
        expected_out = np.asarray(reference(*exact))
        upstream = np.ones(expected_out.shape, dtype)
        out, grads = run_rule(w, function, sent, upstream, f"{label} ({what}, {np.dtype(dtype).name})", swaps, **params)
        case = f"{name} at large magnitudes ({what}, {np.dtype(dtype).name}, upstream ones)"
        rtol = 1e-5 if dtype == np.float64 else 1e-3
        try:
            explain(f"{case}: the output", out, expected_out.astype(dtype), rtol=rtol, atol=1e-6)
            for i in (range(len(sent)) if differentiable is None else differentiable):
                expected = numeric_vjp_relative(reference, exact, upstream.astype(np.float64), i)
                explain(f"{case}: the gradient for input {i}", grads[i], expected.astype(dtype), rtol=max(rtol, 1e-4),
                        atol=1e-5, full=upstream.shape)
        except CheckFailure as failure:
            if failure.keep:  # dtype drift is judged by the float32 case of the part
                continue
            raise CheckFailure(f"{failure} {hint}", "unstable at large magnitudes" if failure.not_finite
                               else failure.mistake, kind=failure.kind) from None
