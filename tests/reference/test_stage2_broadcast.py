"""Stage 2: broadcast_shapes, unbroadcast and the binary elementwise ops."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes
from numeric import away_from, check_against_numpy

import minitorch as mt
from grader.checks.numeric import unbroadcast_by_loops

pairs = mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=3)


# ---- Task 2.1 ------------------------------------------------------------------------
@pytest.mark.task2_1
@given(mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=5, max_side=4))
def test_broadcast_shapes_matches_numpy(shapes):
    assert mt.broadcast_shapes(*shapes.input_shapes) == np.broadcast_shapes(*shapes.input_shapes)


@pytest.mark.task2_1
def test_broadcast_shapes_edge_cases():
    assert mt.broadcast_shapes() == ()
    assert mt.broadcast_shapes((), ()) == ()
    assert mt.broadcast_shapes((0,), (1,)) == (0,)
    assert mt.broadcast_shapes((3,), (4, 1)) == (4, 3)


@pytest.mark.task2_1
def test_broadcast_shapes_error_names_the_shapes():
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
        mt.broadcast_shapes((2, 3), (4,))


# ---- Task 2.2 ------------------------------------------------------------------------
@pytest.mark.task2_2
@given(pairs, st.integers(0, 2**32 - 1))
def test_unbroadcast_matches_the_loop(shapes, seed):
    shape, other = shapes.input_shapes
    grad = np.random.default_rng(seed).standard_normal(shapes.result_shape)
    before = grad.copy()
    result = mt.unbroadcast(grad, shape)
    assert isinstance(result, np.ndarray) and result.shape == shape
    np.testing.assert_allclose(result, unbroadcast_by_loops(grad, shape), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(grad, before)


@pytest.mark.task2_2
def test_unbroadcast_keeps_size_one_axes_and_dtype():
    grad = np.ones((2, 4, 3), dtype=np.float32)
    result = mt.unbroadcast(grad, (4, 1))
    assert result.shape == (4, 1) and result.dtype == np.float32
    np.testing.assert_array_equal(result, np.full((4, 1), 6.0))
    assert mt.unbroadcast(grad, ()).shape == ()


@pytest.mark.task2_2
def test_unbroadcast_rejects_shapes_that_cannot_be_the_source():
    with pytest.raises(ValueError, match=r"\(4, 3\).*\(2,\)"):
        mt.unbroadcast(np.ones((4, 3)), (2,))


# ---- Task 2.3 ------------------------------------------------------------------------
BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "div": (lambda a, b: a / b, np.divide),
    "pow": (lambda a, b: a ** b, np.power),
    "maximum": (mt.maximum, np.maximum),
    "minimum": (mt.minimum, np.minimum),
}


def operands(name, shapes, rng):
    a = rng.uniform(-2, 2, shapes[0])
    b = rng.uniform(-2, 2, shapes[1])
    if name == "div":
        b = away_from(b, [0.0], 0.3)
    if name == "pow":
        a = rng.uniform(0.5, 2, shapes[0])
    return a, b


@pytest.mark.task2_3
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradients_on_broadcast_shapes(name):
    op, reference = BINARY[name]

    @given(pairs, st.integers(0, 2**32 - 1))
    def check(shapes, seed):
        rng = np.random.default_rng(seed)
        check_against_numpy(mt, op, reference, operands(name, shapes.input_shapes, rng), rng)

    check()


@pytest.mark.task2_3
@pytest.mark.parametrize("op", [mt.maximum, mt.minimum])
def test_ties_share_the_gradient(op):
    a = mt.Tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = mt.Tensor([1.0, 5.0, -1.0], requires_grad=True)
    op(a, b).backward(np.array([2.0, 2.0, 2.0]))
    winner_a = [1.0, 0.0, 2.0] if op is mt.maximum else [1.0, 2.0, 0.0]
    np.testing.assert_array_equal(a.grad, winner_a)
    np.testing.assert_array_equal(b.grad, 2.0 - np.array(winner_a))


@pytest.mark.task2_3
def test_tie_against_a_broadcast_scalar():
    x = mt.Tensor([[0.0, 1.0], [0.0, -1.0]], requires_grad=True)
    zero = mt.Tensor(0.0, requires_grad=True)
    mt.maximum(x, zero).sum().backward()
    np.testing.assert_array_equal(x.grad, [[0.5, 1.0], [0.5, 0.0]])
    assert zero.grad.shape == () and zero.grad == 2.0


@pytest.mark.task2_3
def test_pow_with_a_number_exponent_and_edge_cases():
    x = mt.Tensor([0.0, 2.0, -3.0], requires_grad=True)
    (x ** 2).backward(np.ones(3))
    np.testing.assert_array_equal(x.grad, [0.0, 4.0, -6.0])
    x.zero_grad()
    (x ** 0).backward(np.ones(3))  # constant: zero gradient, also at 0
    np.testing.assert_array_equal(x.grad, [0.0, 0.0, 0.0])
    base = mt.Tensor([0.0, 2.0], requires_grad=True)
    exponent = mt.Tensor([2.0, 3.0], requires_grad=True)
    (base ** exponent).sum().backward()
    np.testing.assert_allclose(exponent.grad, [0.0, 8.0 * np.log(2.0)])  # 0 at base 0, as PyTorch
    two = mt.Tensor(2.0, requires_grad=True)
    (3.0 ** two).backward()
    assert two.grad == pytest.approx(9.0 * np.log(3.0))


@pytest.mark.task2_3
@pytest.mark.parametrize("name", sorted(BINARY))
def test_float32_stays_float32(name):
    op, _ = BINARY[name]
    a = mt.Tensor(np.full((2, 3), 1.5, dtype=np.float32), requires_grad=True)
    b = mt.Tensor(np.full((3,), 0.5, dtype=np.float32), requires_grad=True)
    out = op(a, b)
    assert out.dtype == np.float32
    out.backward(np.ones((2, 3), dtype=np.float32))
    assert a.grad.dtype == np.float32 and b.grad.dtype == np.float32
    assert op(a, 2.0).dtype == np.float32 and op(2, a).dtype == np.float32
    assert op(a, np.float64(2.0)).dtype == np.float32  # a lone number never upcasts


@pytest.mark.task2_3
def test_mixed_dtypes_promote_forward_and_gradients_keep_their_input_dtype():
    a = mt.Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    b = mt.Tensor(np.ones(3, dtype=np.float64), requires_grad=True)
    out = a * b
    assert out.dtype == np.float64
    out.sum().backward()
    assert a.grad.dtype == np.float32 and b.grad.dtype == np.float64


@pytest.mark.task2_3
@given(array_shapes(min_dims=1, max_dims=3, max_side=4))
def test_ndarray_and_numbers_on_either_side(shape):
    x = mt.Tensor(np.full(shape, 2.0), requires_grad=True)
    y = np.ones(shape) * x - 1 / x + x / 4.0 + 3 - x ** 2
    y.backward(np.ones(shape))
    np.testing.assert_allclose(x.grad, 1 + 1 / 4 + 0.25 - 4)


@pytest.mark.task2_3
def test_incompatible_shapes_raise_naming_both():
    a, b = mt.Tensor(np.ones((2, 3))), mt.Tensor(np.ones((4,)))
    for op in (lambda: a + b, lambda: a * b, lambda: mt.maximum(a, b), lambda: a ** b):
        with pytest.raises(ValueError, match=r"\(2, 3\) and \(4,\)"):
            op()
