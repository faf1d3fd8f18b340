"""Stage 7, the model and its use: the Block and GPT modules (each checked around given
parts), the training step and sampling. Layer norm and attention are in ``stage7.py``."""

from __future__ import annotations

import numpy as np

from grader.checks import part
from grader.checks.common import CheckFailure, call_learner, order_problem
from grader.checks.naming import judge_value, name_value_mistake
from grader.checks.reference import attention_weights, gelu_exact, gelu_tanh, layer_norm, linear_weights, numpy_attention


def _block_weights(rng, dim, prefix=""):
    weights = {f"{prefix}ln1.weight": 1 + 0.1 * rng.standard_normal(dim), f"{prefix}ln1.bias": 0.1 * rng.standard_normal(dim),
               f"{prefix}ln2.weight": 1 + 0.1 * rng.standard_normal(dim), f"{prefix}ln2.bias": 0.1 * rng.standard_normal(dim)}
    weights.update(attention_weights(rng, dim, f"{prefix}attn."))
    weights.update(linear_weights(rng, f"{prefix}up", dim, 4 * dim))
    weights.update(linear_weights(rng, f"{prefix}down", 4 * dim, dim))
    return weights


def numpy_block(x, weights, heads, prefix="", gelu=gelu_tanh):
    """The reference's Block, whose MLP takes GELU's tanh form (as GPT-2); ``gelu=gelu_exact``
    gives the Block with the exact GELU, which is right too."""
    p = lambda n: weights[prefix + n]  # noqa: E731
    x = x + numpy_attention(layer_norm(x, p("ln1.weight"), p("ln1.bias")), weights, heads, prefix + "attn.")
    h = layer_norm(x, p("ln2.weight"), p("ln2.bias")) @ p("up.weight").T + p("up.bias")
    return x + gelu(h) @ p("down.weight").T + p("down.bias")


@part("7.3", "Block")
def block_forward(w, rng):
    dim, heads = 8, 2
    weights = _block_weights(rng, dim)
    x = rng.standard_normal((2, 4, dim))
    seen = call_learner(w, "block", f"Block({dim}, {heads}) on x of shape {x.shape}", dim=dim, heads=heads, weights=weights, x=x)
    # Either GELU makes a right Block: the tanh form (GPT-2's, the reference's) or the exact one.
    # The output is held against whichever of the two it is nearer, and the message names both.
    expected = _nearest(seen["out"], [numpy_block(x, weights, heads, gelu=f) for f in (gelu_tanh, gelu_exact)])
    judge_value(f"Block({dim}, {heads}).forward: x + attn(ln1(x)), then x + mlp(ln2(x)) with the MLP "
                "down(gelu(up(h), approximate='tanh')) (the exact gelu(up(h)) is right too)", "block",
                {"x": x, "weights": weights, "heads": heads}, seen["out"], expected, rtol=1e-6, atol=1e-8)


def _nearest(got, candidates: list) -> np.ndarray:
    """The candidate nearest to ``got``; the first when ``got`` is not an array of their shape."""
    try:
        got = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return candidates[0]
    if got.shape != candidates[0].shape or not np.all(np.isfinite(got)):
        return candidates[0]
    return min(candidates, key=lambda c: float(np.abs(got - c).max()))


@part("7.3", "GPT")
def gpt_forward(w, rng):
    V, block_size, dim, heads, layers = 7, 6, 8, 2, 2
    weights = {"token.weight": rng.standard_normal((V, dim)), "position.weight": rng.standard_normal((block_size, dim)),
               "ln_f.weight": 1 + 0.1 * rng.standard_normal(dim), "ln_f.bias": 0.1 * rng.standard_normal(dim)}
    for i in range(layers):
        weights.update(_block_weights(rng, dim, f"blocks.{i}."))
    weights.update(linear_weights(rng, "head", dim, V))
    idx = [rng.integers(0, block_size, (2, 5)), rng.integers(0, block_size, (1, block_size))]  # tokens < block_size:
    # position(idx) in place of position(np.arange(T)) then gives numbers (a known mistake), not an IndexError
    sizes = dict(vocab_size=V, block_size=block_size, dim=dim, heads=heads, layers=layers)
    seen = call_learner(w, "gpt", f"GPT({sizes})", sizes=sizes, weights=weights, idx=idx)
    for i, out in zip(idx, seen["out"]):
        x = weights["token.weight"][i] + weights["position.weight"][np.arange(i.shape[1])]
        for k in range(layers):
            x = numpy_block(x, weights, heads, f"blocks.{k}.")
        expected = layer_norm(x, weights["ln_f.weight"], weights["ln_f.bias"]) @ weights["head.weight"].T + \
            weights["head.bias"]
        judge_value(f"GPT.forward on idx of shape {i.shape}: token plus position embeddings, the blocks, the final "
                    "LayerNorm, the head", "gpt", {"idx": i, "weights": weights, "heads": heads}, out, expected,
                    rtol=1e-6, atol=1e-8)


@part("7.4", "training step")
def training_step(w, rng):
    seen = call_learner(w, "train_steps", "language.train for 3 steps with a stand-in model, loss and optimizer", steps=3,
                 block_size=4, batch_size=2)
    problem = order_problem(seen["calls"], ["forward", "backward", "step"], 3, "step")
    if problem:
        name_value_mistake("training calls", {"steps": 3},
                           f"the list of calls language.train made in 3 steps ({seen['calls'][:8]}...)",
                           seen["calls"], ["zero_grad", "forward", "backward", "step"] * 3)
        raise CheckFailure(f"language.train made the calls {seen['calls'][:8]}{'...' if len(seen['calls']) > 8 else ''}: "
                           f"{problem}. Each step computes the loss of the model on a batch (language.loss_on), calls "
                           "backward on it, then step; zero_grad clears the gradients between one step and the next "
                           "backward", "zero_grad or order of calls")
    if seen["inputs"] != [[2, 4]] * 3 or seen["targets"] != [8] * 3:
        raise CheckFailure(f"language.train ran the model on batches of shapes {seen['inputs']} and the loss on "
                           f"targets of {seen['targets']} numbers, expected (2, 4) windows x and their (2, 4) next "
                           "tokens y, from language.windows(stream, block_size, batch_size, rng), in each of the 3 "
                           "steps", "batches")
    if len(seen["losses"]) != 3:
        raise CheckFailure(f"language.train ran 3 steps but returned {len(seen['losses'])} losses: return a list "
                           "with the loss of each step", "losses")


LOGITS = np.array([2.0, 0.5, -1.0, 1.0])
# One row of logits per sequence, each with its largest value elsewhere: a draw over the
# whole batch instead of each row shows.
ROW_LOGITS = np.array([[2.0, 0.5, -1.0, 1.0], [0.0, 0.5, -1.0, 1.5], [0.2, 1.9, -1.0, 1.0]])


@part("7.4", "greedy sampling")
def greedy(w, rng):
    chosen = call_learner(w, "sample_next", "language.sample_next(logits, 0, rng) on 3 rows of 4 logits", logits=ROW_LOGITS,
                          temperature=0.0, seed=0)
    if not (isinstance(chosen, np.ndarray) and np.array_equal(chosen, ROW_LOGITS.argmax(axis=1))):
        judge_value("language.sample_next(logits, 0, rng) on 3 rows of 4 logits, temperature 0 (each row's most likely "
                    "token)", "greedy", {"logits": ROW_LOGITS}, chosen, ROW_LOGITS.argmax(axis=1))
    seen = call_learner(w, "sample", "GPT.generate with temperature 0", logits=ROW_LOGITS, rows=3, steps=6,
                        temperature=0.0, seed=0, block_size=4)
    out = np.asarray(seen["out"])
    expected = np.repeat(ROW_LOGITS.argmax(axis=1)[:, None], 6, axis=1)
    if out.shape != (3, 8) or not np.array_equal(out[:, 2:], expected):
        if out.shape == (3, 8) and np.array_equal(out[:, 2:], np.repeat(out[:, 2:3], 6, axis=1)):  # one choice, kept
            name_value_mistake("greedy", {"logits": ROW_LOGITS}, "GPT.generate(idx of shape (3, 2), 6, temperature=0), each row "
                      "with its own logits: the choice language.sample_next made in each row", out[:, 2], expected[:, 0], 0, 1e-9)
        raise CheckFailure(f"GPT.generate(idx of shape (3, 2), 6, temperature=0), each row with its own logits, gave "
                           f"{out.tolist()}: temperature 0 must pick each row's most likely token "
                           f"({ROW_LOGITS.argmax(axis=1).tolist()}) every time, and the result is (B, T + steps)",
                           "greedy")
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
            name_value_mistake("temperature", {"logits": LOGITS, "temperature": t}, f"GPT.generate with temperature {t}: how "
                      "often each token was drawn", counts, p, 0, 0.03)
            raise CheckFailure(f"GPT.generate with temperature {t} drew the tokens with frequencies "
                               f"{np.round(counts, 3).tolist()}, expected about {np.round(p, 3).tolist()} "
                               "(softmax of logits / temperature)", "temperature ignored")
    _own_rows(w)
    again = [call_learner(w, "sample", "GPT.generate twice with the same rng seed", logits=LOGITS, rows=50, steps=3,
                          temperature=1.0, seed=7, block_size=4, global_seed=g)["out"] for g in (0, 1)]
    if not np.array_equal(again[0], again[1]):
        raise CheckFailure("GPT.generate gave different tokens for two generators seeded alike (rng=np.random."
                           "default_rng(7) both times): draw with the rng argument (rng.choice, rng.random), not "
                           "np.random, so that a seed reproduces the samples", "rng ignored")
    cold = LOGITS * 500  # divided by temperature 0.001: exp overflows unless the maximum is subtracted first
    try:
        seen = call_learner(w, "sample", "GPT.generate with temperature 0.001 and logits up to 1000", logits=cold,
                            rows=20, steps=2, temperature=1e-3, seed=2, block_size=4)
    except CheckFailure as failure:
        raise CheckFailure(f"{failure} (logits / temperature reach 10^6 here: subtract each row's maximum before "
                           "exp, as a stable softmax does)", "unstable softmax") from None
    if not np.all(np.asarray(seen["out"])[:, 2:] == int(cold.argmax())):
        raise CheckFailure(f"GPT.generate with temperature 0.001 gave {np.asarray(seen['out'])[:3].tolist()}...: so "
                           "low a temperature must pick the most likely token (subtract each row's maximum before "
                           "exp, as a stable softmax does)", "unstable softmax")


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return e / e.sum()


def _own_rows(w, t: float = 0.5, pairs: int = 500) -> None:
    """Rows with different logits at a temperature above 0: each row is drawn from its own
    softmax (a draw with the first row's probabilities for every row passes a batch of
    identical rows). The two rows' distributions differ by far more than the tolerance."""
    seen = call_learner(w, "sample", f"GPT.generate with temperature {t}, rows with different logits",
                        logits=np.tile(ROW_LOGITS[:2], (pairs, 1)), rows=2 * pairs, steps=1, temperature=t, seed=3,
                        block_size=4)
    drawn = np.asarray(seen["out"])[:, -1]
    for r in (0, 1):
        counts, p = np.bincount(drawn[r::2], minlength=4) / pairs, _softmax(ROW_LOGITS[r] / t)
        if np.abs(counts - p).max() > 0.1:  # 4.5 standard deviations of a frequency out of 500 draws
            other = np.abs(counts - _softmax(ROW_LOGITS[1 - r] / t)).max() <= 0.1
            raise CheckFailure(f"GPT.generate with temperature {t}, rows alternating the logits "
                               f"{ROW_LOGITS[0].tolist()} and {ROW_LOGITS[1].tolist()}, drew rows {r}, {r + 2}, {r + 4}... "
                               f"with frequencies {np.round(counts, 3).tolist()}, expected about {np.round(p, 3).tolist()}"
                               + (": those are the other rows' probabilities" if other else "")
                               + ". Draw each row's token from each row's own probabilities (the softmax of that row)",
                               "rows mixed")
