"""Stage 1: central differences, scalar derivatives, topological order, the engine."""

import math
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import minitorch as mt

finite = st.floats(-3, 3, allow_nan=False)


def numeric(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


# ---- Task 1.1 ------------------------------------------------------------------------
@pytest.mark.task1_1
@given(finite, finite)
def test_central_difference_matches_known_derivatives(x, y):
    assert mt.central_difference(math.sin, x) == pytest.approx(math.cos(x), abs=1e-6)
    f = lambda a, b: a * a * b + b  # noqa: E731
    assert mt.central_difference(f, x, y, arg=0) == pytest.approx(2 * x * y, abs=1e-5)
    assert mt.central_difference(f, x, y, arg=1) == pytest.approx(x * x + 1, abs=1e-5)


@pytest.mark.task1_1
def test_central_difference_is_central_not_one_sided():
    # For x**2 the central difference is exact up to rounding; a one-sided one is off by eps.
    assert mt.central_difference(lambda x: x * x, 1.0, eps=1e-3) == pytest.approx(2.0, abs=1e-9)


@pytest.mark.task1_1
def test_central_difference_rejects_bad_arg():
    with pytest.raises(IndexError, match="arg=2"):
        mt.central_difference(lambda a, b: a + b, 1.0, 2.0, arg=2)


# ---- Task 1.2 ------------------------------------------------------------------------
UNARY = {
    "neg": (lambda s: -s, lambda x: -x, finite),
    "exp": (lambda s: s.exp(), math.exp, finite),
    "log": (lambda s: s.log(), math.log, st.floats(0.1, 5)),
    "sin": (lambda s: s.sin(), math.sin, finite),
    "cos": (lambda s: s.cos(), math.cos, finite),
    "tanh": (lambda s: s.tanh(), math.tanh, finite),
    "sigmoid": (lambda s: s.sigmoid(), lambda x: 1 / (1 + math.exp(-x)), finite),
    "relu": (lambda s: s.relu(), lambda x: max(x, 0.0), finite.filter(lambda x: abs(x) > 1e-3)),
    "pow3": (lambda s: s ** 3, lambda x: x ** 3, finite),
    "pow_half": (lambda s: s ** 0.5, math.sqrt, st.floats(0.1, 5)),
    "pow_neg": (lambda s: s ** -2, lambda x: x ** -2, st.floats(0.2, 5)),
}


@pytest.mark.task1_2
@pytest.mark.parametrize("name", sorted(UNARY))
def test_scalar_unary_derivative(name):
    op, reference, values = UNARY[name]

    @given(values)
    def check(x):
        s = mt.Scalar(x)
        out = op(s)
        assert out.data == pytest.approx(reference(x), rel=1e-12, abs=1e-12)
        out.backward()
        assert s.grad == pytest.approx(numeric(reference, x), rel=1e-5, abs=1e-6)

    check()


BINARY = {
    "add": (lambda a, b: a + b, finite),
    "sub": (lambda a, b: a - b, finite),
    "mul": (lambda a, b: a * b, finite),
    "div": (lambda a, b: a / b, st.floats(0.2, 3)),
}


@pytest.mark.task1_2
@pytest.mark.parametrize("name", sorted(BINARY))
def test_scalar_binary_derivatives(name):
    op, values = BINARY[name]

    @given(finite, values)
    def check(x, y):
        a, b = mt.Scalar(x), mt.Scalar(y)
        out = op(a, b)
        assert out.data == pytest.approx(op(x, y))
        out.backward()
        assert a.grad == pytest.approx(numeric(lambda t: op(t, y), x), rel=1e-5, abs=1e-6)
        assert b.grad == pytest.approx(numeric(lambda t: op(x, t), y), rel=1e-5, abs=1e-6)

    check()


@pytest.mark.task1_2
def test_scalar_with_numbers_on_either_side():
    x = mt.Scalar(3.0)
    out = 2 - x * 4 + 1 / x + (x + 1) / 2
    out.backward()
    assert out.data == pytest.approx(2 - 12 + 1 / 3 + 2)
    assert x.grad == pytest.approx(-4 - 1 / 9 + 0.5)


@pytest.mark.task1_2
def test_scalar_errors_are_clear():
    with pytest.raises(TypeError, match="plain number"):
        mt.Scalar(2.0) ** mt.Scalar(2.0)
    with pytest.raises(ValueError, match="positive"):
        mt.Scalar(-1.0).log()
    with pytest.raises(TypeError, match="real number"):
        mt.Scalar("3")


@pytest.mark.task1_2
def test_relu_and_sigmoid_edges():
    zero = mt.Scalar(0.0)
    zero.relu().backward()
    assert zero.grad == 0.0  # as PyTorch
    big = mt.Scalar(-800.0)
    assert big.sigmoid().data == pytest.approx(0.0)  # no OverflowError


# ---- Task 1.3 ------------------------------------------------------------------------
def diamond():
    x = mt.Scalar(2.0, "x")
    a = x * 3
    b = x.exp()
    y = a * b
    return x, a, b, y


@pytest.mark.task1_3
def test_topological_order_puts_every_node_before_its_parents():
    x, a, b, y = diamond()
    order = mt.topological_order(y)
    assert order[0] is y
    assert len(order) == len({id(n) for n in order}) == 5  # y, a, b, x and the constant 3
    position = {id(n): i for i, n in enumerate(order)}
    for node in order:
        for parent in node.parents:
            assert position[id(node)] < position[id(parent)]


@pytest.mark.task1_3
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), min_size=1, max_size=60))
def test_topological_order_on_random_graphs(edges):
    nodes = [mt.Scalar(1.0)]
    for i, j in edges:
        nodes.append(nodes[i % len(nodes)] * nodes[j % len(nodes)])
    order = mt.topological_order(nodes[-1])
    position = {id(n): k for k, n in enumerate(order)}
    assert len(position) == len(order)
    for node in order:
        for parent in node.parents:
            assert position[id(node)] < position[id(parent)]


@pytest.mark.task1_3
def test_topological_order_does_not_recurse():
    x = mt.Scalar(1.0)
    y = x
    steps = 3 * sys.getrecursionlimit()
    for _ in range(steps):
        y = y + 1.0
    order = mt.topological_order(y)
    assert len(order) == 1 + 2 * steps  # x, then a constant and a sum per step
    assert order[0] is y and x in order


# ---- Task 1.4 ------------------------------------------------------------------------
@pytest.mark.task1_4
def test_a_value_used_twice_gets_the_sum():
    x, a, b, y = diamond()
    y.backward()
    # y = 3x e^x, dy/dx = 3 e^x + 3x e^x
    assert x.grad == pytest.approx(3 * math.exp(2) * 3)
    assert a.grad == pytest.approx(b.data) and b.grad == pytest.approx(a.data)


@pytest.mark.task1_4
def test_x_times_x():
    x = mt.Scalar(-1.5)
    (x * x).backward()
    assert x.grad == pytest.approx(-3.0)


@pytest.mark.task1_4
def test_second_backward_accumulates():
    x, _, _, y = diamond()
    y.backward()
    first = x.grad
    y.backward()
    assert x.grad == pytest.approx(2 * first)
    x.zero_grad()
    assert x.grad == 0.0


@pytest.mark.task1_4
def test_ten_thousand_op_chain():
    x = mt.Scalar(0.5)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    y.backward()
    assert x.grad == pytest.approx(1.0001 ** 10_000, rel=1e-9)


def worked_model(x, w1, w2, w3):
    """The stage-1 model in plain floats: the independent reference."""
    a = x ** 2
    b = max(w1 * a + w3, 0.0)
    c = max(w2 * a + w3, 0.0)
    return 4 * math.sin(b + c)


@pytest.mark.task1_4
@given(st.floats(-2, 2), st.floats(-2, 2), st.floats(-2, 2), st.floats(-2, 2))
def test_worked_model_gradients(x, w1, w2, w3):
    a_value = x * x
    for w in (w1, w2):  # stay away from relu's corner, where the derivative jumps
        if abs(w * a_value + w3) < 1e-3:
            return
    params = [mt.Scalar(v) for v in (x, w1, w2, w3)]
    X, W1, W2, W3 = params
    A = X ** 2
    y = 4 * ((W1 * A + W3).relu() + (W2 * A + W3).relu()).sin()
    assert y.data == pytest.approx(worked_model(x, w1, w2, w3))
    y.backward()
    values = [x, w1, w2, w3]
    for i, p in enumerate(params):
        def f(t, i=i):
            v = list(values)
            v[i] = t
            return worked_model(*v)
        assert p.grad == pytest.approx(numeric(f, values[i]), rel=1e-4, abs=1e-5)
