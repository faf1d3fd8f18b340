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
    """A leaf Tensor or an op's BackwardNode, with the shape of its value (for an op, what
    its consumer recorded for that input)."""

    def __init__(self, node: Any, shape: tuple, names: dict) -> None:
        self.node, self.shape, self.names = node, tuple(shape), names
        self.parents = [_TensorNode(parent, shape, names) for _, parent, shape, _ in getattr(node, "routes", [])]
        self.key = id(node)

    def label(self, show_grad: bool) -> str:
        grad = getattr(self.node, "grad", None)
        if hasattr(self.node, "function"):  # an op
            return f"{self.node.name}\nshape {self.shape}"
        text = f"{self.names.get(id(self.node)) or getattr(self.node, 'name', '') or 'leaf'}\nshape {self.shape}"
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


def draw_graph(root: Any, ax: Any = None, show_grad: bool = True, names: dict | None = None) -> Any:
    """Draw the graph that ends in ``root``, a Scalar (each box: its name and op, value and
    grad) or a Tensor (each box: an input, named as in ``names`` ({"a": a, ...}), or an
    op, and the shape of its value), with arrows from inputs to the values computed from them."""
    named = {id(tensor): name for name, tensor in (names or {}).items()}
    top = _ScalarNode(root) if hasattr(root, "parents") and not hasattr(root, "grad_fn") else \
        _TensorNode(root.grad_fn if root.grad_fn is not None else root, root.shape, named)
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
    """Two operands of up to 2 axes stretched to the broadcast shape: solid cells are their
    own values, faded ones copies, whose gradients are summed back into the solid cells."""
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
    ax.set(xlim=(-0.5, x0 + out2[1] + 0.5), ylim=(-out2[0] - 0.5, 1.3), aspect="equal")
    ax.axis("off")
    return ax


def _limit(array: np.ndarray) -> float:
    """The colour scale's end: the largest magnitude, twice that for a constant array (a
    middle shade, not the darkest)."""
    biggest = float(np.abs(array).max(initial=0.0))
    return biggest * (2 if np.ptp(array) == 0 else 1) if 0 < biggest < np.inf else 1.0


def _write_values(axis: Any, array: np.ndarray, colours: np.ndarray, x0: float = 0.0, y0: float = 0.0,
                  down: float = 1.0) -> None:
    """The numbers in the cells (row r at y0 + down * r), white on dark cells, black on light."""
    for (r, c), v in np.ndenumerate(array):
        red, green, blue = colours[r, c][:3]
        dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
        axis.text(x0 + c, y0 + down * r, f"{v:.3g}", ha="center", va="center", fontsize=9,
                  color="white" if dark else "black")


def draw_values(arrays: Sequence[np.ndarray], titles: Sequence[str], ax: Any = None,
                shared: bool = False) -> Any:
    """Small matrices side by side, their numbers in the cells: red for positive, blue for
    negative, stronger for larger; a scale per panel, or one for all with ``shared=True``."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize
    arrays = [np.atleast_2d(np.asarray(a, dtype=float)) for a in arrays]
    if ax is None:
        widths = [a.shape[1] + 1 for a in arrays]
        fig, axes = plt.subplots(1, len(arrays), figsize=(0.75 * sum(widths) + 1, 0.6 * max(a.shape[0] for a in arrays) + 1.2),
                                 gridspec_kw=dict(width_ratios=widths), layout="constrained")
        ax = np.atleast_1d(axes)
    limits = [_limit(np.concatenate([a.ravel() for a in arrays]))] * len(arrays) if shared else \
        [_limit(a) for a in arrays]
    cmap = plt.get_cmap("coolwarm")
    for axis, array, title, limit in zip(ax, arrays, titles, limits):
        norm = Normalize(-limit, limit)
        axis.imshow(array, cmap=cmap, norm=norm)
        _write_values(axis, array, cmap(norm(array)))
        axis.set_title(title, fontsize=10)
        axis.set(xticks=[], yticks=[])
    return ax


PIECE_COLOURS = ("#4a78a8", "#c48a2c", "#5b9e5b", "#9b5fa8")


def draw_cat(arrays: Sequence[np.ndarray], axis: int = 0, ax: Any = None) -> Any:
    """Up to four 2-D arrays, each in its own colour, and their concatenation along ``axis``,
    each cell in the colour of its input: the backward cuts the gradient along those lines."""
    from matplotlib.colors import to_rgba
    from matplotlib.patches import Rectangle
    arrays = [np.atleast_2d(np.asarray(a, dtype=float)) for a in arrays]
    pieces = [np.full(a.shape, i) for i, a in enumerate(arrays)]
    joined = np.concatenate(arrays, axis=axis)
    panels = [(a, p, f"input {i}\n{a.shape}") for i, (a, p) in enumerate(zip(arrays, pieces))]
    panels.append((joined, np.concatenate(pieces, axis=axis), f"cat(axis={axis})\n{joined.shape}"))
    width = sum(values.shape[1] + 1 for values, _, _ in panels) - 1
    ax = _axes(ax, (0.6 * width + 0.4, 0.6 * joined.shape[0] + 1.2))
    x0 = 0.0
    for values, piece, title in panels:
        colours = np.array([to_rgba(c) for c in PIECE_COLOURS])[piece]
        for (r, c), _ in np.ndenumerate(values):
            ax.add_patch(Rectangle((x0 + c, -r - 1), 1, 1, fc=colours[r, c], ec="white", lw=2))
        _write_values(ax, values, colours, x0 + 0.5, -0.5, down=-1.0)
        ax.text(x0 + values.shape[1] / 2, 0.15, title, ha="center", va="bottom", fontsize=9)
        x0 += values.shape[1] + 1
    ax.set(xlim=(-0.3, width + 0.3), ylim=(-joined.shape[0] - 0.3, 1.3), aspect="equal")
    ax.axis("off")
    return ax


def draw_matmul_shapes(a_shape: Sequence[int], b_shape: Sequence[int], ax: Any = None) -> Any:
    """The shapes of a batched ``A @ B``, axis by axis (batch axes aligned from the right,
    then the matrix axes); a faded batch axis, missing or of size 1, has its gradient summed."""
    from matplotlib.patches import Rectangle
    out = np.matmul(np.zeros(a_shape), np.zeros(b_shape)).shape  # zeros: no overflow warning
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
    ax.set(xlim=(-3.4, (batch + 2) * 1.1 + 0.6), ylim=(-len(rows) * 1.2 + 0.1, 1.7), aspect="equal")
    ax.axis("off")
    return ax


# The pictures of training (stage 6) and of attention (stage 7) live next door.
from .plotting_training import draw_attention, plot_curves, plot_decision_boundary  # noqa: E402,F401
