"""Train the same MLPs three ways and print time ratios, measured side by side in one run.

    make bench            (or: .venv/bin/python benchmarks/bench_mlp.py [--steps N] [--baseline DIR])

1. minitorch (the reference package in solutions/);
2. a hand-written NumPy forward and backward of the same network: the floor that
   minitorch's bookkeeping is measured against;
3. PyTorch on the CPU, when it is installed (pip install torch==2.13.0);
4. with ``--baseline DIR``, the minitorch in DIR/minitorch too (an older commit's
   solutions/, say), to show a change's effect side by side.

Two networks, each with ReLU, softmax cross-entropy and plain SGD on 4,096 points, in
float32 and in float64:

* the notebooks' size, 2 -> 16 -> 16 -> 3 on batches of 32: the arrays are tiny, so this
  measures what recording and replaying each operation costs (goal: within 2x of NumPy);
* a larger one, 2 -> 128 -> 128 -> 10 on batches of 256, where the arithmetic dominates
  (goal: within 1.3x).

Each implementation starts from the same weights and sees the same batches, and the final
losses are printed to show that they computed the same thing. Then the floor of the
design: what recording and backpropagating an operation that does nothing at all costs,
times the operations a training step records, added to NumPy's time; and the per-op
overhead of ``a + b`` on one-element tensors against ``np.add``. The last lines are the
rows of benchmarks/README.md's table for this benchmark.

Everything runs on one thread (BLAS and PyTorch alike), and times are CPU seconds of this
process, so that the ratios measure the libraries' own work rather than how a shared
machine's cores happened to be split.
"""

from __future__ import annotations

import os

from setup_one_thread import baseline, cpu_time, mt, readme_row, torch  # one thread; first, before NumPy

import argparse
import timeit

import numpy as np


POINTS = 4096
# (layer sizes, batch size, the most minitorch may take, in NumPy's time)
CASES = [((2, 16, 16, 3), 32, 2.0), ((2, 128, 128, 10), 256, 1.3)]


def make_data(n: int, classes: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Points in the plane, labelled by which of ``classes`` angular sectors they fall in."""
    x = rng.standard_normal((n, 2))
    y = ((np.arctan2(x[:, 1], x[:, 0]) + np.pi) / (2 * np.pi) * classes).astype(np.int64) % classes
    return x, y


def init_weights(sizes: tuple[int, ...], rng: np.random.Generator) -> list[np.ndarray]:
    weights = []
    for m, n in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(m)
        weights += [rng.uniform(-bound, bound, (n, m)), rng.uniform(-bound, bound, n)]
    return weights


def train_minitorch(sizes, weights, x, y, batches, lr, dtype, mt=mt):
    model = mt.nn.MLP(sizes, dtype=dtype)
    for p, w in zip(model.parameters(), weights):
        p.data[...] = w
    opt = mt.optim.SGD(model.parameters(), lr=lr)
    for batch in batches:
        opt.zero_grad()
        loss = mt.cross_entropy(model(mt.Tensor(x[batch])), y[batch])
        loss.backward()
        opt.step()
    return loss.item()


def train_numpy(sizes, weights, x, y, batches, lr, dtype):
    w1, b1, w2, b2, w3, b3 = [w.astype(dtype) for w in weights]
    for batch in batches:
        xb, yb = x[batch], y[batch]
        n = len(batch)
        h1 = xb @ w1.T + b1
        a1 = np.maximum(h1, 0)
        h2 = a1 @ w2.T + b2
        a2 = np.maximum(h2, 0)
        logits = a2 @ w3.T + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss = -log_p[np.arange(n), yb].mean()
        d_logits = np.exp(log_p)
        d_logits[np.arange(n), yb] -= 1
        d_logits /= n
        d_w3, d_b3 = d_logits.T @ a2, d_logits.sum(axis=0)
        d_h2 = (d_logits @ w3) * (h2 > 0)
        d_w2, d_b2 = d_h2.T @ a1, d_h2.sum(axis=0)
        d_h1 = (d_h2 @ w2) * (h1 > 0)
        d_w1, d_b1 = d_h1.T @ xb, d_h1.sum(axis=0)
        for w, d in ((w1, d_w1), (b1, d_b1), (w2, d_w2), (b2, d_b2), (w3, d_w3), (b3, d_b3)):
            w -= lr * d
    return float(loss)


def train_torch(sizes, weights, x, y, batches, lr, dtype):
    tdtype = torch.float32 if dtype == np.float32 else torch.float64
    layers = []
    for i in range(len(sizes) - 1):
        layer = torch.nn.Linear(sizes[i], sizes[i + 1], dtype=tdtype)
        with torch.no_grad():
            layer.weight.copy_(torch.from_numpy(weights[2 * i]))
            layer.bias.copy_(torch.from_numpy(weights[2 * i + 1]))
        layers += [layer, torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    for batch in batches:
        b = torch.from_numpy(batch)
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(xt[b]), yt[b])
        loss.backward()
        opt.step()
    return loss.item()


class DoNothing(mt.Function):
    """The cheapest possible operation: the engine's bookkeeping and nothing else."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


def ops_in_step(sizes: tuple[int, ...], x: np.ndarray, y: np.ndarray) -> int:
    """How many operations one training step records (the nodes of its graph)."""
    model = mt.nn.MLP(sizes, dtype=x.dtype)
    loss = mt.cross_entropy(model(mt.Tensor(x)), y)
    nodes = mt.topological_order(loss.grad_fn)
    return sum(1 for node in nodes if not isinstance(node, mt.Tensor))


def floor_per_op(calls: int = 20_000) -> float:
    """Seconds to record one do-nothing operation and send a gradient back through it,
    from a chain of 20 of them (so the engine's per-backward() cost is shared out)."""
    leaf, seed = mt.Tensor(np.ones(1), requires_grad=True), np.ones(1)

    def chain():
        out = leaf
        for _ in range(20):
            out = DoNothing.apply(out)
        mt.backpropagate(out.grad_fn, seed)
    return min(timeit.repeat(chain, number=calls // 20, repeat=3, timer=cpu_time)) / calls


def timed(fn) -> tuple[float, object]:
    """CPU seconds of one run of ``fn``, and its result."""
    start = cpu_time()
    result = fn()
    return cpu_time() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline", help="a folder holding another minitorch/ to time beside this one")
    args = parser.parse_args()

    floor = floor_per_op()
    runners = {"minitorch": train_minitorch}
    old = baseline(args.baseline)
    if old is not None:
        runners["baseline"] = lambda *a: train_minitorch(*a, mt=old)
    runners["numpy"] = train_numpy
    if torch is not None:
        runners["torch"] = train_torch
    print(f"{POINTS} points, {args.steps} SGD steps, best of {args.repeats}, CPU time, "
          f"{os.environ['OPENBLAS_NUM_THREADS']} thread(s)" + ("" if torch else "  (PyTorch not installed)")
          + (f"; baseline: {args.baseline}" if old else ""))
    rows = []
    for sizes, batch_size, goal in CASES:
        rng = np.random.default_rng(0)
        x64, y = make_data(POINTS, sizes[-1], rng)
        weights64 = init_weights(sizes, rng)
        order = np.concatenate([rng.permutation(POINTS) for _ in range(args.steps * batch_size // POINTS + 1)])
        batches = [order[i * batch_size:(i + 1) * batch_size] for i in range(args.steps)]
        print(f"\nMLP {' -> '.join(map(str, sizes))}, batch {batch_size} (goal: minitorch within {goal:g}x NumPy)")
        cells = []
        for dtype in (np.float32, np.float64):
            x = x64.astype(dtype)
            weights = [w.astype(dtype) for w in weights64]
            times, losses = {}, {}
            # Interleave the implementations so that a slow spell of the machine hits all alike.
            for _ in range(args.repeats):
                for name, train in runners.items():
                    t, loss = timed(lambda: train(sizes, weights, x, y, batches, 0.1, dtype))
                    times[name] = min(times.get(name, float("inf")), t)
                    losses[name] = loss
            ratio = {name: times[name] / times["numpy"] for name in runners}
            print(f"  {np.dtype(dtype).name}:")
            for name in runners:
                held = f"   {'met' if ratio[name] <= goal else 'NOT met'}" if name == "minitorch" else ""
                print(f"    {name:10s} {times[name] * 1e3:8.1f} ms   {ratio[name]:5.2f}x numpy"
                      f"   final loss {losses[name]:.6f}{held}")
            ops = ops_in_step(sizes, x[batches[0]], y[batches[0]])
            least = times["numpy"] + args.steps * ops * floor
            print(f"    floor      {least * 1e3:8.1f} ms   {least / times['numpy']:5.2f}x numpy"
                  f"   NumPy + {ops} do-nothing ops a step at {floor * 1e6:.2f} us each")
            cells.append(f"minitorch {ratio['minitorch']:.2f}x NumPy" +
                         (f", PyTorch {ratio['torch']:.2f}x" if "torch" in ratio else ""))
        rows.append(readme_row(f"MLP {'-'.join(map(str, sizes))}, batch {batch_size}",
                               f"minitorch within {goal:g}x NumPy", *cells))

    a, b = mt.Tensor([1.0]), mt.Tensor([2.0])
    a_np, b_np = np.array([1.0]), np.array([2.0])
    calls = 200_000
    t_mt = min(timeit.repeat(lambda: a + b, number=calls, repeat=3, timer=cpu_time)) / calls
    t_np = min(timeit.repeat(lambda: np.add(a_np, b_np), number=calls, repeat=3, timer=cpu_time)) / calls
    ga, gb = mt.Tensor([1.0], requires_grad=True), mt.Tensor([2.0], requires_grad=True)
    t_graph = min(timeit.repeat(lambda: ga + gb, number=calls, repeat=3, timer=cpu_time)) / calls
    print("\nper-op overhead, a + b on one-element tensors:")
    print(f"  np.add                    {t_np * 1e6:6.2f} us")
    print(f"  minitorch, no grad        {t_mt * 1e6:6.2f} us   {t_mt / t_np:5.1f}x np.add")
    print(f"  minitorch, recording      {t_graph * 1e6:6.2f} us   {t_graph / t_np:5.1f}x np.add")
    print("\nfor benchmarks/README.md (benchmark | goal | float32 | float64):")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
