"""Helpers for testing the reference package against independent NumPy functions.

The gradients come from ``grader.checks.numeric``: central differences, which import nothing of
minitorch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from grader.checks.numeric import numeric_vjp


def check_against_numpy(mt, op: Callable, reference: Callable[..., np.ndarray],
                        arrays: Sequence[np.ndarray], rng: np.random.Generator,
                        differentiable: Sequence[int] | None = None,
                        rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Run ``op`` on float64 Tensors of ``arrays``; compare its value with ``reference``
    and each input's gradient with central differences of ``reference``. Also checks that
    neither the inputs nor the upstream gradient were modified."""
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    differentiable = range(len(arrays)) if differentiable is None else differentiable
    tensors = [mt.Tensor(a, requires_grad=i in differentiable) for i, a in enumerate(arrays)]
    before = [t.data.copy() for t in tensors]
    out = op(*tensors)
    expected = reference(*arrays)
    assert out.shape == np.shape(expected), f"forward shape {out.shape} != {np.shape(expected)}"
    np.testing.assert_allclose(out.data, expected, rtol=1e-7, atol=1e-10, err_msg="forward value")

    upstream = rng.standard_normal(out.shape)
    upstream_copy = upstream.copy()
    out.backward(upstream)
    np.testing.assert_array_equal(upstream, upstream_copy, err_msg="upstream gradient was modified")
    for t, b in zip(tensors, before):
        np.testing.assert_array_equal(t.data, b, err_msg="an input was modified")
    for i in differentiable:
        grad = tensors[i].grad
        assert grad is not None, f"input {i} got no gradient"
        assert grad.shape == arrays[i].shape and grad.dtype == np.float64
        np.testing.assert_allclose(grad, numeric_vjp(reference, arrays, upstream, i),
                                   rtol=rtol, atol=atol, err_msg=f"gradient of input {i}")


def away_from(values: np.ndarray, points: Sequence[float], margin: float = 0.1) -> np.ndarray:
    """Move values that lie within ``margin`` of a kink in ``points`` out of the way."""
    values = np.array(values, dtype=np.float64)
    for p in points:
        close = np.abs(values - p) < margin
        values[close] = p + np.where(values[close] >= p, margin, -margin) * 2
    return values
