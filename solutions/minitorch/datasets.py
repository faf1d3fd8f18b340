"""Small data sets that need no download: a generated one, a real one, and a list of names.

Each returns ``(x, y)``: ``x`` float64 of shape (N, features), ``y`` int64 class indices.
"""

from __future__ import annotations

import gzip
import pathlib

import numpy as np

DATA = pathlib.Path(__file__).resolve().parent / "data"


def make_spirals(n: int = 300, classes: int = 2, noise: float = 0.2, seed: int = 0):
    """``classes`` interleaved spiral arms in the plane, ``n`` points in all."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    radius = rng.uniform(0.05, 1.0, n)
    angle = 3.5 * radius * np.pi + 2 * np.pi * y / classes + rng.normal(0, noise, n)
    x = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    return x, y.astype(np.int64)


def load_digits():
    """1,797 handwritten digits, 8x8 pixels of values 0..16 flattened to 64 features, and
    their labels 0..9 (a real data set shipped with the package; see data/README.md)."""
    path = DATA / "digits.csv.gz"
    if not path.exists():
        raise FileNotFoundError(f"the digits data set is missing: expected {path}")
    with gzip.open(path, "rt") as file:
        table = np.loadtxt(file, delimiter=",")
    return table[:, :-1], table[:, -1].astype(np.int64)


def names() -> list[str]:
    """About 32,000 lowercase first names, one per line in the shipped list (see
    data/README.md): the data of the stage-7 GPT."""
    path = DATA / "names.txt.gz"
    if not path.exists():
        raise FileNotFoundError(f"the names list is missing: expected {path}")
    with gzip.open(path, "rt", encoding="utf-8") as file:
        return [line.strip() for line in file if line.strip()]


def train_val_split(x: np.ndarray, y: np.ndarray, val_fraction: float = 0.2, seed: int = 0):
    """Shuffle, then hold out ``val_fraction`` of the examples: (x_tr, y_tr), (x_val, y_val)."""
    if not 0 < val_fraction < 1:
        raise ValueError(f"val_fraction must lie between 0 and 1, got {val_fraction}")
    order = np.random.default_rng(seed).permutation(len(x))
    cut = int(round(len(x) * (1 - val_fraction)))
    train, val = order[:cut], order[cut:]
    return (x[train], y[train]), (x[val], y[val])
