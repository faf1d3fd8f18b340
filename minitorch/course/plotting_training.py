"""The pictures of training (stage 6: loss curves, a classifier's regions) and of a
transformer's attention (stage 7). matplotlib is imported inside each function; ``plotting``
offers them all."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np


def _axes(ax: Any, size: tuple[float, float]) -> Any:
    import matplotlib.pyplot as plt
    return ax if ax is not None else plt.subplots(figsize=size, layout="constrained")[1]


def draw_attention(weights: np.ndarray, tokens: Sequence[str], title: str = "") -> Any:
    """Each head's attention weights (heads, T, T) as a heat map, row t the weights
    position t gives the positions it reads, with one colour bar (0 to 1) for all."""
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(weights), figsize=(3 * len(weights) + 1.5, 3.2), layout="constrained")
    for h, ax in enumerate(np.atleast_1d(axes)):
        image = ax.imshow(weights[h], cmap="viridis", vmin=0, vmax=1)
        ax.set_title(f"{title}head {h + 1}", fontsize=10)
        ax.set_xticks(range(len(tokens)), list(tokens))
        ax.set_yticks(range(len(tokens)), list(tokens))
        ax.set_xlabel("reads position")
    np.atleast_1d(axes)[0].set_ylabel("position")
    fig.colorbar(image, ax=axes, shrink=0.85, label="attention weight")
    return axes


def plot_curves(curves: dict[str, Sequence[float]], ax: Any = None, ylabel: str = "loss",
                log: bool = True) -> Any:
    """One line per named curve (for example training and validation loss per epoch)."""
    ax = _axes(ax, (6, 3.5))
    for name, values in curves.items():
        ax.plot(np.arange(1, len(values) + 1), values, label=name, lw=2)
    ax.set(xlabel="epoch", ylabel=ylabel, yscale="log" if log else "linear")
    ax.grid(alpha=0.3)
    ax.legend()
    return ax


def plot_decision_boundary(predict: Any, x: np.ndarray, y: np.ndarray, ax: Any = None,
                           resolution: int = 150) -> Any:
    """Colour the plane by ``predict(points) -> class per point`` and scatter (x, y) on it."""
    ax = _axes(ax, (4.5, 4.5))
    lo, hi = x.min(axis=0) - 0.3, x.max(axis=0) + 0.3
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution))
    classes = np.asarray(predict(np.stack([gx.ravel(), gy.ravel()], axis=1))).reshape(gx.shape)
    ax.contourf(gx, gy, classes, levels=np.arange(y.max() + 2) - 0.5, cmap="coolwarm", alpha=0.35)
    ax.scatter(x[:, 0], x[:, 1], c=y, cmap="coolwarm", s=12, edgecolors="k", linewidths=0.3)
    ax.set(xticks=[], yticks=[])
    return ax
