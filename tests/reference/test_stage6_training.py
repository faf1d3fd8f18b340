"""Stage 6: Module, Linear, MLP, SGD, Adam and the training loop."""

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn, optim, training


# ---- Task 6.1 ------------------------------------------------------------------------
class Block(nn.Module):
    def __init__(self):
        self.first = nn.Linear(3, 4)
        self.stack = [nn.Linear(4, 4), {"inner": nn.Linear(4, 2, bias=False)}]
        self.scale = nn.Parameter(np.ones(2))
        self.again = self.first  # shared: counted once
        self.not_a_param = mt.Tensor(np.ones(2), requires_grad=True)


@pytest.mark.task6_1
def test_parameters_are_found_in_nested_modules_once():
    block = Block()
    params = block.parameters()
    expected = [block.first.weight, block.first.bias, block.stack[0].weight, block.stack[0].bias,
                block.stack[1]["inner"].weight, block.scale]
    assert [id(p) for p in params] == [id(p) for p in expected]
    block.zero_grad()
    assert all(p.grad is None for p in params)


@pytest.mark.task6_1
def test_linear_matches_its_formula_and_pytorch_layout():
    mt.manual_seed(1)
    layer = nn.Linear(5, 3)
    assert layer.weight.shape == (3, 5) and layer.bias.shape == (3,)
    bound = 1 / np.sqrt(5)
    assert np.all(np.abs(layer.weight.data) <= bound) and np.all(np.abs(layer.bias.data) <= bound)
    assert layer.weight.data.std() > bound / 4  # not all zeros, not tiny
    x = np.random.default_rng(0).standard_normal((7, 5))
    out = layer(mt.Tensor(x))
    np.testing.assert_allclose(out.data, x @ layer.weight.data.T + layer.bias.data)
    out.sum().backward()
    np.testing.assert_allclose(layer.weight.grad, np.ones((7, 3)).T @ x)
    np.testing.assert_allclose(layer.bias.grad, np.full(3, 7.0))
    with pytest.raises(ValueError, match=r"Linear\(5, 3\).*\(7, 4\)"):
        layer(mt.Tensor(np.ones((7, 4))))


@pytest.mark.task6_1
def test_seed_makes_initialisation_reproducible():
    mt.manual_seed(3)
    a = nn.MLP([2, 4, 1])
    mt.manual_seed(3)
    b = nn.MLP([2, 4, 1])
    for p, q in zip(a.parameters(), b.parameters()):
        np.testing.assert_array_equal(p.data, q.data)


@pytest.mark.task6_1
@pytest.mark.parametrize("activation, fn", [("relu", lambda z: np.maximum(z, 0)), ("tanh", np.tanh)])
def test_mlp_forward_is_layers_with_activation_between(activation, fn):
    model = nn.MLP([2, 6, 5, 3], activation=activation, dtype=np.float32)
    assert len(model.parameters()) == 6
    assert all(p.dtype == np.float32 for p in model.parameters())
    x = np.random.default_rng(0).standard_normal((4, 2)).astype(np.float32)
    h = x
    for i, layer in enumerate(model.layers):
        h = h @ layer.weight.data.T + layer.bias.data
        if i < 2:
            h = fn(h)
    out = model(mt.Tensor(x))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.data, h, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="activation"):
        nn.MLP([2, 3], activation="swish")


# ---- Task 6.2 and 6.3: the formulas of torch.optim, written out independently --------
def sgd_reference(p, grads, lr, momentum, weight_decay):
    buffer = None
    for g in grads:
        g = g + weight_decay * p
        if momentum:
            buffer = g if buffer is None else momentum * buffer + g
            g = buffer
        p = p - lr * g
    return p


def adam_reference(p, grads, lr, betas, eps, weight_decay):
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    for t, g in enumerate(grads, start=1):
        g = g + weight_decay * p
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        m_hat = m / (1 - betas[0] ** t)
        v_hat = v / (1 - betas[1] ** t)
        p = p - lr * m_hat / (np.sqrt(v_hat) + eps)
    return p


def run(optimizer_class, grads, start, **kwargs):
    p = nn.Parameter(start)
    opt = optimizer_class([p], **kwargs)
    for g in grads:
        opt.zero_grad()
        p.grad = g.copy()
        opt.step()
    return p.data


GRADS = [np.random.default_rng(i).standard_normal((3, 2)) for i in range(6)]
START = np.random.default_rng(9).standard_normal((3, 2))


@pytest.mark.task6_2
@pytest.mark.parametrize("momentum", [0.0, 0.9])
@pytest.mark.parametrize("weight_decay", [0.0, 0.01])
def test_sgd_follows_torch_formula(momentum, weight_decay):
    got = run(optim.SGD, GRADS, START, lr=0.1, momentum=momentum, weight_decay=weight_decay)
    np.testing.assert_allclose(got, sgd_reference(START, GRADS, 0.1, momentum, weight_decay), rtol=1e-12)


@pytest.mark.task6_3
@pytest.mark.parametrize("weight_decay", [0.0, 0.1])
def test_adam_follows_torch_formula(weight_decay):
    kwargs = dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=weight_decay)
    got = run(optim.Adam, GRADS, START, **kwargs)
    np.testing.assert_allclose(got, adam_reference(START, GRADS, **kwargs), rtol=1e-10)


@pytest.mark.parametrize("cls", [pytest.param(optim.SGD, marks=pytest.mark.task6_2),
                                 pytest.param(optim.Adam, marks=pytest.mark.task6_3)])
def test_optimizers_keep_float32_and_skip_missing_grads(cls):
    p = nn.Parameter(np.ones(3, dtype=np.float32))
    idle = nn.Parameter(np.ones(2))
    opt = cls([p, idle], lr=0.1, weight_decay=0.1, **({"momentum": 0.5} if cls is optim.SGD else {}))
    for _ in range(3):
        p.grad = np.full(3, 0.5, dtype=np.float32)
        opt.step()
    assert p.data.dtype == np.float32 and np.all(p.data < 1)
    np.testing.assert_array_equal(idle.data, np.ones(2))


@pytest.mark.task6_2
def test_optimizer_errors():
    with pytest.raises(ValueError, match="no parameters"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="learning rate"):
        optim.Adam([nn.Parameter([1.0])], lr=-1)


# ---- Task 6.4 ------------------------------------------------------------------------
def blobs(n, rng):
    centers = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.5]])
    y = rng.integers(0, 3, n)
    return centers[y] + 0.5 * rng.standard_normal((n, 2)), y


@pytest.mark.task6_4
def test_training_loop_steps_once_per_batch_and_learns():
    rng = np.random.default_rng(0)
    x, y = blobs(200, rng)
    mt.manual_seed(0)
    model = nn.MLP([2, 16, 3])
    opt = optim.SGD(model.parameters(), lr=0.1)
    calls = []
    original = opt.step
    opt.step = lambda: (calls.append(1), original())
    history = training.fit(model, mt.cross_entropy, opt, x, y, epochs=15, batch_size=32,
                           validation=blobs(100, rng))
    assert len(calls) == 15 * 7  # ceil(200 / 32) batches per epoch
    assert history["train"][-1] < 0.5 * history["train"][0]
    assert history["val"][-1] < 0.2
    with mt.no_grad():
        accuracy = np.mean(model(mt.Tensor(x)).data.argmax(axis=1) == y)
    assert accuracy > 0.95


@pytest.mark.task6_4
def test_train_epoch_returns_the_mean_batch_loss_and_zeroes_gradients():
    x = np.ones((10, 1))
    y = np.zeros((10, 1))
    model = nn.Linear(1, 1)
    model.weight.data[:] = 1.0
    model.bias.data[:] = 0.0
    opt = optim.SGD(model.parameters(), lr=0.0)  # no update: every batch has loss 1
    assert training.train_epoch(model, mt.mse_loss, opt, x, y, 4, np.random.default_rng(0)) == pytest.approx(1.0)
    # Had the gradients accumulated across batches, the last batch's would be the sum.
    np.testing.assert_allclose(model.weight.grad, [[2.0]])
