"""Notebook 07's training run, timed: the reference package trains the names GPT exactly
as the notebook does (2,000 steps) and prints the wall time, the validation loss (the
goal: at most 2.1 nats per character within two minutes) and samples at two temperatures.

    .venv/bin/python benchmarks/bench_gpt.py [STEPS]
"""

import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "solutions"))
import minitorch as mt  # noqa: E402
from minitorch import language, nn, optim  # noqa: E402


def main(steps: int = 2000) -> None:
    names = mt.datasets.names()
    vocab = language.vocabulary(names)
    train_names, val_names = language.split(names)
    train_stream, val_stream = language.encode(train_names, vocab), language.encode(val_names, vocab)
    mt.manual_seed(1)
    model = nn.GPT(vocab_size=len(vocab), block_size=16, dim=64, heads=4, layers=2)
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    rng, chunks, curve = np.random.default_rng(0), max(steps // 200, 1), []
    began = time.perf_counter()
    for chunk in range(chunks):
        optimizer.lr = 1e-2 - 9e-3 * chunk / max(chunks - 1, 1)
        language.train(model, optimizer, train_stream, 200, 16, 32, rng)
        curve.append(language.evaluate(model, val_stream, 16))
    seconds = time.perf_counter() - began
    print(f"{steps} steps in {seconds:.1f} s; validation loss {curve[-1]:.3f} nats per character "
          f"(curve: {', '.join(f'{v:.3f}' for v in curve)})")
    for t in (0.5, 1.0):
        made = language.decode(model.generate(np.zeros((12, 1), dtype=np.int64), 14, t, np.random.default_rng(1)).ravel(),
                               vocab)
        print(f"temperature {t}: {', '.join(made[:10])}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
