"""The tensor engine: the Tensor class, Function/Context, the gradient checks, no_grad."""

import numpy as np
import pytest

import minitorch as mt
from minitorch.function import Context, Function


@pytest.mark.task1_4
def test_tensor_basics_and_repr():
    t = mt.Tensor([[1, 2], [3, 4]])
    assert t.dtype == np.float64 and t.shape == (2, 2) and t.ndim == 2 and t.size == 4
    assert t.grad is None and t.grad_fn is None and not t.requires_grad
    assert mt.Tensor(np.ones(2, dtype=np.float32)).dtype == np.float32
    assert mt.Tensor([1, 2], dtype=np.float32).dtype == np.float32
    x = mt.Tensor([1.0, 2.0], requires_grad=True)
    assert "requires_grad=True" in repr(x)
    y = x * 2
    assert "grad_fn=Mul" in repr(y) and "2., 4." in repr(y)
    assert repr(y.grad_fn) == "<Mul>"
    assert mt.Tensor([[3.5]]).item() == 3.5
    assert isinstance(x.numpy(), np.ndarray) and len(x) == 2
    with pytest.raises(ValueError, match=r"one-element.*\(2,\)"):
        x.item()
    with pytest.raises(TypeError, match="floating-point"):
        mt.Tensor(np.array([1, 2]), dtype=np.int64, requires_grad=True)


@pytest.mark.task1_4
def test_the_data_is_copied_in():
    source = np.ones(3)
    t = mt.Tensor(source)
    source[0] = 5.0
    assert t.data[0] == 1.0


@pytest.mark.task1_4
def test_backward_needs_grad_for_non_scalars_and_never_modifies_it():
    x = mt.Tensor(np.ones((2, 3)), requires_grad=True)
    y = x * 3
    with pytest.raises(RuntimeError, match=r"shape \(2, 3\) needs a grad"):
        y.backward()
    with pytest.raises(ValueError, match=r"\(3,\).*\(2, 3\)"):
        y.backward(np.ones(3))
    upstream = np.full((2, 3), 2.0)
    y.backward(upstream)
    x.backward(upstream)  # a leaf as the root: its grad must not alias upstream
    x.grad *= 10
    np.testing.assert_array_equal(upstream, np.full((2, 3), 2.0))
    with pytest.raises(RuntimeError, match="does not require grad"):
        mt.Tensor([1.0]).backward()


@pytest.mark.task1_4
def test_gradients_accumulate_and_only_leaves_keep_them():
    x = mt.Tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    z = (y + y).sum()  # y used twice
    z.backward()
    np.testing.assert_array_equal(x.grad, [4.0, 8.0])
    z.backward()
    np.testing.assert_array_equal(x.grad, [8.0, 16.0])
    assert y.grad is None  # not a leaf
    x.zero_grad()
    assert x.grad is None


@pytest.mark.task1_4
def test_ten_thousand_op_tensor_chain():
    x = mt.Tensor(np.ones(3), requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    y.sum().backward()
    np.testing.assert_allclose(x.grad, np.full(3, 1.0001 ** 10_000), rtol=1e-9)


@pytest.mark.task1_4
def test_no_grad_records_nothing_and_restores():
    x = mt.Tensor([1.0], requires_grad=True)
    with mt.no_grad():
        assert not mt.is_grad_enabled()
        y = x * 2
    assert mt.is_grad_enabled()
    assert y.grad_fn is None and not y.requires_grad
    with pytest.raises(ZeroDivisionError):
        with mt.no_grad():
            _ = 1 / 0
    assert mt.is_grad_enabled()
    z = x.detach() * 2
    assert z.grad_fn is None


@pytest.mark.task1_4
def test_inputs_not_requiring_grad_get_none():
    x = mt.Tensor([1.0, 2.0], requires_grad=True)
    c = mt.Tensor([3.0, 4.0])
    (x * c).sum().backward()
    assert c.grad is None
    np.testing.assert_array_equal(x.grad, [3.0, 4.0])


class BadShape(Function):
    @staticmethod
    def forward(ctx: Context, a, b):
        return a + b

    @staticmethod
    def backward(ctx: Context, grad):
        return grad, grad  # forgets to unbroadcast


class BadDtype(Function):
    @staticmethod
    def forward(ctx: Context, x):
        return x * 2

    @staticmethod
    def backward(ctx: Context, grad):
        return grad * np.float64(2.0) * np.ones(1)  # float64 array sneaks in


class BadCount(Function):
    @staticmethod
    def forward(ctx: Context, a, b):
        return a * b

    @staticmethod
    def backward(ctx: Context, grad):
        return grad


@pytest.mark.task2_3
def test_engine_names_the_op_and_input_of_a_wrong_gradient():
    a = mt.Tensor(np.ones((4, 3)), requires_grad=True)
    b = mt.Tensor(np.ones(3), requires_grad=True)
    with pytest.raises(ValueError, match=r"BadShape.backward.*input 1 \(`b`\) has shape \(4, 3\), "
                                         r"but that input has shape \(3,\).*unbroadcast"):
        BadShape.apply(a, b).sum().backward()
    x = mt.Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    with pytest.raises(TypeError, match=r"BadDtype.backward.*`x`.*float64.*float32"):
        BadDtype.apply(x).sum().backward()
    with pytest.raises(RuntimeError, match=r"BadCount.backward returned 1 gradient.*2 input"):
        BadCount.apply(a, a).sum().backward()


@pytest.mark.task1_4
def test_errors_leave_nothing_half_built():
    x = mt.Tensor(np.ones((2, 3)), requires_grad=True)
    with pytest.raises(ValueError):
        x + mt.Tensor(np.ones(4))
    (x * 1).sum().backward()
    np.testing.assert_array_equal(x.grad, np.ones((2, 3)))


@pytest.mark.task1_4
def test_gradcheck_passes_good_and_names_bad():
    rng = np.random.default_rng(0)
    a = mt.Tensor(rng.standard_normal((3, 4)), requires_grad=True)
    b = mt.Tensor(rng.standard_normal(4), requires_grad=True)
    assert mt.gradcheck(lambda p, q: (p * q).softmax(axis=0) @ q, [a, b])
    with pytest.raises(mt.GradcheckError, match=r"input 1 \(shape \(4,\)\), element \(0,\).*backward gives"):
        mt.gradcheck(lambda p, q: BadScale.apply(p, q), [a, b])
    with pytest.raises(ValueError, match="requires_grad"):
        mt.gradcheck(lambda p: p * 2, [mt.Tensor([1.0])])
    f32 = mt.Tensor(np.ones(2, dtype=np.float32), requires_grad=True)
    assert mt.gradcheck(lambda p: (p * p).sum(), [f32]) and f32.dtype == np.float32


def test_numerical_grads_match_known_derivatives_and_leave_the_inputs_alone():
    a, b = np.array([[1.0], [2.0]]), np.array([3.0, -4.0, 5.0])
    upstream = np.arange(6.0).reshape(2, 3)
    kept = a.copy(), b.copy()
    grad_a, grad_b = mt.numerical_grads(np.multiply, [a, b], upstream)
    np.testing.assert_allclose(grad_a, (upstream * b).sum(axis=1, keepdims=True), atol=1e-6)
    np.testing.assert_allclose(grad_b, (upstream * a).sum(axis=0), atol=1e-6)
    assert np.array_equal(a, kept[0]) and np.array_equal(b, kept[1])
    (slope,) = mt.numerical_grads(np.sin, [0.3])  # numbers work too; upstream defaults to ones
    assert slope.shape == () and abs(slope - np.cos(0.3)) < 1e-9
    (tie,) = mt.numerical_grads(lambda v: np.maximum(v, 1.0), [np.array([1.0])])
    assert np.allclose(tie, 0.5)  # at a tie, central differences split the gradient in half


class BadScale(Function):
    @staticmethod
    def forward(ctx: Context, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx: Context, grad):
        a, b = ctx.saved
        return grad * b, (grad * a).sum(axis=0) * 2  # b's gradient off by a factor of 2
