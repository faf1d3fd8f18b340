"""Stage 7 of the reference: where, layer_norm, attention, the GPT, the names and the
training loop, against central differences of independent NumPy functions and, where
PyTorch is installed, against PyTorch with the same weights."""

import math

import numpy as np
import pytest
from numeric import numeric_vjp

import minitorch as mt
from minitorch import language, nn, optim


def np_layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps) * w + b


@pytest.mark.task7_1
@pytest.mark.parametrize("shape", [(4,), (3, 5), (2, 3, 6), (2, 1, 3)])
def test_layer_norm_gradients_match_central_differences(shape):
    rng = np.random.default_rng(len(shape))
    arrays = [rng.standard_normal(shape) * 2 + 1, rng.standard_normal(shape[-1:]), rng.standard_normal(shape[-1:])]
    tensors = [mt.Tensor(a, requires_grad=True) for a in arrays]
    out = mt.layer_norm(*tensors)
    upstream = rng.standard_normal(shape)
    out.backward(upstream)
    assert np.allclose(out.data, np_layer_norm(*arrays), atol=1e-12)
    for t, i in zip(tensors, range(3)):
        assert np.allclose(t.grad, numeric_vjp(np_layer_norm, arrays, upstream, i), rtol=1e-5, atol=1e-7)


@pytest.mark.task7_1
def test_layer_norm_keeps_float32_and_checks_shapes():
    x = mt.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3), requires_grad=True)
    w, b = mt.Tensor(np.ones(3, np.float32), requires_grad=True), mt.Tensor(np.zeros(3, np.float32), requires_grad=True)
    y = mt.layer_norm(x, w, b)
    y.backward(np.ones((2, 3), np.float32))
    assert y.dtype == x.grad.dtype == w.grad.dtype == np.float32
    with pytest.raises(ValueError, match="last axis"):
        mt.layer_norm(x, mt.Tensor(np.ones(4)), mt.Tensor(np.zeros(4)))


def test_where_sends_the_gradient_to_the_chosen_side_and_sums_back():
    rng = np.random.default_rng(0)
    cond = rng.random((2, 3)) > 0.5
    a, b = mt.Tensor(rng.standard_normal(3), requires_grad=True), mt.Tensor(rng.standard_normal((2, 1)), requires_grad=True)
    g = rng.standard_normal((2, 3))
    out = mt.where(cond, a, b)
    out.backward(g)
    assert np.array_equal(out.data, np.where(cond, a.data, b.data))
    assert np.allclose(a.grad, np.where(cond, g, 0).sum(0)) and np.allclose(b.grad, np.where(cond, 0, g).sum(1, keepdims=True))


def np_attention(x, layer, heads):
    B, T, D = x.shape
    d = D // heads
    lin = lambda a, m: a @ m.weight.data.T + m.bias.data  # noqa: E731
    q, k, v = (lin(x, m).reshape(B, T, heads, d).transpose(0, 2, 1, 3) for m in (layer.query, layer.key, layer.value))
    s = np.where(np.tril(np.ones((T, T), bool)), q @ k.transpose(0, 1, 3, 2) / math.sqrt(d), -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return lin((p @ v).transpose(0, 2, 1, 3).reshape(B, T, D), layer.proj)


@pytest.mark.task7_2
@pytest.mark.parametrize("heads", [1, 2, 4])
def test_attention_matches_numpy_is_causal_and_has_gradients(heads):
    mt.manual_seed(heads)
    layer = nn.CausalSelfAttention(8, heads)
    rng = np.random.default_rng(heads)
    x = rng.standard_normal((2, 5, 8))
    out = layer(mt.Tensor(x))
    assert np.allclose(out.data, np_attention(x, layer, heads), atol=1e-12)
    later = x.copy()
    later[:, 2:] += 1
    assert np.allclose(layer(mt.Tensor(later)).data[:, :2], out.data[:, :2])
    tx = mt.Tensor(x, requires_grad=True)
    g = rng.standard_normal(x.shape)
    layer(tx).backward(g)
    assert np.allclose(tx.grad, numeric_vjp(lambda a: np_attention(a, layer, heads), [x], g, 0), atol=1e-6)


@pytest.mark.task7_3
def test_gpt_shapes_parameters_and_causality():
    mt.manual_seed(0)
    model = nn.GPT(vocab_size=11, block_size=6, dim=16, heads=4, layers=3)
    assert len(model.parameters()) == 2 + 3 * 16 + 2 + 2
    idx = np.random.default_rng(0).integers(0, 11, (2, 6))
    logits = model(idx)
    assert logits.shape == (2, 6, 11)
    changed = idx.copy()
    changed[:, 4:] = (changed[:, 4:] + 1) % 11
    assert np.allclose(model(changed).data[:, :4], logits.data[:, :4])
    with pytest.raises(ValueError, match="block_size"):
        model(np.zeros((1, 7), dtype=np.int64))


@pytest.mark.task7_3
def test_block_is_pre_norm_residual_with_the_tanh_gelu_mlp():
    """With the attention branch set to output 0, Block(x) = x + down(gelu(up(ln2(x)))) with
    GELU's tanh form (as GPT-2), not the exact one; and the gradient of x matches central
    differences of that NumPy function."""
    mt.manual_seed(2)
    block = nn.Block(8, 2)
    block.attn.proj.weight.data[...] = 0.0
    block.attn.proj.bias.data[...] = 0.0
    block.ln2.weight.data[...] = np.random.default_rng(1).standard_normal(8)
    x = np.random.default_rng(2).standard_normal((2, 3, 8))
    up, down = (np.array(block.up.weight.data), np.array(block.up.bias.data)), \
        (np.array(block.down.weight.data), np.array(block.down.bias.data))
    ln = np.array(block.ln2.weight.data), np.array(block.ln2.bias.data)

    def np_block(a, cdf):
        u = np_layer_norm(a, *ln) @ up[0].T + up[1]
        return a + (u * cdf(u)) @ down[0].T + down[1]

    tanh_cdf = lambda u: 0.5 * (1 + np.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))  # noqa: E731
    exact_cdf = lambda u: 0.5 * (1 + np.vectorize(math.erf)(u / math.sqrt(2)))  # noqa: E731
    tx = mt.Tensor(x, requires_grad=True)
    out = block(tx)
    assert np.allclose(out.data, np_block(x, tanh_cdf), atol=1e-12)
    assert np.abs(out.data - np_block(x, exact_cdf)).max() > 1e-6  # the two forms are told apart
    g = np.random.default_rng(3).standard_normal(x.shape)
    out.backward(g)
    assert np.allclose(tx.grad, numeric_vjp(lambda a: np_block(a, tanh_cdf), [x], g, 0), rtol=1e-5, atol=1e-7)


@pytest.mark.task7_4
def test_generate_is_greedy_at_temperature_zero_and_uses_only_the_window():
    mt.manual_seed(0)
    model = nn.GPT(vocab_size=5, block_size=3, dim=8, heads=2, layers=1)
    out = model.generate(np.zeros((2, 1), dtype=np.int64), 6, temperature=0)
    assert out.shape == (2, 7) and np.array_equal(out[0], out[1])
    sampled = model.generate(np.zeros((3, 4), dtype=np.int64), 2, temperature=1.0, rng=np.random.default_rng(0))
    assert sampled.shape == (3, 6) and sampled.min() >= 0 and sampled.max() < 5


@pytest.mark.task7_4
def test_a_short_seeded_run_learns_the_names():
    names = mt.datasets.names()
    assert len(names) > 30000 and all(n == n.strip().lower() for n in names[:100])
    vocab = language.vocabulary(names)
    assert vocab[0] == "." and len(vocab) == 27
    stream = language.encode(names[:3000], vocab)
    assert language.decode(language.encode(names[:5], vocab), vocab) == names[:5]
    mt.manual_seed(0)
    model = nn.GPT(len(vocab), block_size=8, dim=32, heads=2, layers=1)
    losses = language.train(model, optim.Adam(model.parameters(), lr=1e-2), stream, 150, 8, 32,
                            np.random.default_rng(0))
    assert losses[0] > 3.0 and np.mean(losses[-20:]) < 2.6




@pytest.mark.torch
def test_layer_norm_attention_and_a_gpt_step_match_pytorch():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((2, 4, 6)), rng.standard_normal(6), rng.standard_normal(6)
    g = rng.standard_normal((2, 4, 6))
    mx = [mt.Tensor(a, requires_grad=True) for a in (x, w, b)]
    mt.layer_norm(*mx).backward(g)
    tx = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    F.layer_norm(tx[0], (6,), tx[1], tx[2], eps=1e-5).backward(torch.tensor(g))
    for m, t in zip(mx, tx):
        assert np.allclose(m.grad, t.grad.numpy(), atol=1e-10)
    # a whole GPT: same weights, same loss, same gradients
    mt.manual_seed(0)
    model = nn.GPT(vocab_size=7, block_size=5, dim=8, heads=2, layers=2)
    idx, target = rng.integers(0, 7, (3, 5)), rng.integers(0, 7, (3, 5))
    loss = language.loss_on(model, idx, target)
    loss.backward()
    params = {id(p): torch.tensor(p.data, requires_grad=True) for p in model.parameters()}
    P = lambda p: params[id(p)]  # noqa: E731
    lin = lambda a, m: a @ P(m.weight).T + P(m.bias)  # noqa: E731
    h = P(model.token.weight)[torch.tensor(idx)] + P(model.position.weight)[torch.arange(5)]
    for blk in model.blocks:
        a = F.layer_norm(h, (8,), P(blk.ln1.weight), P(blk.ln1.bias))
        q, k, v = (lin(a, m).reshape(3, 5, 2, 4).transpose(1, 2) for m in (blk.attn.query, blk.attn.key, blk.attn.value))
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        h = h + lin(att.transpose(1, 2).reshape(3, 5, 8), blk.attn.proj)
        h = h + lin(F.gelu(lin(F.layer_norm(h, (8,), P(blk.ln2.weight), P(blk.ln2.bias)), blk.up), approximate="tanh"),
                     blk.down)
    logits = lin(F.layer_norm(h, (8,), P(model.ln_f.weight), P(model.ln_f.bias)), model.head)
    reference = F.cross_entropy(logits.reshape(15, 7), torch.tensor(target.reshape(15)))
    reference.backward()
    assert abs(loss.item() - reference.item()) < 1e-10
    for p in model.parameters():
        assert np.allclose(p.grad, params[id(p)].grad.numpy(), atol=1e-9)
