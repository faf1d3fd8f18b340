"""A wrong array, drawn: what came back, what was expected and their difference, side by
side as heat maps with a colour scale each, at the width of JupyterLab's output area.

Only in a notebook (an IPython kernel): ``make progress`` and scripts never draw. The
picture is shown after the cell's error message, so the message stays first.
"""

from __future__ import annotations

import io
import sys
from typing import Any

import numpy as np

WIDTH_INCHES, DPI = 9.0, 100  # 900 pixels: JupyterLab's output area on a laptop screen


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (not a script, not ``make progress``)."""
    if "IPython" not in sys.modules:
        return False
    shell = sys.modules["IPython"].get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _flat(values: np.ndarray) -> np.ndarray:
    """A 2-D view: the last axis across, every other axis stacked down."""
    values = np.asarray(values, dtype=np.float64)
    return values.reshape(-1, values.shape[-1])


def draw(got: np.ndarray, expected: np.ndarray, title: str = "") -> Any:
    """A matplotlib Figure (not pyplot's) of got, expected and got - expected."""
    from matplotlib import colormaps
    from matplotlib.ticker import MaxNLocator
    from matplotlib.figure import Figure

    got_2d, expected_2d = _flat(got), _flat(expected)
    rows = expected_2d.shape[0]
    height = min(4.0, max(1.8, 0.25 * rows + 1.2))
    fig = Figure(figsize=(WIDTH_INCHES, height), dpi=DPI, layout="constrained")
    axes = fig.subplots(1, 3)
    finite = np.concatenate([v[np.isfinite(v)] for v in (got_2d, expected_2d)] + [np.zeros(1)])
    bound = max(float(np.abs(finite).max()), 1e-12)
    difference = got_2d - expected_2d
    gap = max(float(np.abs(difference[np.isfinite(difference)]).max(initial=0.0)), 1e-12)
    for ax, values, name, limit in [(axes[0], got_2d, "what came back", bound),
                                    (axes[1], expected_2d, "what was expected", bound),
                                    (axes[2], difference, "came back - expected", gap)]:
        shown = np.ma.masked_invalid(values)
        colours = colormaps["RdBu_r"].with_extremes(bad="#f2c200")  # NaN and inf in yellow
        image = ax.imshow(shown, cmap=colours, vmin=-limit, vmax=limit, aspect="auto", interpolation="nearest")
        ax.set_title(name, fontsize=9)
        ax.tick_params(labelsize=7)
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_locator(MaxNLocator(integer=True))  # element indices, not pixel edges
        fig.colorbar(image, ax=ax, shrink=0.9).ax.tick_params(labelsize=7)
    if np.ndim(expected) > 2:
        axes[0].set_ylabel(f"axes 0..{np.ndim(expected) - 2} stacked", fontsize=7)
    if title:
        fig.suptitle(title if len(title) <= 110 else title[:107] + "...", fontsize=9)
    return fig


def png(got: np.ndarray, expected: np.ndarray, title: str = "") -> bytes:
    buffer = io.BytesIO()
    draw(got, expected, title).savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def show_after_cell(got: np.ndarray, expected: np.ndarray, title: str = "") -> bool:
    """In a notebook, draw the heat maps once the cell has shown its error; True if so."""
    if not in_notebook():
        return False
    shell = sys.modules["IPython"].get_ipython()
    try:
        picture = png(got, expected, title)
    except Exception:  # a picture that cannot be drawn never hides the message
        return False
    from IPython.display import Image, display

    def once(*_: Any) -> None:
        shell.events.unregister("post_run_cell", once)
        display(Image(data=picture, format="png", width=int(WIDTH_INCHES * DPI)))

    shell.events.register("post_run_cell", once)
    return True
