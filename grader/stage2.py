"""Hidden checks of stage 2: broadcast_shapes, unbroadcast, the binary ops."""

from __future__ import annotations

import numpy as np

from .checks import (CheckFailure, check_float32, check_rule, explain, patched, run_rule,
                     shapes_pairs, trusted_unbroadcast)
from .numeric import unbroadcast_by_loops
from .registry import task


# ---- stage 2 ---------------------------------------------------------------------------
@task("2.1")
def broadcast_shapes_matches_numpy(mt, rng):
    for a, b in shapes_pairs(rng, 20):
        try:
            got = tuple(mt.broadcast_shapes(a, b))
        except ValueError as error:
            raise CheckFailure(f"broadcast_shapes({a}, {b}) raised ValueError ({error}), but these shapes "
                               f"broadcast to {np.broadcast_shapes(a, b)}: align them from the right") from None
        if got != np.broadcast_shapes(a, b):
            raise CheckFailure(f"broadcast_shapes({a}, {b}) gave {got}, expected {np.broadcast_shapes(a, b)}")
    if tuple(mt.broadcast_shapes((2, 1, 3), (4, 1), (3,))) != (2, 4, 3):
        raise CheckFailure("broadcast_shapes((2, 1, 3), (4, 1), (3,)) must be (2, 4, 3): accept any number of shapes")
    for bad in (((2, 3), (4,)), ((2, 1), (3, 4, 5))):
        try:
            mt.broadcast_shapes(*bad)
        except ValueError:
            continue
        raise CheckFailure(f"broadcast_shapes{bad} must raise ValueError: the shapes do not broadcast")


@task("2.2")
def unbroadcast_matches_loops(mt, rng):
    for a, b in shapes_pairs(rng, 12):
        out = np.broadcast_shapes(a, b)
        for dtype in (np.float64, np.float32):
            grad = rng.standard_normal(out).astype(dtype)
            before = grad.copy()
            got = mt.unbroadcast(grad, a)
            if not np.array_equal(grad, before):
                raise CheckFailure("unbroadcast changed the gradient it was given: compute a new array")
            explain(f"unbroadcast(grad of shape {out}, {a})", got, unbroadcast_by_loops(grad, a),
                    input_shape=a, rtol=1e-5 if dtype == np.float32 else 1e-12)


def binary(mt):
    ops = mt.ops_binary
    return {"Add": (ops.Add, np.add), "Sub": (ops.Sub, np.subtract), "Mul": (ops.Mul, np.multiply),
            "Div": (ops.Div, np.divide), "Pow": (ops.Pow, np.power),
            "Maximum": (ops.Maximum, np.maximum), "Minimum": (ops.Minimum, np.minimum)}


@task("2.3")
def binary_gradients(mt, rng):
    with patched(mt.ops_binary, unbroadcast=trusted_unbroadcast):
        for name, (function, reference) in binary(mt).items():
            for a_shape, b_shape in shapes_pairs(rng, 3):
                a, b = rng.uniform(-2, 2, a_shape), rng.uniform(-2, 2, b_shape)
                if name == "Pow":
                    a = rng.uniform(0.5, 2, a_shape)
                if name == "Div":
                    b = np.where(np.abs(b) < 0.3, 1.0, b)
                check_rule(mt, function, reference, [a, b], rng)
            check_float32(mt, function, [rng.uniform(0.5, 2, (2, 3)), rng.uniform(0.5, 2, (3,))])


@task("2.3")
def maximum_minimum_ties(mt, rng):
    with patched(mt.ops_binary, unbroadcast=trusted_unbroadcast):
        a, b = np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, -1.0])
        g = np.array([2.0, 2.0, 2.0])
        for function, to_a in ((mt.ops_binary.Maximum, [1.0, 0.0, 2.0]), (mt.ops_binary.Minimum, [1.0, 2.0, 0.0])):
            _, grads, _ = run_rule(mt, function, [a, b], upstream=g.copy())
            explain(f"{function.__name__}.backward at a tie (a = b = 1): the gradient for a",
                    grads[0], np.array(to_a))
            explain(f"{function.__name__}.backward at a tie: the gradient for b", grads[1], 2.0 - np.array(to_a))
