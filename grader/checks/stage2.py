"""Stage 2: broadcast_shapes, unbroadcast, the binary ops' backward."""

from __future__ import annotations

import numpy as np

from grader.boundary.runner import Lost, Raised
from grader.checks import part
from grader.checks.common import CheckFailure, drift_noted, explain, learner_raised, shapes_pairs
from grader.checks.naming import judge, judge_value, name_value_mistake, seen_value, value_mistake_raised
from grader.checks.numeric import unbroadcast_by_loops
from grader.checks.repair import not_finite_located
from grader.checks.rules import check_float32, check_large, check_rule, run_rule
from grader.checks.stage2_edges import div_overflow, names_shapes
from grader.results import Failure


def _broadcast_shapes(w, *shapes):
    return w.call("call", doing=f"running broadcast_shapes{shapes}", function="broadcast_shapes", args=list(shapes))


@part("2.1", "matches NumPy")
def broadcast_shapes_matches_numpy(w, rng):
    # first three cases that tell the known mistakes apart: two lined up by the right, one with a size 1 against a
    # size; shapes of different lengths first, where shapes lined up from the left clash, so that sizes lined up from
    # the left and given back reversed are not taken for sizes built from the right and never reversed, and a result
    # without its first axis is not taken for one as long as the shortest shape (issue 45); before them one that
    # shapes lined up from the left fit, where a size taken from the first shape clashes; size-0 axes with 1s last
    cases = [((3,), (3, 2, 3)), ((3,), (4, 2, 3)), ((3,), (2, 3)), ((2, 1), (2, 3))] + \
        [(a, b) for a, b in shapes_pairs(rng, 16)] + [((2, 1, 3), (4, 1), (3,)), ((5,),), ((1, 1), ()), (),
                                                      ((0,), (1,)), ((2, 0), (1,)), ((1, 3, 0), (4, 1, 1))]
    for shapes in cases:
        case, expected = {"shapes": [tuple(s) for s in shapes]}, np.broadcast_shapes(*shapes)
        try:
            got = _broadcast_shapes(w, *shapes)
        except Raised as error:
            failure = learner_raised(error, f"broadcast_shapes{shapes}")
            if error.type == "NotImplementedError":
                raise failure from None
            named = value_mistake_raised(failure, "broadcast shapes", case)
            if named is not failure:
                raise named from None
            where = f" at {error.where}" if error.where else ""
            raise CheckFailure(f"broadcast_shapes{shapes} raised {error.type} ({error.message}){where}, but these "
                               f"shapes broadcast to {expected}: aligned from the right, a size-1 axis or a missing "
                               "one stretches to the other shape's size", "raised an error") from None
        if not isinstance(got, tuple) or got != expected:
            name_value_mistake("broadcast shapes", case, f"broadcast_shapes{shapes}", got, expected)
        seen_value("broadcast shapes", case, got, expected)  # a right answer is evidence against a mistake that raises
        if not isinstance(got, (tuple, list)) or tuple(got) != expected:
            raise CheckFailure(f"broadcast_shapes{shapes} gave {got}, expected {expected}", "wrong shape")
        if not isinstance(got, tuple):
            raise CheckFailure(f"broadcast_shapes{shapes} gave the list {got}; the API gives a tuple, {expected}, as "
                               f"np.broadcast_shapes does: shapes are tuples, and a list never equals one ({list(expected)} "
                               f"== {expected} is False), so a shape compared with it would seem wrong", "list, not a tuple")


@part("2.1", "raises on a clash")
def broadcast_shapes_raises(w, rng):
    for bad in (((2, 3), (4,)), ((2, 1), (3, 4, 5)), ((3,), (1,), (2,))):
        try:
            got = _broadcast_shapes(w, *bad)
        except Raised as error:
            if error.type == "ValueError":
                names_shapes(bad, error.message, error.where)
                continue
            if error.type == "NotImplementedError":
                raise learner_raised(error, f"broadcast_shapes{bad}") from None
            own = ": raise " in error.where  # the learner's own raise statement, of another type
            raise CheckFailure(f"broadcast_shapes{bad} raised {error.type} where the task asks for a ValueError (these "
                               f"shapes do not broadcast): {error.message}" + (f" at {error.where}" if error.where else "")
                               + (". Fix: raise ValueError there: a caller catches a ValueError by its name" if own else ""),
                               "wrong exception type", kind=Failure.RAISED) from None
        name_value_mistake("broadcast shapes", {"shapes": list(bad)}, f"broadcast_shapes{bad}", got, ValueError)
        raise CheckFailure(f"broadcast_shapes{bad} gave {got}; it must raise ValueError: the shapes do not "
                           "broadcast", "no error on a clash")


def _unbroadcast_case(w, shape, out_shape, rng):
    grad = rng.standard_normal(out_shape)
    doing = f"unbroadcast(grad of shape {out_shape}, {shape})"
    try:
        got = w.call("call", doing=f"running {doing}", function="unbroadcast", args=[grad, shape])
    except Raised as error:
        raise value_mistake_raised(learner_raised(error, doing), "unbroadcast", {"grad": grad, "shape": shape}) from None
    judge_value(doing, "unbroadcast", {"grad": grad, "shape": shape}, got, unbroadcast_by_loops(grad, shape),
                rtol=1e-12, kind="unbroadcast")


@part("2.2", "missing leading axes")
def unbroadcast_leading(w, rng):  # two axes kept first: one axis too many and the 1s inverted leave different sizes
    for shape, out in [((2, 3), (4, 2, 3)), ((3,), (2, 3)), ((), (2, 2)), ((4,), (1, 4))]:
        _unbroadcast_case(w, shape, out, rng)


@part("2.2", "stretched size-1 axes")
def unbroadcast_stretched(w, rng):
    for shape, out in [((2, 1), (2, 3)), ((1, 3), (2, 3)), ((1, 1), (4, 5)), ((3, 1, 2), (3, 4, 2))]:
        _unbroadcast_case(w, shape, out, rng)


@part("2.2", "both at once")
def unbroadcast_both(w, rng):  # (1, 4) first: there the 1s inverted and the leading axes' offset forgotten part
    for shape, out in [((1, 4), (5, 3, 4)), ((3, 1), (2, 3, 4)), ((1,), (2, 3)), ((2, 1, 1), (3, 2, 4, 5))]:
        _unbroadcast_case(w, shape, out, rng)


@part("2.2", "float32, no side effects")
def unbroadcast_float32(w, rng):
    """Only what this part names: the dtype kept and the gradient left as it was. The
    numbers are judged by the parts above, so here they are held to the learner's own
    float64 answer, and a wrong sum is charged once, there."""
    for shape, out in [((3,), (2, 3)), ((2, 1), (2, 3)), ((2, 3), (2, 3))]:
        grad = rng.standard_normal(out).astype(np.float32)
        doing = f"unbroadcast(a float32 grad of shape {out}, {shape})"
        try:
            seen = w.call("unbroadcast_effects", doing=f"running {doing}", grad=grad, shape=list(shape))
            own = w.call("call", doing=f"running {doing} in float64", function="unbroadcast",
                         args=[grad.astype(np.float64), shape])
        except Raised as error:
            raise learner_raised(error, doing) from None
        if not np.array_equal(seen["grad"], grad):
            raise CheckFailure(f"{doing} changed the gradient it was given: sum into a new array, never into grad",
                               "changed its input")
        got = seen["out"]
        try:
            right = np.shape(own) == shape and np.allclose(own, unbroadcast_by_loops(grad.astype(np.float64), shape))
        except (TypeError, ValueError):
            right = False
        if getattr(got, "dtype", None) != np.float32 and not right:  # half marks only for the right numbers
            raise CheckFailure(f"{doing} returned {type(got).__name__} of dtype {getattr(got, 'dtype', None)} and, in "
                               "float64, the wrong numbers (see the parts above)", "wrong result")
        if getattr(got, "dtype", None) != np.float32:  # and the line of the learner's where the drift begins
            raise drift_noted(CheckFailure(f"{doing} returned {type(got).__name__} of dtype {getattr(got, 'dtype', None)}: "
                                           "keep the gradient's dtype (a float64 array made along the way promotes it)",
                                           "dtype drift", keep=0.5), _drift_origin(w, grad, shape))
        if np.shape(got) != np.shape(own) or not np.allclose(got, own, rtol=1e-5, atol=1e-6):
            raise CheckFailure(f"{doing} gave other numbers than the same call in float64: compute in the "
                               "gradient's own dtype", "float32 differs")


def _drift_origin(w, grad, shape):
    try:
        return w.call("call_dtype_origin", doing="finding where unbroadcast's dtype changes", function="unbroadcast",
                      args=[grad, list(shape)], dtype="float32")
    except (Raised, Lost):
        return {}


BINARY = {"Sub": np.subtract, "Mul": np.multiply, "Div": np.divide, "Pow": np.power,
          "Maximum": np.maximum, "Minimum": np.minimum}
SWAP = {"ops_binary.unbroadcast": "unbroadcast"}


def _inputs(name, rng, a_shape, b_shape):
    a, b = rng.uniform(-2, 2, a_shape), rng.uniform(-2, 2, b_shape)
    if name == "Pow":
        a = rng.uniform(0.5, 2, a_shape)
    if name == "Div":
        b = np.where(np.abs(b) < 0.3, 1.0, b)
    return a, b


def _binary_part(name):
    def check(w, rng):
        function = f"ops_binary.{name}"
        # both inputs broadcast first (on a generator of its own: the later cases stay as they were), where a's shape
        # read for b's gradient (a line copied) is told apart from a gradient not summed back at all
        pairs = [((2, 1), (3,), np.random.default_rng(7))] + [(x, y, rng) for x, y in shapes_pairs(rng, 2)]
        for a_shape, b_shape, drawn in pairs:
            a, b = _inputs(name, drawn, a_shape, b_shape)
            check_rule(w, function, BINARY[name], [a, b], drawn, kind="broadcast", swaps=SWAP)
        if name in ("Maximum", "Minimum"):
            _ties(w, name)
        if name == "Pow":
            _pow_edges(w, rng)
        a, b = _inputs(name, rng, (2, 3), (3,))
        check_float32(w, function, [a, b], BINARY[name], swaps=SWAP)
        big = 1e15 if name != "Pow" else 1e10  # a square of these still fits in float32
        a, b = _inputs(name, rng, (2, 3), (3,))
        check_large(w, function, BINARY[name], [a * big, b * big if name != "Pow" else b], f"inputs near {big:g}",
                    "Keep every intermediate in range: a square of a large number overflows float32 near 2e19.",
                    swaps=SWAP)
        if name == "Div":  # near 1e20, where b * b overflows float32
            div_overflow(w, rng, SWAP)
    return check


def _ties(w, name):
    a, b = np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, -1.0])
    to_a = [1.0, 0.0, 2.0] if name == "Maximum" else [1.0, 2.0, 0.0]
    _, grads = run_rule(w, f"ops_binary.{name}", [a, b], np.full(3, 2.0), " at a tie", SWAP)
    judge(f"{name}.backward at a tie (a = b = 1, upstream 2): the gradient for a (each side gets half)",
          f"ops_binary.{name}", [a, b], np.full(3, 2.0), {}, 0, grads[0], np.array(to_a))
    judge(f"{name}.backward at a tie: the gradient for b", f"ops_binary.{name}", [a, b], np.full(3, 2.0), {}, 1, grads[1],
          2.0 - np.array(to_a))


def _pow_edges(w, rng):
    """A zero exponent (a ** 0 is the constant 1: d/da is 0, even at a = 0), a zero base
    with an exponent >= 0 (d/db is the limit of a ** b log a, 0), and a negative base (d/db is NaN)."""
    a, b = np.array([0.0, 2.0, 0.0, 0.0]), np.array([2.0, 0.0, 3.0, 0.0])
    _, grads = run_rule(w, "ops_binary.Pow", [a, b], np.ones(4), " at a zero base or a zero exponent", SWAP)
    case = "Pow.backward at a zero base or a zero exponent (a = [0, 2, 0, 0], b = [2, 0, 3, 0], upstream ones)"
    try:
        explain(f"{case}: the gradient for a (b * a ** (b - 1), and 0 where b = 0)", grads[0], np.zeros(4))
    except CheckFailure as failure:  # a NaN where the answer is finite: the line of the learner's that makes it
        raise not_finite_located(failure, w, "ops_binary.Pow", [a, b], np.ones(4), {}, SWAP) from None
    explain(f"{case}: the gradient for b (a ** b * log(a), and 0 where a = 0 and b >= 0)", grads[1],
            np.array([0.0, np.log(2.0), 0.0, 0.0]))
    # a negative base: b's gradient is NaN there (the log of a negative number), as PyTorch gives
    a, b, up = np.array([-1.5, 2.0, -0.5]), np.array([2.0, 3.0, 3.0]), np.ones(3)
    _, grads = run_rule(w, "ops_binary.Pow", [a, b], up, " at a negative base", SWAP)
    case = "Pow.backward at a negative base (a = [-1.5, 2, -0.5], b = [2, 3, 3], upstream ones)"
    with np.errstate(invalid="ignore"):
        judge(f"{case}: the gradient for b (a ** b * log(a): NaN where a < 0, as in PyTorch)", "ops_binary.Pow", [a, b],
              up, {}, 1, grads[1], a ** b * np.log(a))


for _name in BINARY:
    part("2.3", _name)(_binary_part(_name))
