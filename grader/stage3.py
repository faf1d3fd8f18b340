"""Hidden checks of stage 3: unary functions and reductions."""

from __future__ import annotations

import numpy as np

from .checks import CheckFailure, check_float32, check_rule, explain, run_rule
from .registry import task

UNARY = {  # Function name: (trusted NumPy function, range of the inputs)
    "Neg": (np.negative, (-2, 2)), "Exp": (np.exp, (-2, 2)), "Log": (np.log, (0.3, 3)),
    "Sqrt": (np.sqrt, (0.3, 3)), "Abs": (np.abs, (0.2, 2)), "Sin": (np.sin, (-3, 3)),
    "Cos": (np.cos, (-3, 3)), "Tanh": (np.tanh, (-2, 2)),
    "Sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-4, 4)), "Relu": (lambda x: np.maximum(x, 0), (0.2, 2)),
}
SHAPES = [(), (4,), (2, 3), (2, 1, 3)]


@task("3.1")
def unary_gradients(mt, rng):
    for name, (reference, (lo, hi)) in UNARY.items():
        function = getattr(mt.ops_unary, name)
        for shape in SHAPES:
            x = rng.uniform(lo, hi, shape)
            if name in ("Abs", "Relu"):  # both sides of the kink
                x = x * rng.choice([-1.0, 1.0], shape)
            check_rule(mt, function, reference, [x], rng)
        check_float32(mt, function, [rng.uniform(lo, hi, (2, 3))])


def axis_cases(rng):
    shape = (2, 3, 4)
    return [(shape, None, False), (shape, 1, False), (shape, -1, True), (shape, (0, 2), False),
            (shape, (0, -1), True), (shape, 0, True), ((5,), 0, False), ((), None, False)]


@task("3.2")
def sum_and_mean_gradients(mt, rng):
    for name, reference in (("Sum", np.sum), ("Mean", np.mean)):
        function = getattr(mt.ops_reduce, name)
        for shape, axis, keepdims in axis_cases(rng):
            x = rng.standard_normal(shape)
            check_rule(mt, function, lambda a: reference(a, axis=axis, keepdims=keepdims), [x], rng,
                       label=f"(axis={axis}, keepdims={keepdims})", axis=axis, keepdims=keepdims)
        check_float32(mt, function, [np.ones((2, 3))], axis=1)


@task("3.3")
def max_and_min_gradients(mt, rng):
    for name, reference in (("Max", np.max), ("Min", np.min)):
        function = getattr(mt.ops_reduce, name)
        for shape, axis, keepdims in axis_cases(rng):
            size = int(np.prod(shape))
            x = rng.permutation(np.arange(size, dtype=np.float64)).reshape(shape) / 3  # no ties
            check_rule(mt, function, lambda a: reference(a, axis=axis, keepdims=keepdims), [x], rng,
                       label=f"(axis={axis}, keepdims={keepdims})", axis=axis, keepdims=keepdims)


@task("3.3")
def ties_share_equally(mt, rng):
    x = np.array([[1.0, 3.0, 3.0, 3.0], [2.0, 0.0, 2.0, 1.0]])
    for name, sign in (("Max", 1.0), ("Min", -1.0)):
        function = getattr(mt.ops_reduce, name)
        _, grads, _ = run_rule(mt, function, [sign * x], upstream=np.array([3.0, 1.0]), axis=1)
        explain(f"{name}.backward with tied extremes (each of k ties gets 1/k of the gradient)",
                grads[0], np.array([[0, 1, 1, 1], [0.5, 0, 0.5, 0]]))
        _, grads, _ = run_rule(mt, function, [np.ones((2, 2), np.float32)], upstream=np.float32(1.0))
        if np.asarray(grads[0]).dtype != np.float32:
            raise CheckFailure(f"{name}.backward: float32 input, but a {np.asarray(grads[0]).dtype} "
                               "gradient (dtype drift: divide by a count of the input's dtype)")
