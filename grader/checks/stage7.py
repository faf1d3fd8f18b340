"""Stage 7, its parts: layer norm's fused backward (its known mistakes in
``mistakes/stage7.py``) and causal self-attention (the Block, the GPT, the training step
and sampling are in ``stage7_gpt.py``). Expected values come from NumPy versions written here."""

from __future__ import annotations

import math

import numpy as np

from grader.checks import part
from grader.checks.common import CheckFailure, call_learner, explain
from grader.checks.mistakes import fits_value, predict_value, value_mistakes
from grader.checks.naming import name_value_mistake
from grader.checks.reference import attention_weights, layer_norm, numpy_attention
from grader.checks.rules import check_float32, check_rule

LN_SHAPES = [(3, 5), (2, 3, 4), (6,), (2, 1, 7)]


def _ln_part(inputs):
    def check(w, rng):
        for shape in LN_SHAPES:
            x = rng.standard_normal(shape) * 2 + 0.5
            weight, bias = rng.standard_normal(shape[-1:]), rng.standard_normal(shape[-1:])
            check_rule(w, "ops_norm.LayerNorm", layer_norm, [x, weight, bias], rng, differentiable=inputs,
                       label=f" on x of shape {shape}", rtol=1e-5, atol=1e-7)
        check_float32(w, "ops_norm.LayerNorm", [np.ones((2, 3)) * [1, 2, 4], np.ones(3), np.zeros(3)], layer_norm,
                      differentiable=inputs)
    return check


part("7.1", "gradient for x")(_ln_part([0]))
part("7.1", "gradients for weight and bias")(_ln_part([1, 2]))


def _attention_outs(seen, what, shape):
    """The learner's attention outputs as arrays, or the failure that explains what came instead."""
    outs = seen.get("outs") if isinstance(seen, dict) else None
    bad = next((o for o in outs if isinstance(o, dict) or o is None), False) if isinstance(outs, list) else None
    if bad is not False:
        explain(what, bad, np.zeros(shape))
    return [np.asarray(o) for o in outs or []]   # a list here: anything else failed above


def _attention_part(heads):
    def check(w, rng):
        dim, T = 8, 5
        weights = attention_weights(rng, dim)
        x = rng.standard_normal((2, T, dim))
        what = f"CausalSelfAttention({dim}, heads={heads}) on x of shape {x.shape}"
        seen = call_learner(w, "attention", what, dim=dim, heads=heads, weights=weights, xs=[x])
        got = _attention_outs(seen, what, x.shape)[0]
        if got.shape != x.shape:
            explain(what, got, x)
        case = {"x": x, "weights": weights, "heads": heads}
        if _makes(got, case, "mask one short"):
            return  # no position sees itself: the "causal" part charges the mask
        try:
            _judge_heads(seen, what, got, x, weights, heads)
        except CheckFailure:
            _name_attention(what, got, case)
            raise
    return check


def _makes(got, case, name):
    """Whether the output is what the known mistake ``name`` of attention computes on this case."""
    return any(fits_value(got, predicted, None, 1e-6, 1e-8) for m in value_mistakes("attention") if m.name == name
               and (predicted := predict_value(m, case)))


def _name_attention(what, got, case):
    """Raise the known mistake whose output ``got`` is, if one is."""
    expected = numpy_attention(case["x"], case["weights"], case["heads"])
    name_value_mistake("attention", case, f"{what}, the output", got, expected, 1e-6, 1e-8 * max(np.abs(expected).max(), 1e-3))


def _judge_heads(seen, what, got, x, weights, heads):
    """The last position's output (no mask changes it) and the kept weights."""
    d = x.shape[-1] // heads
    # The last position sees every position, so no mask, right or wrong, changes its output:
    # a mask bug is charged to the "causal" part alone.
    last = got[:, -1]
    scale = 1 / math.sqrt(d)
    if _mask_flipped(got, x, weights, heads, scale):
        return  # the last position saw only itself: the "causal" part charges the mask; the heads are right
    matches = lambda scale: np.allclose(  # noqa: E731
        last, numpy_attention(x, weights, heads, scale=scale)[:, -1], rtol=1e-6, atol=1e-8)
    if heads == 1 and matches(1.0):
        raise CheckFailure(f"{what}: the scores are not scaled by 1/sqrt(d) (d = dim // heads, the size of one "
                           "head)", "scale")
    if heads > 1 and not matches(scale):
        if matches(1 / math.sqrt(x.shape[-1])):
            raise CheckFailure(f"{what}: the scores are scaled by 1/sqrt(dim), not 1/sqrt(d) with d = dim // "
                               f"heads = {d}, the size of one head", "scale")
        if matches(1.0):
            scale = 1.0  # the missing scale is the "one head" part's to charge; the heads are right
    expected, att = numpy_attention(x, weights, heads, scale=scale, keep_weights=True)
    explain(f"{what}, the output at the last position (scores scaled by 1/sqrt(d), softmax over the keys, "
            "heads merged, then the output projection)", last, expected[:, -1], rtol=1e-6, atol=1e-8)
    if heads > 1:
        kept = seen.get("last_attention")
        if kept is None or np.shape(kept) != att.shape:
            raise CheckFailure(f"after {what}, self.last_attention holds "
                               f"{'nothing' if kept is None else f'an array of shape {np.shape(kept)}'}: keep "
                               f"the attention weights there, shape (B, H, T, T) = {att.shape}, for notebook "
                               "7's pictures", "last_attention", keep=0.5)
        if not np.allclose(np.asarray(kept)[..., -1, :], att[..., -1, :], rtol=1e-6, atol=1e-8):
            raise CheckFailure(f"after {what}, self.last_attention does not hold the attention weights (the "
                               "softmax of the scaled, masked scores, each row summing to 1)", "last_attention",
                               keep=0.5)
        if (kind := seen.get("last_attention_type")) is not None:
            raise CheckFailure(f"after {what}, self.last_attention holds the right weights, but as a {kind}, not a "
                               "NumPy array: the task asks for the weights' .data. A Tensor kept there holds on to "
                               "the whole graph of the forward (every intermediate array) until the next forward "
                               "(known mistake: a Tensor kept, not its .data). Fix: keep weights.data, the ndarray, in "
                               "self.last_attention", "a Tensor kept, not its .data", keep=0.5)


def _mask_flipped(got, x, weights, heads, scale):
    """Whether the learner's mask is upside down (each position sees itself and the later
    ones): then the last position sees only itself, and the first sees every position, so
    the heads are judged there, against attention without a mask."""
    lin = lambda a, n: a @ weights[f"{n}.weight"].T + weights[f"{n}.bias"]  # noqa: E731
    alone = np.allclose(got[:, -1], lin(lin(x[:, -1], "value"), "proj"), rtol=1e-6, atol=1e-8)
    return alone and np.allclose(got[:, 0], numpy_attention(x, weights, heads, scale=scale, causal=False)[:, 0],
                                 rtol=1e-6, atol=1e-8)


part("7.2", "one head")(_attention_part(1))
part("7.2", "several heads")(_attention_part(4))


@part("7.2", "causal")
def attention_is_causal(w, rng):
    dim, heads, T = 8, 1, 6  # one head, so that a bug in merging heads is charged to "several heads" only
    weights = attention_weights(rng, dim)
    x = rng.standard_normal((1, T, dim))
    later = x.copy()
    later[:, 3:] = rng.standard_normal((1, T - 3, dim))
    seen = call_learner(w, "attention", "CausalSelfAttention on two inputs that differ from position 3 on",
                        dim=dim, heads=heads, weights=weights, xs=[x, later])
    what = f"CausalSelfAttention({dim}, heads={heads}) on x of shape {x.shape}"
    out, changed = _attention_outs(seen, what, x.shape)
    for got in (out, changed):
        if got.shape != x.shape:
            explain(what, got, x)
    try:
        if not np.allclose(out[:, :3], changed[:, :3], rtol=1e-9, atol=1e-12):
            raise CheckFailure("CausalSelfAttention lets a position see the future: changing the tokens at positions 3 "
                               "and later changed the outputs at positions 0 to 2 (mask the scores of later keys "
                               "before the softmax)", "future leaks into the past")
        # Position 0 sees only itself, with weight 1 whatever the scale: its output is proj(value(x_0)).
        lin = lambda a, n: a @ weights[f"{n}.weight"].T + weights[f"{n}.bias"]  # noqa: E731
        if not np.allclose(out[:, 0], lin(lin(x[:, 0], "value"), "proj"), rtol=1e-6, atol=1e-8):
            raise CheckFailure("CausalSelfAttention: position 0 may see only itself, so all its attention weight is on "
                               "itself and its output is proj(value(x[:, 0])), but it is not: the weights of each row must "
                               "sum to 1 over the positions it may see (mask the scores before the softmax, not the "
                               "weights after it)", "masked after the softmax")
    except CheckFailure:
        _name_attention(what, out, {"x": x, "weights": weights, "heads": heads})
        raise
