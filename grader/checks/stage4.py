"""Stage 4: movement ops, indexing, cat and stack."""

from __future__ import annotations

import numpy as np

from grader.checks import part
from grader.checks.common import CheckFailure, index_spec
from grader.checks.naming import judge, known_for, named_raise
from grader.checks.rules import check_float32, check_rule, run_rule


@part("4.1", "Reshape")
def reshape(w, rng):
    x = rng.standard_normal((2, 3, 4))
    for shape in [(4, 6), (-1,), (3, -1, 2), (1, 24, 1)]:
        check_rule(w, "ops_shape.Reshape", lambda a: a.reshape(shape), [x], rng, label=f"(shape={shape})", shape=shape)
    # a gradient laid out column by column, as one coming back through a transpose is
    memory_order = (0, "it reads the upstream gradient in memory order (ravel or flatten with order 'K' or 'A'), "
                       "which for a transposed array is not index order: reshape it as it is, "
                       "grad.reshape(shape)", "memory order", lambda arrays, g: np.ravel(g, order="K").reshape(x.shape))
    check_rule(w, "ops_shape.Reshape", lambda a: a.reshape(4, 6), [x], rng, upstream_order="F", shape=(4, 6),
               label="(shape=(4, 6), its upstream gradient a transposed array)", mistakes=[memory_order])
    check_float32(w, "ops_shape.Reshape", [x], lambda a: a.reshape(4, 6), shape=(4, 6))


@part("4.1", "Transpose")
def transpose(w, rng):
    x = rng.standard_normal((2, 3, 4))
    for axes in [(2, 0, 1), (1, 2, 0), (0, 2, 1), None, (-1, 0, 1)]:
        check_rule(w, "ops_shape.Transpose", lambda a: np.transpose(a, axes), [x], rng, label=f"(axes={axes})",
                   axes=axes)
    check_float32(w, "ops_shape.Transpose", [x], lambda a: np.transpose(a, (2, 0, 1)), axes=(2, 0, 1))


@part("4.1", "BroadcastTo")
def broadcast_to(w, rng):
    swaps = {"ops_shape.unbroadcast": "unbroadcast"}
    for shape, target in [((3, 1), (2, 3, 4)), ((4,), (3, 4)), ((), (2, 2)), ((1, 3), (1, 3))]:
        check_rule(w, "ops_shape.BroadcastTo", lambda a: np.broadcast_to(a, target), [rng.standard_normal(shape)],
                   rng, label=f"(shape={target})", kind="broadcast", swaps=swaps, shape=target)
    check_float32(w, "ops_shape.BroadcastTo", [np.ones((3, 1))], lambda a: np.broadcast_to(a, (2, 3, 4)),
                  swaps=swaps, shape=(2, 3, 4))


@part("4.1", "Squeeze")
def squeeze(w, rng):
    # first an axis where a size-1 axis put back at 0, at 1 or at the end gives three different wrong shapes
    x = rng.standard_normal((2, 3, 1, 4))
    check_rule(w, "ops_shape.Squeeze", lambda a: np.squeeze(a, 2), [x], rng, label="(axis=2)", axis=2)
    y = rng.standard_normal((1, 3, 1))
    check_rule(w, "ops_shape.Squeeze", np.squeeze, [y], rng, label="(axis=None)", axis=None)
    for axis in (2, -1, 0):
        check_rule(w, "ops_shape.Squeeze", lambda a: np.squeeze(a, axis), [y], rng, label=f"(axis={axis})", axis=axis)
    check_float32(w, "ops_shape.Squeeze", [y], lambda a: np.squeeze(a, 0), axis=0)


@part("4.1", "Unsqueeze")
def unsqueeze(w, rng):
    for shape in [(2, 3), (1, 3)]:  # an input with a size-1 axis of its own, which must stay
        x = rng.standard_normal(shape)
        for axis in (0, 1, -1, 2):
            check_rule(w, "ops_shape.Unsqueeze", lambda a: np.expand_dims(a, axis), [x], rng, label=f"(axis={axis})",
                       axis=axis)
    check_float32(w, "ops_shape.Unsqueeze", [np.ones((1, 3))], lambda a: np.expand_dims(a, -1), axis=-1)


def _getitem(w, x, index, rng, label):
    check_rule(w, "ops_index.GetItem", lambda a: a[index], [x], rng, label=f"[{label}]", index=index_spec(index))


@part("4.2", "ints, slices, None, Ellipsis")
def getitem_basic(w, rng):
    x = rng.standard_normal((3, 4, 2))
    # "::-1" first: its output has the input's shape, so np.add.at with its arguments swapped gives zeros there, not
    # the error it shares with zeros of the output's shape on "0"
    cases = {"::-1": (slice(None, None, -1),), "0": (0,),
             "::2": (slice(None, None, 2),), "..., 1": (Ellipsis, 1), "None, 1:3": (None, slice(1, 3)),
             ":, -1, ::-1": (slice(None), -1, slice(None, None, -1)), "-1": -1}
    for label, index in cases.items():
        _getitem(w, x, index, rng, label)
    check_float32(w, "ops_index.GetItem", [x], lambda a: a[0], index=index_spec((0,)))


@part("4.2", "repeated integer indices")
def getitem_repeats(w, rng):
    params = dict(index=index_spec(np.array([0, 2, 0, 0])))
    try:
        _, grads = run_rule(w, "ops_index.GetItem", [np.zeros(3)], np.ones(4), "[[0, 2, 0, 0]]", **params)
    except CheckFailure as failure:
        raise named_raise(failure, known_for("ops_index.GetItem", [np.zeros(3)], np.ones(4), params)) from None
    judge("GetItem.backward for x[[0, 2, 0, 0]]: element 0 was picked three times, so it must collect three "
          "gradients (np.add.at, not grad[index] = ... or +=)", "ops_index.GetItem", [np.zeros(3)], np.ones(4), params,
          0, grads[0], np.array([3.0, 0.0, 1.0]))
    x = rng.standard_normal((3, 4, 2))
    for label, index in {"[0, 1, 0, 0]": (np.array([0, 1, 0, 0]),), "[[2, 2], [0, 1]], 1:3": (np.array([[2, 2], [0, 1]]),
                         slice(1, 3)), "[0, 1, 1], [2, 2, 2]": (np.array([0, 1, 1]), np.array([2, 2, 2]))}.items():
        _getitem(w, x, index, rng, label)


@part("4.2", "boolean masks")
def getitem_masks(w, rng):
    x = rng.standard_normal((3, 4, 2))
    _getitem(w, x, np.array([True, False, True]), rng, "boolean mask")
    _getitem(w, x, x > 0, rng, "x > 0")


@part("4.3", "Cat")
def cat(w, rng):
    cases: list[tuple[int, list[tuple[int, ...]]]] = [
        (0, [(1, 3), (2, 3), (3, 3)]), (1, [(2, 1), (2, 4), (2, 2)]), (-1, [(2, 3), (2, 3)]), (0, [(4,), (1,)])]
    for axis, shapes in cases:
        arrays = [rng.standard_normal(s) for s in shapes]
        check_rule(w, "ops_index.Cat", lambda *a: np.concatenate(a, axis=axis), arrays, rng, label=f"(axis={axis})",
                   axis=axis)
    check_float32(w, "ops_index.Cat", [np.ones((2, 3)), np.ones((1, 3))], lambda *a: np.concatenate(a, 0), axis=0)


@part("4.3", "Stack")
def stack(w, rng):
    for axis in (0, 1, -1, 2, -3):
        arrays = [rng.standard_normal((2, 3)) for _ in range(3)]
        check_rule(w, "ops_index.Stack", lambda *a: np.stack(a, axis=axis), arrays, rng, label=f"(axis={axis})",
                   axis=axis)
    check_float32(w, "ops_index.Stack", [np.ones((2, 3)), np.ones((2, 3))], lambda *a: np.stack(a, 1), axis=1)
