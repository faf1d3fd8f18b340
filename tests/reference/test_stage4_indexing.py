"""Stage 4: movement ops, indexing, cat and stack."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, basic_indices, broadcastable_shapes, integer_array_indices
from numeric import check_against_numpy

import minitorch as mt

shapes = array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4)
seeds = st.integers(0, 2**32 - 1)


def values(rng, shape):
    return rng.standard_normal(shape)


# ---- Task 4.1 ------------------------------------------------------------------------
@st.composite
def reshapes(draw):
    shape = draw(shapes)
    size = int(np.prod(shape))
    factors = [d for d in range(1, size + 1) if size % d == 0]
    first = draw(st.sampled_from(factors))
    target = [first, size // first]
    if draw(st.booleans()):
        target[draw(st.integers(0, 1))] = -1
    return shape, tuple(target)


@pytest.mark.task4_1
@given(reshapes(), seeds)
def test_reshape(case, seed):
    shape, target = case
    rng = np.random.default_rng(seed)
    check_against_numpy(mt, lambda t: t.reshape(target), lambda a: a.reshape(target),
                        [values(rng, shape)], rng)
    check_against_numpy(mt, lambda t: t.reshape(*target), lambda a: a.reshape(target),
                        [values(rng, shape)], rng)


@st.composite
def permutations(draw):
    shape = draw(shapes)
    return shape, tuple(draw(st.permutations(range(len(shape)))))


@pytest.mark.task4_1
@given(permutations(), seeds)
def test_transpose_with_random_permutations(case, seed):
    shape, axes = case
    rng = np.random.default_rng(seed)
    check_against_numpy(mt, lambda t: t.transpose(axes), lambda a: np.transpose(a, axes),
                        [values(rng, shape)], rng)
    check_against_numpy(mt, lambda t: t.T, lambda a: a.T, [values(rng, shape)], rng)


@pytest.mark.task4_1
@given(shapes.flatmap(lambda s: st.tuples(st.just(s), broadcastable_shapes(s, min_dims=0, max_dims=4)
                                          .map(lambda b: np.broadcast_shapes(s, b)))), seeds)
def test_broadcast_to(case, seed):
    shape, target = case
    rng = np.random.default_rng(seed)
    check_against_numpy(mt, lambda t: t.broadcast_to(target), lambda a: np.broadcast_to(a, target),
                        [values(rng, shape)], rng)


@pytest.mark.task4_1
@given(array_shapes(min_dims=0, max_dims=5, min_side=1, max_side=3), seeds, st.data())
def test_squeeze_unsqueeze_flatten(shape, seed, data):
    rng = np.random.default_rng(seed)
    x = values(rng, shape)
    check_against_numpy(mt, lambda t: t.squeeze(), np.squeeze, [x], rng)
    ones = [i for i, n in enumerate(shape) if n == 1]
    if ones:
        axis = data.draw(st.sampled_from(ones))
        check_against_numpy(mt, lambda t: t.squeeze(axis), lambda a: np.squeeze(a, axis), [x], rng)
    new = data.draw(st.integers(-len(shape) - 1, len(shape)))
    check_against_numpy(mt, lambda t: t.unsqueeze(new), lambda a: np.expand_dims(a, new), [x], rng)
    check_against_numpy(mt, lambda t: t.flatten(), lambda a: a.reshape(-1), [x], rng)


@pytest.mark.task4_1
def test_movement_errors_name_the_shapes():
    x = mt.Tensor(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"shape \(2, 3\) \(6 elements\) into shape \(4,\)"):
        x.reshape(4)
    with pytest.raises(ValueError, match=r"only one axis may be -1"):
        x.reshape(-1, -1)
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        x.transpose(0, 0)
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4, 3\)"):
        x.broadcast_to((4, 3))
    with pytest.raises(ValueError, match=r"axis 1 .* \(2, 3\) has size 3"):
        x.squeeze(1)


# ---- Task 4.2 ------------------------------------------------------------------------
@st.composite
def index_cases(draw):
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    kind = draw(st.sampled_from(["basic", "integer", "mask", "mixed"]))
    if kind == "basic":
        index = draw(basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    elif kind == "integer":
        index = draw(integer_array_indices(shape, result_shape=array_shapes(min_dims=1, max_dims=2, max_side=5)))
    elif kind == "mask":
        index = np.array(draw(st.lists(st.booleans(), min_size=shape[0], max_size=shape[0])))
    else:  # an integer array (with repeats) on axis 0, a slice with a step on the rest
        rows = np.array(draw(st.lists(st.integers(-shape[0], shape[0] - 1), min_size=1, max_size=6)))
        index = (rows, slice(None, None, draw(st.sampled_from([1, 2, -1]))))[:len(shape)]
    return shape, index


@pytest.mark.task4_2
@given(index_cases(), seeds)
def test_getitem_with_random_indices(case, seed):
    shape, index = case
    rng = np.random.default_rng(seed)
    check_against_numpy(mt, lambda t: t[index], lambda a: a[index], [values(rng, shape)], rng)


@pytest.mark.task4_2
def test_repeated_indices_accumulate():
    x = mt.Tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[np.array([0, 2, 0, 0])].sum().backward()
    np.testing.assert_array_equal(x.grad, [3.0, 0.0, 1.0])
    y = mt.Tensor(np.ones((2, 2), dtype=np.float32), requires_grad=True)
    y[[1, 1], [0, 0]].sum().backward()
    assert y.grad.dtype == np.float32
    np.testing.assert_array_equal(y.grad, [[0, 0], [2, 0]])


@pytest.mark.task4_2
def test_index_with_a_tensor_and_out_of_range():
    x = mt.Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    np.testing.assert_array_equal(x[mt.Tensor([1, 1])].data, [[3, 4, 5], [3, 4, 5]])
    with pytest.raises(IndexError, match=r"\(2, 3\)"):
        x[5]


# ---- Task 4.3 ------------------------------------------------------------------------
@st.composite
def joins(draw):
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    sizes = draw(st.lists(st.integers(1, 3), min_size=1, max_size=4))
    cat_shapes = [tuple(n if i != axis % len(shape) else k for i, n in enumerate(shape)) for k in sizes]
    return shape, axis, cat_shapes


@pytest.mark.task4_3
@given(joins(), seeds)
def test_cat(case, seed):
    _, axis, cat_shapes = case
    rng = np.random.default_rng(seed)
    arrays = [values(rng, s) for s in cat_shapes]
    check_against_numpy(mt, lambda *ts: mt.cat(ts, axis=axis),
                        lambda *a: np.concatenate(a, axis=axis), arrays, rng)


@pytest.mark.task4_3
@given(joins(), seeds, st.data())
def test_stack(case, seed, data):
    shape, _, cat_shapes = case
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    rng = np.random.default_rng(seed)
    arrays = [values(rng, shape) for _ in cat_shapes]
    check_against_numpy(mt, lambda *ts: mt.stack(ts, axis=axis),
                        lambda *a: np.stack(a, axis=axis), arrays, rng)


@pytest.mark.task4_3
def test_cat_and_stack_errors_and_dtypes():
    a, b = mt.Tensor(np.ones((2, 3))), mt.Tensor(np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(2, 4\).*outside axis 0"):
        mt.cat([a, b])
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(2, 4\)"):
        mt.stack([a, b])
    x = mt.Tensor(np.ones(2, dtype=np.float32), requires_grad=True)
    y = mt.Tensor(np.ones(3, dtype=np.float64), requires_grad=True)
    mt.cat([x, y]).sum().backward()
    assert x.grad.dtype == np.float32 and y.grad.dtype == np.float64
    # the same tensor twice gets both pieces
    z = mt.Tensor([1.0, 2.0], requires_grad=True)
    mt.stack([z, z, z * 2]).sum().backward()
    np.testing.assert_array_equal(z.grad, [4.0, 4.0])
