"""Stage 3: unary functions and reductions."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes
from numeric import away_from, check_against_numpy

import minitorch as mt

shapes = array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4)
seeds = st.integers(0, 2**32 - 1)

UNARY = {  # name: (reference, input sampler)
    "neg": (np.negative, lambda rng, s: rng.uniform(-2, 2, s)),
    "exp": (np.exp, lambda rng, s: rng.uniform(-2, 2, s)),
    "log": (np.log, lambda rng, s: rng.uniform(0.2, 3, s)),
    "sqrt": (np.sqrt, lambda rng, s: rng.uniform(0.2, 3, s)),
    "abs": (np.abs, lambda rng, s: away_from(rng.uniform(-2, 2, s), [0.0])),
    "sin": (np.sin, lambda rng, s: rng.uniform(-4, 4, s)),
    "cos": (np.cos, lambda rng, s: rng.uniform(-4, 4, s)),
    "tanh": (np.tanh, lambda rng, s: rng.uniform(-3, 3, s)),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), lambda rng, s: rng.uniform(-5, 5, s)),
    "relu": (lambda x: np.where(x > 0, x, 0.0), lambda rng, s: away_from(rng.uniform(-2, 2, s), [0.0])),
}


# ---- Task 3.1 ------------------------------------------------------------------------
@pytest.mark.task3_1
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradient(name):
    reference, sample = UNARY[name]
    function, method = getattr(mt, name), (lambda t: -t) if name == "neg" else getattr(mt.Tensor, name)

    @given(shapes, seeds)
    def check(shape, seed):
        rng = np.random.default_rng(seed)
        check_against_numpy(mt, function, reference, [sample(rng, shape)], rng)
        out = method(mt.Tensor(sample(rng, shape)))
        assert out.shape == shape

    check()


@pytest.mark.task3_1
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float32(name):
    _, sample = UNARY[name]
    x = mt.Tensor(sample(np.random.default_rng(0), (3, 2)).astype(np.float32), requires_grad=True)
    out = getattr(mt, name)(x)
    assert out.dtype == np.float32
    out.backward(np.ones((3, 2), dtype=np.float32))
    assert x.grad.dtype == np.float32


@pytest.mark.task3_1
def test_kinks_follow_pytorch():
    x = mt.Tensor([0.0, 0.0], requires_grad=True)
    (mt.relu(x) + mt.abs(x)).sum().backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.0])


@pytest.mark.task3_1
def test_sigmoid_is_stable_for_large_inputs():
    x = mt.Tensor([-1000.0, 1000.0, -40.0], requires_grad=True)
    with np.errstate(over="raise", divide="raise", invalid="raise"):
        out = mt.sigmoid(x)
        out.sum().backward()
    np.testing.assert_allclose(out.data, [0.0, 1.0, 1 / (1 + np.exp(40.0))], rtol=1e-12)


# ---- Task 3.2 and 3.3 ----------------------------------------------------------------
@st.composite
def shape_and_axis(draw):
    shape = draw(array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4))
    ndim = len(shape)
    kind = draw(st.sampled_from(["none", "int", "tuple"] if ndim else ["none"]))
    if kind == "none":
        axis = None
    elif kind == "int":
        axis = draw(st.integers(-ndim, ndim - 1))
    else:
        axes = draw(st.lists(st.integers(0, ndim - 1), unique=True, min_size=1, max_size=ndim))
        axis = tuple(a - ndim if draw(st.booleans()) else a for a in axes)
    return shape, axis, draw(st.booleans())


REDUCTIONS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}


@pytest.mark.parametrize("name", [pytest.param("sum", marks=pytest.mark.task3_2),
                                  pytest.param("mean", marks=pytest.mark.task3_2),
                                  pytest.param("max", marks=pytest.mark.task3_3),
                                  pytest.param("min", marks=pytest.mark.task3_3)])
def test_reduction_gradient(name):
    reference = REDUCTIONS[name]

    @given(shape_and_axis(), seeds)
    def check(case, seed):
        shape, axis, keepdims = case
        rng = np.random.default_rng(seed)
        # Distinct values keep max/min away from ties, where the derivative jumps.
        x = rng.permutation(np.arange(int(np.prod(shape)), dtype=np.float64)).reshape(shape) / 3
        check_against_numpy(mt, lambda t: getattr(mt, name)(t, axis=axis, keepdims=keepdims),
                            lambda a: reference(a, axis=axis, keepdims=keepdims), [x], rng)
        method = getattr(mt.Tensor(x), name)(axis, keepdims)
        assert method.shape == np.shape(reference(x, axis=axis, keepdims=keepdims))

    check()


@pytest.mark.task3_3
@pytest.mark.parametrize("name", ["max", "min"])
def test_ties_share_the_gradient_equally(name):
    x = mt.Tensor([[1.0, 3.0, 3.0, 3.0], [2.0, 0.0, 2.0, 1.0]], requires_grad=True)
    if name == "min":
        x = mt.Tensor(-x.data, requires_grad=True)
    getattr(mt, name)(x, axis=1).backward(np.array([3.0, 1.0]))
    # Independent: mask of the extremes divided by their count, times the upstream.
    np.testing.assert_allclose(x.grad, [[0, 1, 1, 1], [0.5, 0, 0.5, 0]])
    y = mt.Tensor(np.ones((2, 2), dtype=np.float32), requires_grad=True)
    getattr(mt, name)(y).backward()
    assert y.grad.dtype == np.float32
    np.testing.assert_array_equal(y.grad, np.full((2, 2), 0.25))


@pytest.mark.task3_2
def test_reduction_dtype_and_keepdims():
    x = mt.Tensor(np.ones((2, 3, 4), dtype=np.float32), requires_grad=True)
    out = x.mean(axis=(0, -1), keepdims=True)
    assert out.shape == (1, 3, 1) and out.dtype == np.float32
    out.backward(np.ones((1, 3, 1), dtype=np.float32))
    assert x.grad.dtype == np.float32
    np.testing.assert_allclose(x.grad, np.full((2, 3, 4), 1 / 8))


@pytest.mark.task3_2
@pytest.mark.parametrize("axis", [3, -4, (0, 0), (1, -2)])
def test_bad_axis_names_the_shape(axis):
    with pytest.raises(ValueError, match=r"\(2, 3, 4\)"):
        mt.Tensor(np.ones((2, 3, 4))).sum(axis=axis)
