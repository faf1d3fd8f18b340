"""The notebooks' pictures: every drawing runs without a warning, value maps stay readable
when an array is constant, and the concatenation diagram colours each cell of the joined
array like the input it came from."""

import warnings

import matplotlib
import numpy as np
import pytest
from matplotlib.colors import to_rgba

import minitorch as mt
from minitorch import plotting

matplotlib.use("agg")
import matplotlib.pyplot as plt


@pytest.fixture(autouse=True)
def warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield
    plt.close("all")


def luminance(colour) -> float:
    red, green, blue = to_rgba(colour)[:3]
    return 0.299 * red + 0.587 * green + 0.114 * blue


def cell_colours(axis) -> np.ndarray:
    image = axis.get_images()[0]
    return image.cmap(image.norm(image.get_array()))


def test_every_drawing_runs_without_a_warning():
    x = mt.Scalar(0.5, "x")
    plotting.draw_graph((x * x).sin())
    a = mt.Tensor(np.ones((4, 3)), requires_grad=True)
    plotting.draw_graph(((a * mt.Tensor(np.ones(3))).sum(axis=1) ** 2).mean(), show_grad=False)
    plotting.draw_broadcast((3,), (4, 1))
    plotting.draw_values([np.zeros((2, 2)), np.ones(3), np.array([[-1.0, 2.0]])], ["zeros", "ones", "mixed"])
    plotting.draw_cat([np.ones((2, 1)), np.zeros((2, 3))], axis=1)
    plotting.draw_matmul_shapes((8, 1, 4, 3), (5, 3, 2))  # np.empty here once overflowed
    plotting.plot_curves({"train": [1.0, 0.5, 0.2], "validation": [1.1, 0.6, 0.3]})
    points, classes = np.random.default_rng(0).standard_normal((30, 2)), np.arange(30) % 3
    plotting.plot_decision_boundary(lambda p: (p[:, 0] > 0).astype(int), points, classes, resolution=20)


@pytest.mark.parametrize("value", [1.0, -3.0, 1e-3, 250.0])
def test_a_constant_array_gets_a_middle_shade_and_legible_numbers(value):
    """A gradient of all ones once filled its panel with the darkest red, the numbers
    barely legible: it now gets a middle shade, and every number contrasts with its cell."""
    axis = plotting.draw_values([np.full((3, 2), value)], ["constant"])[0]
    colours = cell_colours(axis)
    darkest = axis.get_images()[0].cmap(1.0 if value > 0 else 0.0)
    assert np.allclose(colours, colours[0, 0]) and not np.allclose(colours[0, 0], darkest)
    neutral = axis.get_images()[0].cmap(0.5)
    assert not np.allclose(colours[0, 0], neutral, atol=0.05), "a nonzero constant must not look like zero"
    texts = axis.texts
    assert [t.get_text() for t in texts] == [f"{value:.3g}"] * 6
    for text in texts:
        assert abs(luminance(text.get_color()) - luminance(colours[0, 0])) > 0.35


def test_numbers_contrast_with_their_cells_everywhere():
    array = np.array([[-60.0, -20.0, 0.0], [5.0, 30.0, 60.0]])
    axis = plotting.draw_values([array], ["mixed"])[0]
    colours = cell_colours(axis)
    for text, (r, c) in zip(axis.texts, np.ndindex(array.shape)):
        assert abs(luminance(text.get_color()) - luminance(colours[r, c])) > 0.35, (r, c)


def test_zeros_are_neutral_and_a_shared_scale_gives_equal_numbers_equal_colours():
    axes = plotting.draw_values([np.zeros((2, 2)), np.array([[2.0, 4.0]]), np.array([[4.0]])], ["z", "a", "b"],
                                shared=True)
    zero, pair, single = (cell_colours(axis) for axis in axes)
    assert np.allclose(zero, axes[0].get_images()[0].cmap(0.5))
    assert np.allclose(pair[0, 1], single[0, 0]) and not np.allclose(pair[0, 0], pair[0, 1])


@pytest.mark.parametrize("axis", [0, 1])
def test_the_cat_diagram_colours_each_joined_cell_like_its_input(axis):
    rng = np.random.default_rng(0)
    shapes = [(2, 1), (2, 3), (2, 2)] if axis == 1 else [(1, 3), (3, 3), (2, 3)]
    arrays = [np.round(rng.standard_normal(s), 1) for s in shapes]
    ax = plotting.draw_cat(arrays, axis=axis)
    cells = [p.get_facecolor() for p in ax.patches]
    sizes = [a.size for a in arrays]
    assert len(cells) == 2 * sum(sizes)
    inputs, joined = cells[:sum(sizes)], cells[sum(sizes):]
    starts = np.cumsum([0] + sizes)
    own = [inputs[starts[i]] for i in range(len(arrays))]
    assert len({tuple(c) for c in own}) == len(arrays), "each input has its own colour"
    assert all(np.allclose(c, own[i]) for i in range(len(arrays)) for c in inputs[starts[i]:starts[i + 1]])
    source = np.concatenate([np.full(a.shape, i) for i, a in enumerate(arrays)], axis=axis)
    for cell, piece in zip(joined, source.ravel()):
        assert np.allclose(cell, own[piece])
    numbers = [t.get_text() for t in ax.texts if "\n" not in t.get_text()]
    joined_values = np.concatenate(arrays, axis=axis)
    assert numbers[sum(sizes):] == [f"{v:.3g}" for v in joined_values.ravel()]


def test_a_tensor_graph_names_its_inputs():
    """Notebook 02's graph labels its inputs a and b (it once said "leaf" for both)."""
    a = mt.Tensor(np.ones((4, 3)), requires_grad=True)
    b = mt.Tensor(np.ones(3), requires_grad=True)
    axis = plotting.draw_graph(((a * b).sum(axis=1) ** 2).mean(), show_grad=False, names={"a": a, "b": b})
    labels = [text.get_text() for text in axis.texts]
    assert "a\nshape (4, 3)" in labels and "b\nshape (3,)" in labels and not [l for l in labels if "leaf" in l]
    import pathlib
    source = (pathlib.Path(__file__).resolve().parents[2] / "solutions" / "notebooks" / "02_broadcasting.py").read_text()
    assert 'names={"a": a, "b": b}' in source


def test_attention_heat_maps_have_a_colour_bar_from_0_to_1():
    weights = np.tril(np.ones((2, 4, 4)))
    weights /= weights.sum(-1, keepdims=True)
    axes = plotting.draw_attention(weights, list(".ann"), title="block 1, ")
    figure = axes[0].figure
    bars = [ax for ax in figure.axes if ax not in list(axes)]
    assert len(axes) == 2 and len(bars) == 1 and bars[0].get_ylabel() == "attention weight"
    assert bars[0].get_ylim() == (0.0, 1.0) and axes[1].get_title() == "block 1, head 2"
