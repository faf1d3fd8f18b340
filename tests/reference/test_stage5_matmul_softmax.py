"""Stage 5: matmul, GELU, logsumexp / log_softmax / softmax, cross-entropy, MSE."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes
from numeric import check_against_numpy, numeric_vjp

import minitorch as mt

seeds = st.integers(0, 2**32 - 1)


# ---- Task 5.1 ------------------------------------------------------------------------
@st.composite
def matmul_shapes(draw):
    batch = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
    m, k, n = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    a = (k,) if draw(st.booleans()) else batch.input_shapes[0] + (m, k)
    b = (k,) if draw(st.booleans()) else batch.input_shapes[1] + (k, n)
    return a, b


@pytest.mark.task5_1
@given(matmul_shapes(), seeds)
def test_matmul_all_cases(shapes, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    check_against_numpy(mt, lambda a, b: a @ b, np.matmul, arrays, rng)
    check_against_numpy(mt, mt.matmul, np.matmul, arrays, rng)


@pytest.mark.task5_1
def test_matmul_gradients_are_not_transposed():
    # Non-square, so a transposed gradient cannot even have the right shape by accident.
    a = mt.Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    b = mt.Tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    (a @ b).backward(np.ones((2, 4)))
    np.testing.assert_array_equal(a.grad, np.ones((2, 4)) @ b.data.T)
    np.testing.assert_array_equal(b.grad, a.data.T @ np.ones((2, 4)))


@pytest.mark.task5_1
def test_matmul_float32_and_errors():
    a = mt.Tensor(np.ones((5, 2, 3), dtype=np.float32), requires_grad=True)
    b = mt.Tensor(np.ones((3, 4), dtype=np.float32), requires_grad=True)
    (a @ b).sum().backward()
    assert a.grad.dtype == b.grad.dtype == np.float32 and b.grad.shape == (3, 4)
    np.testing.assert_array_equal(b.grad, np.full((3, 4), 10.0))  # summed over the batch
    with pytest.raises(ValueError, match=r"\(5, 2, 3\) and \(4, 4\).*size 3.*size 4"):
        a @ mt.Tensor(np.ones((4, 4)))
    with pytest.raises(ValueError, match=r"\(2, 2, 3\) and \(3, 3, 1\)"):
        mt.Tensor(np.ones((2, 2, 3))) @ mt.Tensor(np.ones((3, 3, 1)))
    with pytest.raises(ValueError, match="0-d"):
        mt.Tensor(2.0) @ mt.Tensor([1.0])


# ---- Task 5.2 ------------------------------------------------------------------------
_erf = np.vectorize(math.erf)  # independent of the package's SciPy erf


def gelu_exact(x):
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


@pytest.mark.task5_2
@pytest.mark.parametrize("approximate, reference", [("none", gelu_exact), ("tanh", gelu_tanh)])
def test_gelu(approximate, reference):
    @given(array_shapes(min_dims=0, max_dims=3, max_side=4), seeds)
    def check(shape, seed):
        rng = np.random.default_rng(seed)
        check_against_numpy(mt, lambda t: mt.gelu(t, approximate=approximate), reference,
                            [rng.uniform(-4, 4, shape)], rng)

    check()
    x = mt.Tensor(np.linspace(-3, 3, 7, dtype=np.float32), requires_grad=True)
    out = x.gelu(approximate)
    out.sum().backward()
    assert out.dtype == x.grad.dtype == np.float32


@pytest.mark.task5_2
def test_float32_normal_cdf_is_as_close_as_float32_can_tell():
    """In float32 the package computes Φ with its own polynomial rather than SciPy's erf:
    within a few float32 steps of the exact value (within 3e-7 absolutely) and, in the lower tail
    where Φ is tiny, within 1e-5 of it relatively; and GELU's float32 gradient is right."""
    from minitorch.ops_activation import normal_cdf

    x = np.concatenate([np.linspace(-9, 9, 200_001), [0.0, -0.0, 40.0, -40.0, np.inf, -np.inf]]).astype(np.float32)
    exact = 0.5 * np.vectorize(math.erfc)(-x.astype(np.float64) / math.sqrt(2))  # accurate in the tails too
    got = normal_cdf(x)
    assert got.dtype == np.float32 and got.shape == x.shape
    assert np.max(np.abs(got - exact)) < 3e-7
    tail = (x < 0) & (exact > 1e-30)
    assert np.max(np.abs(got - exact)[tail] / exact[tail]) < 1e-5
    assert normal_cdf(np.array(1.0, dtype=np.float32)).shape == ()  # 0-d stays 0-d
    t = mt.Tensor(np.linspace(-4, 4, 9, dtype=np.float32), requires_grad=True)
    t.gelu().sum().backward()
    x64 = np.linspace(-4, 4, 9)
    np.testing.assert_allclose(t.grad, numeric_vjp(gelu_exact, [x64], np.ones(9), 0), rtol=1e-5, atol=1e-6)


@pytest.mark.task5_2
def test_gelu_rejects_unknown_approximation():
    with pytest.raises(ValueError, match="approximate"):
        mt.gelu(mt.Tensor([1.0]), approximate="sigmoid")


# ---- Task 5.3 ------------------------------------------------------------------------
def np_logsumexp(x, axis=None, keepdims=False):
    """Independent and straightforward: fine for the moderate inputs used here."""
    return np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims))


def np_log_softmax(x, axis):
    return x - np.log(np.sum(np.exp(x), axis=axis, keepdims=True))


@st.composite
def shape_axis(draw):
    shape = draw(array_shapes(min_dims=1, max_dims=3, max_side=4))
    return shape, draw(st.integers(-len(shape), len(shape) - 1))


@pytest.mark.task5_3
@given(shape_axis(), seeds, st.booleans())
def test_logsumexp(case, seed, keepdims):
    shape, axis = case
    rng = np.random.default_rng(seed)
    for ax in (axis, None, tuple(range(len(shape)))[:2]):
        check_against_numpy(mt, lambda t: mt.logsumexp(t, axis=ax, keepdims=keepdims),
                            lambda a: np_logsumexp(a, axis=ax, keepdims=keepdims),
                            [rng.standard_normal(shape) * 3], rng)


@pytest.mark.task5_3
@given(shape_axis(), seeds)
def test_softmax_and_log_softmax(case, seed):
    shape, axis = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 3
    check_against_numpy(mt, lambda t: mt.log_softmax(t, axis=axis),
                        lambda a: np_log_softmax(a, axis), [x], rng)
    check_against_numpy(mt, lambda t: mt.softmax(t, axis=axis),
                        lambda a: np.exp(np_log_softmax(a, axis)), [x], rng)


@pytest.mark.task5_3
def test_softmax_family_is_stable_for_huge_inputs():
    x = mt.Tensor([[1000.0, 1001.0, 999.0], [-1000.0, -1002.0, -1001.0]], requires_grad=True)
    shifted = x.data - x.data.max(axis=1, keepdims=True)  # mathematically the same softmax
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        p = mt.softmax(x, axis=1)
        lp = mt.log_softmax(x)
        lse = mt.logsumexp(x, axis=1)
        (p.sum() + lp.sum() + lse.sum()).backward()
    np.testing.assert_allclose(p.data, np.exp(np_log_softmax(shifted, 1)), rtol=1e-12)
    np.testing.assert_allclose(lse.data, x.data.max(axis=1) + np_logsumexp(shifted, axis=1), rtol=1e-12)
    assert np.all(np.isfinite(x.grad))
    assert mt.logsumexp(mt.Tensor([-np.inf, -np.inf])).item() == -np.inf


@pytest.mark.task5_3
def test_softmax_float32():
    x = mt.Tensor(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    out = mt.softmax(x) * mt.Tensor(np.arange(3, dtype=np.float32))
    out.sum().backward()
    assert out.dtype == x.grad.dtype == np.float32


# ---- Task 5.4 ------------------------------------------------------------------------
def np_cross_entropy(logits, target, reduction, by_index):
    log_p = np_log_softmax(logits, 1)
    if by_index:
        losses = -log_p[np.arange(len(logits)), target]
    else:
        losses = -np.sum(target * log_p, axis=1)
    return {"none": losses, "sum": losses.sum(), "mean": losses.mean()}[reduction]


@pytest.mark.task5_4
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("by_index", [True, False])
def test_cross_entropy(reduction, by_index):
    @given(st.integers(1, 5), st.integers(1, 5), seeds)
    def check(n, c, seed):
        rng = np.random.default_rng(seed)
        logits = rng.standard_normal((n, c)) * 2
        if by_index:
            target = rng.integers(0, c, n)
            check_against_numpy(mt, lambda t: mt.cross_entropy(t, target, reduction),
                                lambda a: np_cross_entropy(a, target, reduction, True), [logits], rng)
        else:
            target = rng.dirichlet(np.ones(c), n) * rng.uniform(0.5, 1.5)  # need not sum to 1
            check_against_numpy(mt, lambda t, p: mt.cross_entropy(t, p, reduction),
                                lambda a, p: np_cross_entropy(a, p, reduction, False),
                                [logits, target], rng)

    check()


@pytest.mark.task5_4
def test_cross_entropy_gradient_is_softmax_minus_target_over_n():
    logits = mt.Tensor([[1000.0, 0.0], [0.0, 0.0]], requires_grad=True)
    loss = mt.cross_entropy(logits, mt.Tensor([1, 0]))
    loss.backward()
    assert loss.item() == pytest.approx((1000 + math.log(2)) / 2)
    np.testing.assert_allclose(logits.grad, [[0.5, -0.5], [-0.25, 0.25]])


@pytest.mark.task5_4
def test_cross_entropy_errors_and_dtype():
    logits = mt.Tensor(np.zeros((3, 4), dtype=np.float32), requires_grad=True)
    with pytest.raises(ValueError, match=r"\(3, 4\).*\(3,\).*\(3, 4\).*\(2,\)"):
        mt.cross_entropy(logits, [0, 1])
    with pytest.raises(ValueError, match=r"\[0, 3\].*from 0 to 4"):
        mt.cross_entropy(logits, [0, 1, 4])
    with pytest.raises(ValueError, match="whole numbers"):
        mt.cross_entropy(logits, [0.5, 1, 2])
    with pytest.raises(ValueError, match=r"\(N, C\)"):
        mt.cross_entropy(mt.Tensor(np.zeros(4)), [1])
    with pytest.raises(ValueError, match="reduction"):
        mt.cross_entropy(logits, [0, 1, 2], reduction="avg")
    loss = mt.cross_entropy(logits, np.array([0, 1, 2]))
    loss.backward()
    assert loss.dtype == logits.grad.dtype == np.float32


@pytest.mark.task5_4
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss(reduction):
    rng = np.random.default_rng(0)
    reduce = {"mean": np.mean, "sum": np.sum, "none": lambda d: d}[reduction]
    check_against_numpy(mt, lambda p, t: mt.mse_loss(p, t, reduction),
                        lambda p, t: reduce((p - t) ** 2),
                        [rng.standard_normal((4, 3)), rng.standard_normal((4, 3))], rng)
    with pytest.raises(ValueError, match=r"\(4, 1\).*\(4,\)"):
        mt.mse_loss(mt.Tensor(np.ones((4, 1))), mt.Tensor(np.ones(4)))


@pytest.mark.task5_1
def test_linear_on_a_sequence_and_transposed_views():
    """A batch of sequences times a transposed 2-D weight (Linear on (B, T, d)), and
    transposed views on either side, against central differences."""
    rng = np.random.default_rng(5)
    layer = mt.nn.Linear(4, 3)
    x = mt.Tensor(rng.standard_normal((2, 5, 4)), requires_grad=True)
    g = rng.standard_normal((2, 5, 3))
    layer(x).backward(g)
    w = layer.weight.data
    assert np.allclose(x.grad, g @ w)
    assert np.allclose(layer.weight.grad, np.einsum("btj,bti->ji", g, x.data))
    assert np.allclose(layer.bias.grad, g.sum(axis=(0, 1)))
    for a_shape, b_shape, swap in [((2, 3, 4), (5, 4), "b"), ((4, 3), (4, 2), "a"), ((3, 2), (3, 3), "ab")]:
        a0, b0 = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
        a = a0.swapaxes(-1, -2) if "a" in swap else a0
        bb = b0.swapaxes(-1, -2) if "b" in swap else b0
        ta, tb = mt.Tensor(a, requires_grad=True), mt.Tensor(bb, requires_grad=True)
        up = rng.standard_normal(np.matmul(a, bb).shape)
        (ta @ tb).backward(up)
        assert np.allclose(ta.grad, numeric_vjp(np.matmul, [a, bb], up, 0), atol=1e-6)
        assert np.allclose(tb.grad, numeric_vjp(np.matmul, [a, bb], up, 1), atol=1e-6)


# ---- the given reductions over short rows (softmax, layer norm) ---------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("n", [8, 9, 16, 27, 64, 65, 3])
def test_max_keepdims_and_sum_keepdims_equal_numpy_on_every_axis(n, dtype):
    """The halving maximum and the matrix-vector sum, on every axis (negative too), with NaN
    and -inf in some rows, on a transposed (non-contiguous) array: NumPy's own answers."""
    from minitorch.ops_norm import mean_last
    from minitorch.ops_softmax import max_keepdims, sum_keepdims
    rng = np.random.default_rng(n)
    x = rng.standard_normal((300, n, 4)).astype(dtype)
    x[0, n // 2, 0], x[1, :, 1], x[2, -1, 2] = np.nan, -np.inf, np.inf
    for array in (x, np.ascontiguousarray(np.moveaxis(x, 1, -1)), np.moveaxis(x, 1, -1)):
        for axis in range(-array.ndim, array.ndim):
            expected = array.max(axis=axis, keepdims=True)
            got = max_keepdims(array, axis)
            assert got.shape == expected.shape and np.array_equal(got, expected, equal_nan=True), (axis, array.shape)
            total = sum_keepdims(array, axis)
            assert total.shape == expected.shape and total.dtype == array.dtype
            np.testing.assert_allclose(total, array.sum(axis=axis, keepdims=True), rtol=1e-5, atol=1e-5)
    rows = rng.standard_normal((500, n)).astype(dtype)
    np.testing.assert_allclose(mean_last(rows), rows.mean(axis=-1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_the_short_row_helpers_leave_integers_and_empty_rows_to_numpy():
    from minitorch.ops_norm import mean_last
    from minitorch.ops_softmax import max_keepdims, sum_keepdims
    flags = np.ones((300, 16), dtype=bool)
    assert np.array_equal(sum_keepdims(flags, 1), flags.sum(axis=1, keepdims=True))
    small = np.full((300, 16), 27, dtype=np.int8)
    assert np.array_equal(sum_keepdims(small, -1), small.sum(axis=-1, keepdims=True))
    counts = np.arange(300 * 16).reshape(300, 16)
    assert np.array_equal(mean_last(counts), counts.mean(axis=-1, keepdims=True))
    assert np.array_equal(max_keepdims(counts, 1), counts.max(axis=1, keepdims=True))
    assert mean_last(np.zeros((3, 0))).shape == (3, 1)
