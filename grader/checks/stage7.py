"""Stage 7: layer norm, causal self-attention, the Block and GPT modules, the training
step and sampling. Expected values come from NumPy versions written here."""

from __future__ import annotations

import math

import numpy as np

from . import part
from .common import CheckFailure, call_learner, check_float32, check_rule, explain
from .stage5 import gelu_exact


def layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


LN_SHAPES = [(3, 5), (2, 3, 4), (6,), (2, 1, 7)]


def _ln_part(inputs):
    def check(w, rng):
        for shape in LN_SHAPES:
            x = rng.standard_normal(shape) * 2 + 0.5
            weight, bias = rng.standard_normal(shape[-1:]), rng.standard_normal(shape[-1:])
            check_rule(w, "ops_norm.LayerNorm", layer_norm, [x, weight, bias], rng, differentiable=inputs,
                       label=f" on x of shape {shape}", rtol=1e-5, atol=1e-7)
        check_float32(w, "ops_norm.LayerNorm", [np.ones((2, 3)) * [1, 2, 4], np.ones(3), np.zeros(3)], layer_norm)
    return check


part("7.1", "gradient for x")(_ln_part([0]))
part("7.1", "gradients for weight and bias")(_ln_part([1, 2]))


def _linear_weights(rng, prefix, dim_in, dim_out):
    return {f"{prefix}.weight": rng.standard_normal((dim_out, dim_in)) / math.sqrt(dim_in),
            f"{prefix}.bias": rng.standard_normal(dim_out) * 0.1}


def _attention_weights(rng, dim, prefix=""):
    weights = {}
    for name in ("query", "key", "value", "proj"):
        weights.update(_linear_weights(rng, f"{prefix}{name}", dim, dim))
    return weights


def numpy_attention(x, weights, heads, prefix=""):
    B, T, D = x.shape
    d = D // heads
    lin = lambda a, n: a @ weights[f"{prefix}{n}.weight"].T + weights[f"{prefix}{n}.bias"]  # noqa: E731
    q, k, v = (lin(x, n).reshape(B, T, heads, d).transpose(0, 2, 1, 3) for n in ("query", "key", "value"))
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d)
    scores = np.where(np.tril(np.ones((T, T), bool)), scores, -np.inf)
    att = np.exp(scores - scores.max(-1, keepdims=True))
    att /= att.sum(-1, keepdims=True)
    return lin((att @ v).transpose(0, 2, 1, 3).reshape(B, T, D), "proj")


def _attention_part(heads):
    def check(w, rng):
        dim = 8
        weights = _attention_weights(rng, dim)
        x = rng.standard_normal((2, 5, dim))
        got = call_learner(w, "attention", f"CausalSelfAttention({dim}, {heads}) on x of shape {x.shape}", dim=dim,
                    heads=heads, weights=weights, xs=[x])[0]
        explain(f"CausalSelfAttention({dim}, heads={heads}) on x of shape {x.shape} (scores scaled by 1/sqrt(d), a "
                "causal mask, softmax over the keys, heads merged, then the output projection)", got,
                numpy_attention(x, weights, heads), rtol=1e-6, atol=1e-8)
    return check


part("7.2", "one head")(_attention_part(1))
part("7.2", "several heads")(_attention_part(4))


@part("7.2", "causal")
def attention_is_causal(w, rng):
    dim, heads, T = 8, 1, 6  # one head, so that a bug in merging heads is charged to "several heads" only
    weights = _attention_weights(rng, dim)
    x = rng.standard_normal((1, T, dim))
    later = x.copy()
    later[:, 3:] = rng.standard_normal((1, T - 3, dim))
    out, changed = call_learner(w, "attention", "CausalSelfAttention on two inputs that differ from position 3 on",
                         dim=dim, heads=heads, weights=weights, xs=[x, later])
    if not np.allclose(out[:, :3], changed[:, :3], rtol=1e-9, atol=1e-12):
        raise CheckFailure("CausalSelfAttention lets a position see the future: changing the tokens at positions 3 "
                           "and later changed the outputs at positions 0 to 2 (mask the scores of later keys "
                           "before the softmax)", "future leaks into the past")


def _block_weights(rng, dim, prefix=""):
    weights = {f"{prefix}ln1.weight": 1 + 0.1 * rng.standard_normal(dim), f"{prefix}ln1.bias": 0.1 * rng.standard_normal(dim),
               f"{prefix}ln2.weight": 1 + 0.1 * rng.standard_normal(dim), f"{prefix}ln2.bias": 0.1 * rng.standard_normal(dim)}
    weights.update(_attention_weights(rng, dim, f"{prefix}attn."))
    weights.update(_linear_weights(rng, f"{prefix}up", dim, 4 * dim))
    weights.update(_linear_weights(rng, f"{prefix}down", 4 * dim, dim))
    return weights


def numpy_block(x, weights, heads, prefix=""):
    p = lambda n: weights[prefix + n]  # noqa: E731
    x = x + numpy_attention(layer_norm(x, p("ln1.weight"), p("ln1.bias")), weights, heads, prefix + "attn.")
    h = layer_norm(x, p("ln2.weight"), p("ln2.bias")) @ p("up.weight").T + p("up.bias")
    return x + gelu_exact(h) @ p("down.weight").T + p("down.bias")


@part("7.3", "Block")
def block_forward(w, rng):
    dim, heads = 8, 2
    weights = _block_weights(rng, dim)
    x = rng.standard_normal((2, 4, dim))
    seen = call_learner(w, "block", f"Block({dim}, {heads}) on x of shape {x.shape}", dim=dim, heads=heads, weights=weights, x=x)
    explain(f"Block({dim}, {heads}).forward: x + attn(ln1(x)), then x + mlp(ln2(x)) with a GELU MLP", seen["out"],
            numpy_block(x, weights, heads), rtol=1e-6, atol=1e-8)


@part("7.3", "GPT")
def gpt_forward(w, rng):
    V, block_size, dim, heads, layers = 7, 6, 8, 2, 2
    weights = {"token.weight": rng.standard_normal((V, dim)), "position.weight": rng.standard_normal((block_size, dim)),
               "ln_f.weight": 1 + 0.1 * rng.standard_normal(dim), "ln_f.bias": 0.1 * rng.standard_normal(dim)}
    for i in range(layers):
        weights.update(_block_weights(rng, dim, f"blocks.{i}."))
    weights.update(_linear_weights(rng, "head", dim, V))
    idx = [rng.integers(0, V, (2, 5)), rng.integers(0, V, (1, block_size))]
    sizes = dict(vocab_size=V, block_size=block_size, dim=dim, heads=heads, layers=layers)
    seen = call_learner(w, "gpt", f"GPT({sizes})", sizes=sizes, weights=weights, idx=idx)
    for i, out in zip(idx, seen["out"]):
        x = weights["token.weight"][i] + weights["position.weight"][np.arange(i.shape[1])]
        for k in range(layers):
            x = numpy_block(x, weights, heads, f"blocks.{k}.")
        expected = layer_norm(x, weights["ln_f.weight"], weights["ln_f.bias"]) @ weights["head.weight"].T + \
            weights["head.bias"]
        explain(f"GPT.forward on idx of shape {i.shape}: token plus position embeddings, the blocks, the final "
                "LayerNorm, the head", out, expected, rtol=1e-6, atol=1e-8)


@part("7.4", "training step")
def training_step(w, rng):
    seen = call_learner(w, "train_steps", "language.train for 3 steps with a stand-in model, loss and optimizer", steps=3,
                 block_size=4, batch_size=2)
    if seen["calls"] != ["zero_grad", "forward", "backward", "step"] * 3:
        raise CheckFailure(f"language.train made the calls {seen['calls'][:8]}...: each step needs zero_grad, the "
                           "loss of the model on a batch (language.loss_on), backward of that loss, then step",
                           "zero_grad or order of calls")
    if seen["shapes"] != [[[2, 4], [2, 4]]] * 3 or len(seen["losses"]) != 3:
        raise CheckFailure(f"language.train computed the loss on batches of shapes {seen['shapes']} and returned "
                           f"{len(seen['losses'])} losses, expected (2, 4) windows x and y and one loss per step",
                           "batches")


LOGITS = np.array([2.0, 0.5, -1.0, 1.0])


@part("7.4", "greedy sampling")
def greedy(w, rng):
    seen = call_learner(w, "sample", "GPT.generate with temperature 0", logits=LOGITS, rows=3, steps=6, temperature=0.0,
                 seed=0, block_size=4)
    out = np.asarray(seen["out"])
    if out.shape != (3, 8) or not np.all(out[:, 2:] == 0):
        raise CheckFailure(f"GPT.generate(idx of shape (3, 2), 6, temperature=0) gave {out.tolist()}: temperature 0 "
                           "must pick the most likely token every time, and the result is (B, T + steps)", "greedy")
    if max(seen["widths"]) > 4:
        raise CheckFailure(f"GPT.generate gave the model {max(seen['widths'])} tokens at once with block_size 4: "
                           "feed it only the last block_size tokens", "context too long")


@part("7.4", "temperature")
def temperature(w, rng):
    for t in (0.5, 2.0):
        seen = call_learner(w, "sample", f"GPT.generate with temperature {t}", logits=LOGITS, rows=4000, steps=1,
                     temperature=t, seed=1, block_size=4)
        counts = np.bincount(np.asarray(seen["out"])[:, -1], minlength=4) / 4000
        p = np.exp(LOGITS / t) / np.exp(LOGITS / t).sum()
        if np.abs(counts - p).max() > 0.03:
            raise CheckFailure(f"GPT.generate with temperature {t} drew the tokens with frequencies "
                               f"{np.round(counts, 3).tolist()}, expected about {np.round(p, 3).tolist()} "
                               "(softmax of logits / temperature)", "temperature ignored")
