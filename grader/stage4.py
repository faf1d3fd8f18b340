"""Hidden checks of stage 4: movement ops, indexing, cat and stack."""

from __future__ import annotations

import numpy as np

from .checks import check_float32, check_rule, explain, patched, run_rule, trusted_unbroadcast
from .registry import task


@task("4.1")
def movement_gradients(mt, rng):
    ops = mt.ops_shape
    x = rng.standard_normal((2, 3, 4))
    check_rule(mt, ops.Reshape, lambda a: a.reshape(4, 6), [x], rng, shape=(4, 6))
    check_rule(mt, ops.Reshape, lambda a: a.reshape(-1), [x], rng, shape=(-1,))
    for axes in [(2, 0, 1), (1, 2, 0), (0, 2, 1), None]:
        check_rule(mt, ops.Transpose, lambda a: np.transpose(a, axes), [x], rng, label=f"(axes={axes})", axes=axes)
    with patched(ops, unbroadcast=trusted_unbroadcast):
        for shape, target in [((3, 1), (2, 3, 4)), ((4,), (3, 4)), ((), (2, 2))]:
            check_rule(mt, ops.BroadcastTo, lambda a: np.broadcast_to(a, target), [rng.standard_normal(shape)],
                       rng, label=f"(shape={target})", shape=target)
    y = rng.standard_normal((1, 3, 1))
    check_rule(mt, ops.Squeeze, np.squeeze, [y], rng)
    check_rule(mt, ops.Squeeze, lambda a: np.squeeze(a, 2), [y], rng, axis=2)
    check_rule(mt, ops.Unsqueeze, lambda a: np.expand_dims(a, -1), [x], rng, axis=-1)
    check_rule(mt, ops.Unsqueeze, lambda a: np.expand_dims(a, 1), [x], rng, axis=1)
    check_float32(mt, ops.Transpose, [x], axes=(2, 0, 1))


INDICES = [
    (0,), (slice(None, None, 2),), (Ellipsis, 1), (None, slice(1, 3)), (slice(None), -1, slice(None, None, -1)),
    (np.array([0, 1, 0, 0]),), (np.array([[2, 2], [0, 1]]), slice(1, 3)),
    (np.array([0, 1, 1]), np.array([2, 2, 2])),
]


@task("4.2")
def getitem_gradients(mt, rng):
    _, grads, _ = run_rule(mt, mt.ops_index.GetItem, [np.zeros(3)], upstream=np.ones(4), index=np.array([0, 2, 0, 0]))
    explain("GetItem.backward for x[[0, 2, 0, 0]]: element 0 was picked three times, so it must "
            "collect three gradients (np.add.at, not grad[index] = ... or +=)", grads[0], np.array([3.0, 0.0, 1.0]))
    x = rng.standard_normal((3, 4, 2))
    for index in INDICES:
        check_rule(mt, mt.ops_index.GetItem, lambda a: a[index], [x], rng, label=f"[{index}]", index=index)
    mask = np.array([True, False, True])
    check_rule(mt, mt.ops_index.GetItem, lambda a: a[mask], [x], rng, label="[boolean mask]", index=mask)
    check_float32(mt, mt.ops_index.GetItem, [x], index=(np.array([0, 0]),))


@task("4.3")
def cat_and_stack_gradients(mt, rng):
    ops = mt.ops_index
    for axis in (0, 1, -1):
        shapes = [(2, 3), (2, 3), (2, 3)]
        if axis == 0:
            shapes = [(1, 3), (2, 3), (3, 3)]
        elif axis == 1:
            shapes = [(2, 1), (2, 4), (2, 2)]
        arrays = [rng.standard_normal(s) for s in shapes]
        check_rule(mt, ops.Cat, lambda *a: np.concatenate(a, axis=axis), arrays, rng,
                   label=f"(axis={axis})", axis=axis)
    for axis in (0, 1, -1, 2):
        arrays = [rng.standard_normal((2, 3)) for _ in range(3)]
        check_rule(mt, ops.Stack, lambda *a: np.stack(a, axis=axis), arrays, rng, label=f"(axis={axis})", axis=axis)
    check_float32(mt, ops.Stack, [np.ones((2, 3)), np.ones((2, 3))], axis=1)
