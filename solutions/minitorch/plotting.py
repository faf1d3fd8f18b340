"""Pictures for the notebooks. matplotlib is imported inside each function, so importing
minitorch never imports it. None of these calls a function a learner writes: a picture
works before the code it illustrates does.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np


def _axes(ax: Any, size: tuple[float, float]) -> Any:
    import matplotlib.pyplot as plt
    return ax if ax is not None else plt.subplots(figsize=size, layout="constrained")[1]


class _TensorNode:
    """A Tensor graph's node as draw_graph sees it: a leaf Tensor or an op's BackwardNode,
    with the shape of the value it stands for (an op's output shape is what its consumer
    recorded for that input)."""

    def __init__(self, node: Any, shape: tuple) -> None:
        self.node, self.shape = node, tuple(shape)
        targets = getattr(node, "_targets", [])
        self.parents = [_TensorNode(p, t[1]) for p, t in zip(getattr(node, "parents", []), targets)]
        self.key = id(node)

    def label(self, show_grad: bool) -> str:
        grad = getattr(self.node, "grad", None)
        if hasattr(self.node, "function"):  # an op
            return f"{self.node.name}\nshape {self.shape}"
        text = f"{getattr(self.node, 'name', '') or 'leaf'}\nshape {self.shape}"
        if show_grad and grad is not None:
            text += f"\n|grad| {float(np.abs(grad).sum()):.3g}"
        return text


class _ScalarNode:
    def __init__(self, node: Any) -> None:
        self.node, self.key = node, id(node)
        self.parents = [_ScalarNode(p) for p in node.parents]

    def label(self, show_grad: bool) -> str:
        node = self.node
        name = node.name or "const"
        text = f"{name} = {node.op}" if node.op and node.name else (node.op or name)
        text += f"\n{node.data:.3g}"
        return text + (f"\ngrad {node.grad:.3g}" if show_grad else "")


def draw_graph(root: Any, ax: Any = None, show_grad: bool = True) -> Any:
    """Draw the graph that ends in ``root``, a Scalar (each box: its name and op, value and
    grad) or a Tensor (each box: a leaf or an op, and the shape of its value), with arrows
    from inputs to the values computed from them."""
    top = _ScalarNode(root) if hasattr(root, "parents") and not hasattr(root, "grad_fn") else \
        _TensorNode(root.grad_fn if root.grad_fn is not None else root, root.shape)
    nodes, depth, stack = {}, {top.key: 0}, [top]
    while stack:  # the longest distance from the root decides the column
        node = stack.pop()
        nodes[node.key] = node
        for parent in node.parents:
            if depth.get(parent.key, -1) < depth[node.key] + 1:
                depth[parent.key] = depth[node.key] + 1
                stack.append(parent)
    columns: dict[int, list[Any]] = {}
    for key, node in nodes.items():
        columns.setdefault(depth[key], []).append(node)
    width = max(depth.values()) + 1
    ax = _axes(ax, (min(2.3 * width + 1, 11), 1.4 * max(len(c) for c in columns.values()) + 1))
    where = {key: (width - 1 - d, i - (len(column) - 1) / 2)
             for d, column in columns.items() for i, node in enumerate(column) for key in [node.key]}
    boxes = {}
    for key, node in nodes.items():
        leaf = not node.parents
        boxes[key] = ax.text(*where[key], node.label(show_grad), ha="center", va="center", fontsize=10,
                             bbox=dict(boxstyle="round,pad=0.4", fc="#e8f1fb" if leaf else "#fdf1dc",
                                       ec="#4a78a8" if leaf else "#c48a2c"))
    for key, node in nodes.items():
        for parent in node.parents:  # arrows start and end at the boxes' edges
            ax.annotate("", xy=where[key], xytext=where[parent.key],
                        arrowprops=dict(arrowstyle="-|>", color="0.4", lw=1.1, shrinkA=2, shrinkB=2,
                                        patchA=boxes[parent.key], patchB=boxes[key]))
    ax.set_xlim(-0.8, width - 0.2)
    ys = [y for _, y in where.values()]
    ax.set_ylim(min(ys) - 0.9, max(ys) + 0.9)
    ax.axis("off")
    return ax


def _grid(ax: Any, x0: float, shape: tuple[int, int], color: str, stretched: np.ndarray | None,
          title: str) -> None:
    from matplotlib.patches import Rectangle
    rows, cols = shape
    for r in range(rows):
        for c in range(cols):
            faded = stretched is not None and stretched[r, c]
            ax.add_patch(Rectangle((x0 + c, -r - 1), 1, 1, fc=color, ec="white", lw=2,
                                   alpha=0.35 if faded else 1.0))
    ax.text(x0 + cols / 2, 0.4, title, ha="center", va="bottom", fontsize=10)


def draw_broadcast(a_shape: Sequence[int], b_shape: Sequence[int], ax: Any = None) -> Any:
    """Two operands of up to 2 axes, each stretched to the broadcast shape: solid cells are
    the operand's own values, faded cells are copies. The gradient takes the way back: the
    faded copies' gradients are summed into the solid cells."""
    out = np.broadcast_shapes(tuple(a_shape), tuple(b_shape))
    out2 = (1,) * (2 - len(out)) + tuple(out)
    ax = _axes(ax, (1.2 * (3 * out2[1] + 6) / 2 + 1, 0.6 * out2[0] + 1.6))
    x0 = 0.0
    for shape, color, name in ((a_shape, "#4a78a8", "a"), (b_shape, "#c48a2c", "b")):
        own = (1,) * (2 - len(shape)) + tuple(shape)
        stretched = np.ones(out2, dtype=bool)
        stretched[:own[0], :own[1]] = False
        _grid(ax, x0, out2, color, stretched, f"{name}: {tuple(shape)} → {tuple(out)}")
        x0 += out2[1] + 1.5
    _grid(ax, x0, out2, "#5b9e5b", None, f"a + b: {tuple(out)}")
    ax.set_xlim(-0.5, x0 + out2[1] + 0.5)
    ax.set_ylim(-out2[0] - 0.5, 1.3)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


def draw_values(arrays: Sequence[np.ndarray], titles: Sequence[str], ax: Any = None) -> Any:
    """Small matrices side by side with their numbers written in the cells."""
    import matplotlib.pyplot as plt
    arrays = [np.atleast_2d(np.asarray(a, dtype=float)) for a in arrays]
    if ax is None:
        widths = [a.shape[1] + 1 for a in arrays]
        fig, axes = plt.subplots(1, len(arrays), figsize=(0.75 * sum(widths) + 1, 0.6 * max(a.shape[0] for a in arrays) + 1.2),
                                 gridspec_kw=dict(width_ratios=widths), layout="constrained")
        ax = np.atleast_1d(axes)
    for axis, array, title in zip(ax, arrays, titles):
        axis.imshow(array, cmap="coolwarm", vmin=-np.abs(array).max() - 1e-9, vmax=np.abs(array).max() + 1e-9)
        for (r, c), v in np.ndenumerate(array):
            axis.text(c, r, f"{v:.3g}", ha="center", va="center", fontsize=9)
        axis.set_title(title, fontsize=10)
        axis.set_xticks([])
        axis.set_yticks([])
    return ax


def draw_matmul_shapes(a_shape: Sequence[int], b_shape: Sequence[int], ax: Any = None) -> Any:
    """The shapes of a batched ``A @ B``, axis by axis: batch axes on the left, aligned
    from the right, then the two matrix axes. A faded cell is a batch axis that A or B
    lacks or has as size 1: broadcast forwards, so its gradient is summed back."""
    from matplotlib.patches import Rectangle
    out = np.matmul(np.empty(a_shape), np.empty(b_shape)).shape
    batch = len(out) - 2
    rows = [("A", tuple(a_shape), "#4a78a8"), ("B", tuple(b_shape), "#c48a2c"),
            ("C = A @ B", out, "#5b9e5b"), ("dA = dC @ Bᵀ", tuple(a_shape), "#4a78a8"),
            ("dB = Aᵀ @ dC", tuple(b_shape), "#c48a2c")]
    ax = _axes(ax, (0.55 * (batch + 2) + 2.2, 3.2))
    for r, (name, shape, color) in enumerate(rows):
        y = -r * 1.2
        ax.text(-0.3, y + 0.5, name, ha="right", va="center", fontsize=10)
        padded = (None,) * (batch - (len(shape) - 2)) + tuple(shape)
        for k, size in enumerate(padded):
            stretched = k < batch and (size is None or size == 1) and out[k] > 1
            ax.add_patch(Rectangle((k * 1.1 + (0.4 if k >= batch else 0), y), 1, 1, fc=color,
                                   alpha=0.25 if stretched else 0.8, ec="white"))
            label = "–" if size is None else str(size)
            ax.text(k * 1.1 + (0.4 if k >= batch else 0) + 0.5, y + 0.5, label, ha="center", va="center",
                    fontsize=11, color="black" if stretched else "white")
    ax.text(batch * 1.1 / 2, 1.25, "batch axes", ha="center", fontsize=9)
    ax.text(batch * 1.1 + 0.4 + 1.05, 1.25, "matrix", ha="center", fontsize=9)
    ax.set_xlim(-3.4, (batch + 2) * 1.1 + 0.6)
    ax.set_ylim(-len(rows) * 1.2 + 0.1, 1.7)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


def plot_curves(curves: dict[str, Sequence[float]], ax: Any = None, ylabel: str = "loss",
                log: bool = True) -> Any:
    """One line per named curve (for example training and validation loss per epoch)."""
    ax = _axes(ax, (6, 3.5))
    for name, values in curves.items():
        ax.plot(np.arange(1, len(values) + 1), values, label=name, lw=2)
    ax.set_xlabel("epoch")
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
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
    ax.set_xticks([])
    ax.set_yticks([])
    return ax
