"""Train the notebook's GPT three ways and print time ratios, measured side by side in one run.

    .venv/bin/python benchmarks/bench_gpt_step.py [--steps N] [--repeats R] [--baseline DIR]

1. minitorch (the reference package in solutions/): ``nn.GPT``, ``language.loss_on``,
   ``backward``, ``Adam``;
2. the same model written by hand in NumPy, forward and backward, every gradient derived
   on paper;
3. PyTorch on the CPU, when it is installed (pip install torch==2.13.0): the goal is
   minitorch faster than PyTorch, in float32 and in float64;
4. with ``--baseline DIR``, the minitorch in DIR/minitorch too (an older commit's
   solutions/, say).

The model and batch are notebook 7's: vocabulary 27, windows of 16, 64 features, 4 heads,
2 blocks, batches of 32 windows, Adam at lr 3e-3, GELU in its tanh form (as the notebook's
``Block``, and GPT-2). Each implementation starts from the same weights and trains on the
same windows; their final losses are printed to show that they computed the same thing. Everything runs on one thread (BLAS
and PyTorch alike); times are CPU seconds of this process.

The model takes the tanh form because the exact GELU needs erf, which NumPy lacks: SciPy's
works one element at a time (in float32 minitorch's exact GELU uses a polynomial of NumPy
operations on whole arrays instead, ops_activation.py), while PyTorch's is vectorized. So
the script also times what the exact form's erf would cost a step (one call per block, on
the (32 * 16, 256) hidden layer) in SciPy and PyTorch, beside NumPy's tanh on the same
layer. The last lines are benchmarks/README.md's row for this benchmark.
"""

from __future__ import annotations

import os

from setup_one_thread import baseline, cpu_time, mt, readme_row, torch  # one thread; first, before NumPy

import argparse
import math

import numpy as np
from scipy.special import erf


VOCAB, BLOCK, DIM, HEADS, LAYERS, BATCH, LR = 27, 16, 64, 4, 2, 32, 3e-3
EPS = 1e-5
SQRT_2_OVER_PI, TANH_CUBIC = math.sqrt(2 / math.pi), 0.044715  # GELU's tanh form


# ---- 1. minitorch ------------------------------------------------------------------------
def train_minitorch(weights, batches, dtype, mt=mt):
    mt.manual_seed(0)
    model = mt.nn.GPT(VOCAB, BLOCK, DIM, HEADS, LAYERS)
    for p, w in zip(model.parameters(), weights):
        p.data = w.copy()
    adam = mt.optim.Adam(model.parameters(), lr=LR)
    for x, y in batches:
        adam.zero_grad()
        loss = mt.language.loss_on(model, x, y)
        loss.backward()
        adam.step()
    return loss.item()


# ---- 2. NumPy by hand --------------------------------------------------------------------
def ln_forward(x, w, b):
    centred = x - x.mean(axis=-1, keepdims=True)
    inv_std = 1 / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + EPS)
    x_hat = centred * inv_std
    return x_hat * w + b, (x_hat, inv_std, w)


def ln_backward(g, cache):
    x_hat, inv_std, w = cache
    rows, rows_hat = g.reshape(-1, g.shape[-1]), x_hat.reshape(-1, g.shape[-1])
    gh = g * w
    dx = inv_std * (gh - gh.mean(axis=-1, keepdims=True) - x_hat * (gh * x_hat).mean(axis=-1, keepdims=True))
    return dx, (rows * rows_hat).sum(axis=0), rows.sum(axis=0)


def linear(x, w, b):
    """x @ w.T + b for x (..., in), as one 2-D product."""
    return (x.reshape(-1, x.shape[-1]) @ w.T + b).reshape(x.shape[:-1] + (w.shape[0],))


def linear_backward(g, x, w):
    """The gradients of ``linear`` for x, w and b."""
    g2, x2 = g.reshape(-1, g.shape[-1]), x.reshape(-1, x.shape[-1])
    return (g2 @ w).reshape(x.shape), g2.T @ x2, g2.sum(axis=0)


def numpy_step(params, x_ids, y_ids):
    """One forward and backward; returns the loss and the gradients in parameter order."""
    tok, pos, *rest = params
    batch, time_ = x_ids.shape
    d = DIM // HEADS
    scale = 1 / math.sqrt(d)
    mask = np.tril(np.ones((time_, time_), dtype=bool))
    x = tok[x_ids] + pos[:time_]
    caches = []
    for i in range(LAYERS):
        ln1w, ln1b, wq, bq, wk, bk, wv, bv, wo, bo, ln2w, ln2b, w1, b1, w2, b2 = rest[16 * i:16 * (i + 1)]
        h, c1 = ln_forward(x, ln1w, ln1b)
        split = lambda t: t.reshape(batch, time_, HEADS, d).transpose(0, 2, 1, 3)  # noqa: E731
        q, k, v = split(linear(h, wq, bq)), split(linear(h, wk, bk)), split(linear(h, wv, bv))
        s = np.where(mask, (q @ k.transpose(0, 1, 3, 2)) * scale, -np.inf)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        p /= p.sum(axis=-1, keepdims=True)
        a = (p @ v).transpose(0, 2, 1, 3).reshape(batch, time_, DIM)
        x = x + linear(a, wo, bo)
        h2, c2 = ln_forward(x, ln2w, ln2b)
        u = linear(h2, w1, b1)
        t = np.tanh(SQRT_2_OVER_PI * (u + TANH_CUBIC * u * u * u))
        gelu = 0.5 * u * (1 + t)
        x = x + linear(gelu, w2, b2)
        caches.append((h, c1, q, k, v, p, a, h2, c2, u, t, gelu))
    lnfw, lnfb, wh, bh = rest[16 * LAYERS:]
    hf, cf = ln_forward(x, lnfw, lnfb)
    logits = linear(hf, wh, bh).reshape(-1, VOCAB)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    n, targets = len(log_p), y_ids.reshape(-1)
    loss = -log_p[np.arange(n), targets].mean()

    grads = [None] * len(params)
    d_logits = np.exp(log_p)
    d_logits[np.arange(n), targets] -= 1
    d_logits = (d_logits / n).reshape(batch, time_, VOCAB)
    dhf, grads[-2], grads[-1] = linear_backward(d_logits, hf, wh)
    dx, grads[-4], grads[-3] = ln_backward(dhf, cf)
    for i in reversed(range(LAYERS)):
        ln1w, ln1b, wq, bq, wk, bk, wv, bv, wo, bo, ln2w, ln2b, w1, b1, w2, b2 = rest[16 * i:16 * (i + 1)]
        h, c1, q, k, v, p, a, h2, c2, u, t, gelu = caches[i]
        g = [None] * 16
        d_gelu, g[14], g[15] = linear_backward(dx, gelu, w2)
        du = d_gelu * (0.5 * (1 + t) + 0.5 * u * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * TANH_CUBIC * u * u))
        dh2, g[12], g[13] = linear_backward(du, h2, w1)
        d_ln2, g[10], g[11] = ln_backward(dh2, c2)
        dx = dx + d_ln2
        da, g[8], g[9] = linear_backward(dx, a, wo)
        da = da.reshape(batch, time_, HEADS, d).transpose(0, 2, 1, 3)
        dp, dv = da @ v.transpose(0, 1, 3, 2), p.transpose(0, 1, 3, 2) @ da
        ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True)) * scale
        dq, dk = ds @ k, ds.transpose(0, 1, 3, 2) @ q
        merge = lambda t: t.transpose(0, 2, 1, 3).reshape(batch, time_, DIM)  # noqa: E731
        dh = np.zeros_like(h)
        for j, (dt, w) in enumerate(((dq, wq), (dk, wk), (dv, wv))):
            dh_part, g[2 + 2 * j], g[3 + 2 * j] = linear_backward(merge(dt), h, w)
            dh += dh_part
        d_ln1, g[0], g[1] = ln_backward(dh, c1)
        dx = dx + d_ln1
        grads[2 + 16 * i:2 + 16 * (i + 1)] = g
    grads[1] = np.zeros_like(pos)
    grads[1][:time_] = dx.sum(axis=0)
    grads[0] = np.zeros_like(tok)
    np.add.at(grads[0], x_ids.reshape(-1), dx.reshape(-1, DIM))
    return loss, grads


def train_numpy(weights, batches, dtype):
    params = [w.copy() for w in weights]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    beta1, beta2 = 0.9, 0.999
    for step, (x, y) in enumerate(batches, start=1):
        loss, grads = numpy_step(params, x, y)
        for p, g, m_, v_ in zip(params, grads, m, v):
            m_ *= beta1
            m_ += (1 - beta1) * g
            v_ *= beta2
            v_ += (1 - beta2) * g * g
            p -= (LR / (1 - beta1 ** step)) * m_ / (np.sqrt(v_) / math.sqrt(1 - beta2 ** step) + 1e-8)
    return float(loss)


# ---- 3. PyTorch --------------------------------------------------------------------------
def train_torch(weights, batches, dtype):
    F = torch.nn.functional
    params = [torch.tensor(w, requires_grad=True) for w in weights]
    adam = torch.optim.Adam(params, lr=LR)
    for x, y in batches:
        x, y = torch.from_numpy(x), torch.from_numpy(y)
        adam.zero_grad()
        tok, pos, *rest = params
        batch, time_ = x.shape
        h = tok[x] + pos[:time_]
        for i in range(LAYERS):
            ln1w, ln1b, wq, bq, wk, bk, wv, bv, wo, bo, ln2w, ln2b, w1, b1, w2, b2 = rest[16 * i:16 * (i + 1)]
            a_in = F.layer_norm(h, (DIM,), ln1w, ln1b)
            split = lambda t: t.reshape(batch, time_, HEADS, DIM // HEADS).transpose(1, 2)  # noqa: E731
            q, k, v = split(F.linear(a_in, wq, bq)), split(F.linear(a_in, wk, bk)), split(F.linear(a_in, wv, bv))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            h = h + F.linear(a.transpose(1, 2).reshape(batch, time_, DIM), wo, bo)
            mlp_in = F.layer_norm(h, (DIM,), ln2w, ln2b)
            h = h + F.linear(F.gelu(F.linear(mlp_in, w1, b1), approximate="tanh"), w2, b2)
        lnfw, lnfb, wh, bh = rest[16 * LAYERS:]
        logits = F.linear(F.layer_norm(h, (DIM,), lnfw, lnfb), wh, bh)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
        loss.backward()
        adam.step()
    return loss.item()


def layer_calls(fn, u, steps: int) -> None:
    """``steps`` training steps' worth of ``fn`` (erf, tanh): one call per block, on the hidden layer."""
    for _ in range(steps * LAYERS):
        fn(u)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline", help="a folder holding another minitorch/ to time beside this one")
    args = parser.parse_args()

    names = mt.datasets.names()
    stream = mt.language.encode(names, mt.language.vocabulary(names))
    rng = np.random.default_rng(0)
    batches = [mt.language.windows(stream, BLOCK, BATCH, rng) for _ in range(args.steps)]
    mt.manual_seed(0)
    weights64 = [p.data.astype(np.float64) for p in mt.nn.GPT(VOCAB, BLOCK, DIM, HEADS, LAYERS).parameters()]

    runners = {"minitorch": train_minitorch}
    old = baseline(args.baseline)
    if old is not None:
        runners["baseline"] = lambda *a: train_minitorch(*a, mt=old)
    runners["numpy"] = train_numpy
    if torch is not None:
        runners["torch"] = train_torch
    print(f"GPT: vocabulary {VOCAB}, block {BLOCK}, dim {DIM}, {HEADS} heads, {LAYERS} blocks, "
          f"batch {BATCH}; {args.steps} Adam steps, best of {args.repeats}, CPU time, "
          f"{os.environ['OPENBLAS_NUM_THREADS']} thread(s)" + ("" if torch else "  (PyTorch not installed)")
          + (f"; baseline: {args.baseline}" if old else ""))
    print("goal: minitorch faster than PyTorch (below 1.00x torch)")
    cells = []
    for dtype in (np.float32, np.float64):
        weights = [w.astype(dtype) for w in weights64]
        hidden = rng.standard_normal((BATCH * BLOCK, 4 * DIM)).astype(dtype)
        alone = {"erf scipy": (erf, hidden), "tanh numpy": (np.tanh, hidden)}
        if torch is not None:
            alone["erf torch"] = (torch.erf, torch.from_numpy(hidden))
        times, losses = {}, {}
        # Interleave the implementations so that a slow spell of the machine hits all alike.
        for _ in range(args.repeats):
            for name, train in runners.items():
                start = cpu_time()
                losses[name] = train(weights, batches, dtype)
                times[name] = min(times.get(name, float("inf")), cpu_time() - start)
            for name, (fn, u) in alone.items():
                start = cpu_time()
                layer_calls(fn, u, args.steps)
                times[name] = min(times.get(name, float("inf")), cpu_time() - start)
        versus = "torch" if "torch" in times else "numpy"
        print(f"\n{np.dtype(dtype).name}:")
        for name in runners:
            held = ""
            if name == "minitorch" and versus == "torch":
                held = "   met" if times[name] < times["torch"] else "   NOT met"
            print(f"  {name:10s} {times[name] / args.steps * 1e3:7.2f} ms a step   "
                  f"{times[name] / times['numpy']:5.2f}x numpy   {times[name] / times[versus]:5.2f}x {versus}"
                  f"   final loss {losses[name]:.6f}{held}")
        line = (f"  the exact GELU's erf alone (not in the model): SciPy {times['erf scipy'] / args.steps * 1e3:.2f} "
                "ms a step")
        if torch is not None:
            line += f", PyTorch {times['erf torch'] / args.steps * 1e3:.2f} ms"
        line += f"; the tanh form's np.tanh {times['tanh numpy'] / args.steps * 1e3:.2f} ms"
        print(line)
        cells.append(f"minitorch {times['minitorch'] / times[versus]:.2f}x {'PyTorch' if versus == 'torch' else 'NumPy'}"
                     f" ({times['minitorch'] / args.steps * 1e3:.1f} ms a step)")
    print("\nfor benchmarks/README.md (benchmark | goal | float32 | float64):")
    print(readme_row("GPT training step, notebook 07's size", "minitorch faster than PyTorch", *cells))


if __name__ == "__main__":
    main()
