"""Known mistakes of Task 7.3, the Block and the GPT. Two sites:

* ``"block"``: ``Block.forward``'s output (B, T, D), from ``x`` (B, T, D), ``weights`` (a
  dict: ``"ln1.weight"``, ``"ln1.bias"``, ``"ln2.weight"``, ``"ln2.bias"``, ``"attn.query.weight"``
  ... ``"attn.proj.bias"``, ``"up.weight"``, ``"up.bias"``, ``"down.weight"``, ``"down.bias"``,
  each Linear's weight of shape (out, in)) and ``heads``;
* ``"gpt"``: ``GPT.forward``'s logits (B, T, V), from ``idx`` (B, T), ``weights`` (``"token.weight"``,
  ``"position.weight"``, ``"ln_f.weight"``, ``"ln_f.bias"``, ``"head.weight"``, ``"head.bias"``
  and each block's, ``"blocks.0.ln1.weight"``...; a case without ``blocks.*`` stands for blocks
  that pass x through, both branches giving 0) and ``heads``.

A right Block may take either GELU (the tanh form or the exact one), so a mistake of the
Block that keeps a GELU is predicted with each.
"""

from __future__ import annotations

import numpy as np

from grader.checks.mistakes import ValueMistake
from grader.checks.reference import gelu_exact, gelu_tanh, layer_norm, numpy_attention

GELUS = {"tanh": gelu_tanh, "exact": gelu_exact}


def _block(x, weights, heads, prefix="", *, attn_residual=True, mlp_residual=True, act=gelu_tanh, act_after=False,
           post_norm=False, norms=("ln1", "ln2")):
    """The Block as the mistake computes it."""
    p = lambda n: np.asarray(weights[prefix + n])  # noqa: E731
    norm = lambda a, n: layer_norm(a, p(f"{n}.weight"), p(f"{n}.bias"))  # noqa: E731
    attend = lambda a: numpy_attention(a, weights, heads, prefix + "attn.")  # noqa: E731

    def mlp(a):
        h = a @ p("up.weight").T + p("up.bias")
        if act_after:
            return act(h @ p("down.weight").T + p("down.bias"))
        return act(h) @ p("down.weight").T + p("down.bias")

    x = np.asarray(x, np.float64)
    post = {True: "both", False: ""}.get(post_norm, post_norm)  # which branches normalise the sum: "attention", "mlp"
    if post in ("both", "attention"):
        x = norm(x + attend(x), norms[0])
    else:
        x = (x if attn_residual else 0) + attend(norm(x, norms[0]))
    if post in ("both", "mlp"):
        return norm(x + mlp(x), norms[1])
    return (x if mlp_residual else 0) + mlp(norm(x, norms[1]))


def _gpt(idx, weights, heads, *, positions="arange", final_norm=True):
    """The GPT as the mistake computes it (its blocks right, GELU's tanh form)."""
    idx = np.asarray(idx)
    x = np.asarray(weights["token.weight"])[idx]
    if positions == "arange":
        x = x + np.asarray(weights["position.weight"])[np.arange(idx.shape[1])]
    elif positions == "tokens":
        x = x + np.asarray(weights["position.weight"])[idx]
    layers = sum(1 for name in weights if name.startswith("blocks.") and name.endswith(".ln1.weight"))
    for i in range(layers):
        x = _block(x, weights, heads, f"blocks.{i}.")
    if final_norm:
        x = layer_norm(x, np.asarray(weights["ln_f.weight"]), np.asarray(weights["ln_f.bias"]))
    return x @ np.asarray(weights["head.weight"]).T + np.asarray(weights["head.bias"])


def _block_mistake(name, message, fix, gelu=True, **mistake):
    """The Block's mistake, predicted with each GELU when it keeps one."""
    forms = GELUS.values() if gelu else [None]
    return [ValueMistake("7.3", "block", name, message, fix,
                         lambda x, weights, heads, act=act: _block(x, weights, heads, **mistake, **({"act": act} if act else {})))
            for act in forms]


def _relu(a):
    return np.maximum(a, 0)


VALUE_MISTAKES = [
    *_block_mistake("residual missing around attention",
                 "the first residual is missing: the Block gives attn(ln1(x)), not x + attn(ln1(x))",
                 "add x back: x + attn(ln1(x)), so that x passes straight through the Block", attn_residual=False),
    *_block_mistake("residual missing around the MLP",
                 "the second residual is missing: the Block ends with mlp(ln2(x)), not x + mlp(ln2(x))",
                 "add x back after the MLP too: x + mlp(ln2(x))", mlp_residual=False),
    *_block_mistake("post-norm",
                 "the Block is post-norm: it layer-normalises the sums x + attn(x) and x + mlp(x), where a pre-norm "
                 "Block normalises only what enters each branch",
                 "normalise the branch's input, not the sum: x + attn(ln1(x)), then x + mlp(ln2(x))", post_norm=True),
    *[m for branch, one, around in (("attention", "x + attn(x)", "the attention"), ("mlp", "x + mlp(x)", "the MLP"))
      for m in _block_mistake(
        f"post-norm around {around}", f"the Block is post-norm around {around} (one branch of two): it "
        f"layer-normalises the sum {one}, where a pre-norm Block normalises only what enters the branch",
        "normalise the branch's input, not the sum: x + attn(ln1(x)), then x + mlp(ln2(x))", post_norm=branch)],
    *_block_mistake("ln1 and ln2 swapped",
                 "ln2 feeds the attention and ln1 the MLP: each LayerNorm has its own weights, so they are not "
                 "interchangeable", "attention takes ln1 of x, the MLP ln2", norms=("ln2", "ln1")),
    *_block_mistake("ln1 used for both branches",
                 "ln1 feeds the MLP too: the MLP's input is normalised with ln2, a LayerNorm of its own weights",
                 "the MLP takes ln2 of x (attention keeps ln1)", norms=("ln1", "ln1")),
    *_block_mistake("GELU after the down projection",
                 "GELU is applied to the MLP's output, after down: it belongs between up and down",
                 "down(gelu(up(h))): the nonlinearity sits in the wide middle layer", act_after=True),
    *_block_mistake("GELU missing",
                 "the MLP has no nonlinearity: down(up(h)) is one linear map, however wide the middle",
                 'put GELU between up and down: down(gelu(up(h), approximate="tanh"))', gelu=False,
                 act=lambda a: a),
    *_block_mistake("ReLU, not GELU",
                 "the MLP uses ReLU: the Block's nonlinearity is GELU, as in GPT-2",
                 'down(gelu(up(h), approximate="tanh")) (the exact gelu(h) is right too)', gelu=False, act=_relu),
    ValueMistake("7.3", "gpt", "position embeddings missing",
                 "no position embeddings were added: the model cannot tell the positions apart (the same token gives the "
                 "same vector wherever it is)",
                 "add position(np.arange(T)) to the token embeddings, T = idx.shape[1]",
                 lambda idx, weights, heads: _gpt(idx, weights, heads, positions=None)),
    ValueMistake("7.3", "gpt", "positions indexed by the tokens",
                 "the position table was looked up with the tokens (position(idx)): it holds one row per position 0..T-1, "
                 "not per token", "look it up with np.arange(T), T = idx.shape[1] (the same rows for every sequence)",
                 lambda idx, weights, heads: _gpt(idx, weights, heads, positions="tokens")),
    ValueMistake("7.3", "gpt", "ln_f missing",
                 "the final LayerNorm ln_f is not applied: the head reads the last block's output as it is",
                 "head(ln_f(x)) after the last block",
                 lambda idx, weights, heads: _gpt(idx, weights, heads, final_norm=False)),
]
