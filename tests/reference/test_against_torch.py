"""Random programs run in minitorch and in PyTorch must agree on values and gradients.

Skipped when PyTorch is not installed. Everything runs in float64.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch as mt

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

# Each step takes the program's pool of tensors and appends one more.
UNARY = {
    "exp": (lambda t: (t * 0.3).exp(), lambda t: (t * 0.3).exp()),
    "tanh": (lambda t: t.tanh(), lambda t: t.tanh()),
    "sigmoid": (lambda t: t.sigmoid(), lambda t: t.sigmoid()),
    "relu": (lambda t: t.relu(), lambda t: t.relu()),
    "abs": (lambda t: t.abs(), lambda t: t.abs()),
    "sin": (lambda t: t.sin(), lambda t: t.sin()),
    "gelu": (lambda t: mt.gelu(t), lambda t: torch.nn.functional.gelu(t)),
    "gelu_tanh": (lambda t: mt.gelu(t, "tanh"), lambda t: torch.nn.functional.gelu(t, approximate="tanh")),
    "log_abs": (lambda t: (t.abs() + 0.5).log(), lambda t: (t.abs() + 0.5).log()),
    "sqrt": (lambda t: (t * t + 0.1).sqrt(), lambda t: (t * t + 0.1).sqrt()),
    "softmax": (lambda t: mt.softmax(t, axis=-1), lambda t: torch.softmax(t, dim=-1)),
    "log_softmax": (lambda t: mt.log_softmax(t, axis=0), lambda t: torch.log_softmax(t, dim=0)),
    "sum_keep": (lambda t: t.sum(axis=-1, keepdims=True), lambda t: t.sum(dim=-1, keepdim=True)),
    "mean0": (lambda t: t.mean(axis=0), lambda t: t.mean(dim=0)),
    "max_ties": (lambda t: (t * 2).relu().max(axis=-1, keepdims=True),
                 lambda t: (t * 2).relu().amax(dim=-1, keepdim=True)),
    "min_all": (lambda t: t.min(), lambda t: t.amin()),
    "logsumexp": (lambda t: mt.logsumexp(t, axis=-1, keepdims=True), lambda t: t.logsumexp(dim=-1, keepdim=True)),
    "transpose": (lambda t: t.T, lambda t: t.permute(*reversed(range(t.ndim)))),
    "getitem": (lambda t: t[np.array([0, 0, -1])], lambda t: t[torch.tensor([0, 0, -1])]),
    "step_slice": (lambda t: t[..., ::2], lambda t: t[..., ::2]),
}
BINARY = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "div": (lambda a, b: a / (b * b + 0.5), lambda a, b: a / (b * b + 0.5)),
    "pow": (lambda a, b: (a.abs() + 0.5) ** (b * 0.5), lambda a, b: (a.abs() + 0.5) ** (b * 0.5)),
    "maximum": (lambda a, b: mt.maximum(a.relu(), b.relu()), lambda a, b: torch.maximum(a.relu(), b.relu())),
    "minimum": (lambda a, b: mt.minimum(a, b), lambda a, b: torch.minimum(a, b)),
}
SHAPES = [(3,), (2, 3), (1, 3), (2, 1), (4, 2, 3)]


@settings(max_examples=60)
@given(st.lists(st.tuples(st.sampled_from(sorted(UNARY) + sorted(BINARY)), st.integers(0, 99),
                          st.integers(0, 99)), min_size=1, max_size=8),
       st.integers(0, 2**32 - 1))
def test_random_programs_agree_with_pytorch(steps, seed):
    rng = np.random.default_rng(seed)
    leaves = [rng.standard_normal(s) for s in SHAPES]
    leaves[0][1] = leaves[0][0]  # a tie
    ours = [mt.Tensor(a, requires_grad=True) for a in leaves]
    theirs = [torch.tensor(a, requires_grad=True) for a in leaves]
    pool_m, pool_t = list(ours), list(theirs)
    for name, i, j in steps:
        x_m, x_t = pool_m[i % len(pool_m)], pool_t[i % len(pool_t)]
        y_m, y_t = pool_m[j % len(pool_m)], pool_t[j % len(pool_t)]
        ours_op, theirs_op = UNARY.get(name) or BINARY[name]
        args_m, args_t = ((x_m,), (x_t,)) if name in UNARY else ((x_m, y_m), (x_t, y_t))
        try:
            expected = theirs_op(*args_t)
        except (RuntimeError, IndexError):
            with pytest.raises((ValueError, IndexError)):  # we must refuse too
                ours_op(*args_m)
            continue
        result = ours_op(*args_m)
        np.testing.assert_allclose(result.data, expected.detach().numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=name)
        pool_m.append(result)
        pool_t.append(expected)
    upstream = rng.standard_normal(pool_m[-1].shape)
    pool_m[-1].backward(upstream)
    pool_t[-1].backward(torch.tensor(upstream))
    for m, t in zip(ours, theirs):
        if t.grad is None:
            assert m.grad is None or not np.any(m.grad)
        else:
            np.testing.assert_allclose(m.grad, t.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("a_shape, b_shape", [((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)),
                                              ((4, 1, 2, 3), (5, 3, 2)), ((3,), (4, 3, 2)),
                                              ((2, 2, 3), (3,))])
def test_matmul_agrees(a_shape, b_shape):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    ma, mb = mt.Tensor(a, requires_grad=True), mt.Tensor(b, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    out_m, out_t = ma @ mb, ta @ tb
    upstream = rng.standard_normal(out_t.shape)
    out_m.backward(upstream)
    out_t.backward(torch.tensor(upstream))
    np.testing.assert_allclose(out_m.data, out_t.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ma.grad, ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(mb.grad, tb.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("by_index", [True, False])
def test_cross_entropy_agrees(reduction, by_index):
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((5, 4)) * 3
    target = rng.integers(0, 4, 5) if by_index else rng.dirichlet(np.ones(4), 5) * 1.3
    lm = mt.Tensor(logits, requires_grad=True)
    lt = torch.tensor(logits, requires_grad=True)
    tm = target if by_index else mt.Tensor(target, requires_grad=True)
    tt = torch.tensor(target) if by_index else torch.tensor(target, requires_grad=True)
    out_m = mt.cross_entropy(lm, tm, reduction)
    out_t = torch.nn.functional.cross_entropy(lt, tt, reduction=reduction)
    upstream = rng.standard_normal(out_t.shape)
    out_m.backward(upstream)
    out_t.backward(torch.tensor(upstream))
    np.testing.assert_allclose(out_m.data, out_t.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(lm.grad, lt.grad.numpy(), rtol=1e-10, atol=1e-14)
    if not by_index:
        np.testing.assert_allclose(tm.grad, tt.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("name, kwargs", [
    ("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.05, momentum=0.9, weight_decay=0.01)),
    ("Adam", dict(lr=0.01)), ("Adam", dict(lr=0.02, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1))])
def test_optimizers_agree(name, kwargs):
    rng = np.random.default_rng(2)
    start = rng.standard_normal((3, 2))
    p_m = mt.nn.Parameter(start)
    p_t = torch.nn.Parameter(torch.tensor(start))
    opt_m = getattr(mt.optim, name)([p_m], **kwargs)
    opt_t = getattr(torch.optim, name)([p_t], **kwargs)
    for _ in range(10):
        target = rng.standard_normal((3, 2))
        for p, opt, lib in ((p_m, opt_m, mt), (p_t, opt_t, torch)):
            opt.zero_grad()
            t = mt.Tensor(target) if lib is mt else torch.tensor(target)
            ((p - t) ** 3).abs().sum().backward()
            opt.step()
    np.testing.assert_allclose(p_m.data, p_t.detach().numpy(), rtol=1e-10)


def test_linear_layer_agrees_when_weights_are_copied():
    layer_m = mt.nn.Linear(4, 3)
    layer_t = torch.nn.Linear(4, 3, dtype=torch.float64)
    with torch.no_grad():
        layer_t.weight.copy_(torch.tensor(layer_m.weight.data))
        layer_t.bias.copy_(torch.tensor(layer_m.bias.data))
    x = np.random.default_rng(3).standard_normal((5, 4))
    out_m, out_t = layer_m(mt.Tensor(x)), layer_t(torch.tensor(x))
    np.testing.assert_allclose(out_m.data, out_t.detach().numpy(), rtol=1e-12)
    out_m.sum().backward()
    out_t.sum().backward()
    np.testing.assert_allclose(layer_m.weight.grad, layer_t.weight.grad.numpy(), rtol=1e-12)
