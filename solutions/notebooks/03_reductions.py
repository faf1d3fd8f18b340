# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 3 · Unary functions and reductions
#
# Two families of operations in this notebook. **Unary** functions work element by
# element, so their backward is the upstream gradient times the local derivative,
# element by element. **Reductions** (`sum`, `mean`, `max`, `min`) shrink axes away, so
# their backward has to grow the gradient back to the input's shape.
#
# **You will:** write the backward of nine unary functions (3.1); put the reduced axes
# back for sum and mean (3.2); send the gradient of max and min to the extremes, shared
# among ties (3.3).
#
# **Time:** about 1.5 hours.

# %%
# Edits you save in minitorch/ reach this notebook at the next cell (a file that does not
# load is named in one short line instead).
# %load_ext minitorch.course.notebook
import matplotlib.pyplot as plt
import numpy as np

import minitorch as mt
from minitorch import plotting
from minitorch.function import Context
from minitorch.course.visible import check_backward, checking, fail, same  # the checks' messages

# %% [markdown]
# ## Your task 3.1: unary backward rules in `minitorch/ops_unary.py`
#
# For $\text{out}_i = f(x_i)$, output $i$ depends on input $i$ only, so the Jacobian is
# diagonal and the backward is `grad * f'(x)`:
#
# | f | f′ | | f | f′ |
# | --- | --- | --- | --- | --- |
# | $e^x$ | $e^x$ (the output) | | $\sin x$ | $\cos x$ |
# | $\ln x$ | $1/x$ | | $\cos x$ | $-\sin x$ |
# | $\sqrt{x}$ | $1 / (2\sqrt{x})$ | | $\tanh x$ | $1 - \tanh^2 x$ |
# | $\lvert x\rvert$ | sign of $x$ (0 at 0) | | $\sigma(x)$ | $\sigma(x)(1 - \sigma(x))$ |
# | relu | 1 where $x > 0$, else 0 | | $-x$ | $-1$ (done for you) |
#
# Several rules are cheapest from the output the forward saved rather than from `x`.
# A rule of one input returns its gradient as one array, as `Neg.backward` does (a tuple
# of one array works too). Keep the dtype: float32 in, float32 out.
#
# Stuck? `mt.hint("3.1")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% tags=["not-graded", "raises-exception"]
x = np.linspace(-4, 4, 400)
fig, axes = plt.subplots(1, 3, figsize=(10, 2.8), layout="constrained")
for ax, (name, f, df) in zip(axes, [("tanh", np.tanh, lambda t: 1 - np.tanh(t) ** 2),
                                    ("sigmoid", lambda t: 1 / (1 + np.exp(-t)), lambda t: np.exp(-t) / (1 + np.exp(-t)) ** 2),
                                    ("relu", lambda t: np.maximum(t, 0), lambda t: (t > 0) * 1.0)]):
    ax.plot(x, f(x), lw=2, label=name)
    ax.plot(x, df(x), lw=2, ls="--", label="derivative")
    ax.legend(fontsize=9)
    ax.grid(alpha=0.3)

# %% nbgrader={"grade": false, "grade_id": "task3_1_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 3.1: each rule on a plain array, for a random upstream gradient, against
# central differences of the NumPy function (mt.numerical_grads)
with checking("3.1"):
    from minitorch import ops_unary  # noqa: E402
    from minitorch.function import Context  # noqa: E402

    x, pos = np.array([[-1.5, 0.5], [2.0, -0.3]]), np.array([[0.5, 1.0], [2.0, 3.5]])
    g = np.random.default_rng(0).standard_normal((2, 2))
    sigmoid = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    far = {"Exp": [-100.0, 80.0], "Log": [1e-30, 1e30], "Sqrt": [1e-30, 1e30], "Abs": [-1e30, 1e30], "Sin": [-300.0, 1000.0],
           "Cos": [-300.0, 1000.0], "Tanh": [-50.0, 20.0], "Sigmoid": [-100.0, 40.0], "Relu": [-1e30, 1e30]}
    for name, at, with_numpy in [("Exp", x, np.exp), ("Log", pos, np.log), ("Sqrt", pos, np.sqrt), ("Abs", x, np.abs),
                                 ("Sin", x, np.sin), ("Cos", x, np.cos), ("Tanh", x, np.tanh), ("Sigmoid", x, sigmoid),
                                 ("Relu", x, lambda v: np.maximum(v, 0))]:
        op = getattr(ops_unary, name)
        for dtype in (np.float64, np.float32):
            check_backward(op, [at.astype(dtype)], g.astype(dtype), reference=with_numpy)
        # far from 1 (central differences at the scale of each value): nothing may overflow or turn into nan
        for v in far[name]:
            (at_scale,) = mt.numerical_grads(lambda u: with_numpy(u * abs(v)), [np.sign([v])])
            for dtype in (np.float64, np.float32):
                check_backward(op, [np.array([v], dtype)], np.ones(1, dtype), [at_scale / abs(v)], case="a value far from 1",
                               hint="Compute the derivative from what the forward saved, so that nothing overflows.")
    for name in ("Abs", "Relu"):  # at exactly 0 both derivatives are taken to be 0
        check_backward(getattr(ops_unary, name), [np.zeros(1)], np.ones(1), [np.zeros(1)], case="x exactly 0",
                       hint="At the kink take the derivative to be 0, as PyTorch does.")
    print("Task 3.1 passes the visible checks")

# %% [markdown]
# ## Sum and mean: reinsert the axes, then broadcast back
#
# `x.sum(axis=1)` on a `(3, 4)` input gives shape `(3,)`: output $i$ is
# $\sum_j x_{ij}$, so every $x_{ij}$ in row $i$ gets the same gradient, $g_i$. The
# backward is *a broadcast*, the mirror image of notebook 2: first put the reduced axis
# back as size 1 (`(3,)` → `(3, 1)`; with `keepdims=True` it is already there), then
# broadcast to `(3, 4)`. For `mean`, also divide by the number of elements averaged.
#
# Without reinserting the axis, `(3,)` would broadcast against `(3, 4)` along the *wrong*
# axis (or fail): that is the "lost keepdims" bug.

# %% tags=["not-graded", "raises-exception"]
x = np.arange(12.0).reshape(3, 4)
g = np.array([1.0, -2.0, 0.5])
plotting.draw_values([x, x.sum(axis=1, keepdims=True), g[:, None], np.broadcast_to(g[:, None], x.shape)],
                     ["x  (3, 4)", "x.sum(axis=1)", "upstream g, axis back", "gradient for x"]);

# %% [markdown]
# ## Your task 3.2: `_with_reduced_axes` in `minitorch/ops_reduce.py`
#
# `Sum.backward` and `Mean.backward` are given: each calls `_with_reduced_axes` to put the
# reduced axes back into the upstream gradient as size 1, then broadcasts it to the
# input's shape (Mean also divides by the count). That helper is your task.
#
# The forward turned `axis` (None, an int, a tuple, negatives allowed) into a sorted
# tuple of non-negative axes, `ctx.axes`, and stored `ctx.keepdims` and the input's
# `ctx.shape`. `np.expand_dims` accepts a tuple of axes.
#
# Stuck? `mt.hint("3.2")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task3_2_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 3.2: Sum and Mean over several axes, negative axes, keepdims and all axes,
# against central differences of NumPy's own sum and mean
with checking("3.2"):
    from minitorch.ops_reduce import Mean, Sum  # noqa: E402

    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    for op, with_numpy in ((Sum, np.sum), (Mean, np.mean)):
        for params in (dict(axis=(0, -1), keepdims=False), dict(axis=1, keepdims=True), dict(axis=None, keepdims=False)):
            check_backward(op, [x], params=params, reference=lambda v: with_numpy(v, **params))
        check_backward(op, [x.astype(np.float32)], np.ones((2, 4), np.float32), params=dict(axis=1, keepdims=False),
                       reference=lambda v: with_numpy(v, axis=1))
    print("Task 3.2 passes the visible checks")

# %% [markdown]
# ## Max and min: the gradient goes to the winners
#
# The maximum of a row depends only on its largest element: nudge any other element a
# little and the maximum does not move. So the whole gradient goes to the largest
# element. When several elements tie for the maximum, we share the gradient **equally**
# among them (PyTorch's `amax` does the same), so the shares still add up to the
# upstream gradient.

# %% tags=["raises-exception"]
x = np.array([[1.0, 4.0, 2.0, 4.0], [3.0, 0.0, 1.0, 2.0]])
winners = x == x.max(axis=1, keepdims=True)
share = winners / winners.sum(axis=1, keepdims=True)
plotting.draw_values([x, x.max(axis=1, keepdims=True), share], ["x", "x.max(axis=1)", "gradient for x (g = 1)"]);

# %% [markdown]
# ## Your task 3.3: `_to_extremes` in `minitorch/ops_reduce.py`
#
# `Max.backward` and `Min.backward` are given and both call `_to_extremes(grad, x, out, ctx)`,
# your task: send each output's gradient to the input elements that equal the extreme.
#
# The forward saved `x` and the extremes `out` *with* the reduced axes kept (size 1), so
# `x == out` marks the winners. Count them per reduced group, in the gradient's dtype
# (an integer count would turn a float32 gradient into float64).
#
# Stuck? `mt.hint("3.3")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task3_3_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 3.3: max and min share the gradient equally among tied extremes
with checking("3.3"):
    from minitorch.ops_reduce import Max, Min  # noqa: E402

    x = np.array([[1.0, 3.0, 2.0, 3.0], [4.0, 0.0, 1.0, 0.0]])  # ties: the 3s of row 0, the 0s of row 1
    ties = "tied extremes share the gradient equally: k ties get 1/k of it each"
    # keepdims=True first: grad lines up with x as it is, so an error there is not a missing np.expand_dims
    for upstream, keepdims in [(np.array([[2.0], [1.0]]), True), (np.array([2.0, 1.0]), False)]:
        check_backward(Max, [x], upstream, [np.array([[0, 1, 0, 1], [1, 0, 0, 0]])], case="x with a tie in row 0",
                       params=dict(axis=1, keepdims=keepdims), hint=ties)
    check_backward(Min, [x], np.array([[3.0], [1.0]]), [np.array([[3, 0, 0, 0], [0, 0.5, 0, 0.5]])],
                   case="x with a tie in row 1", params=dict(axis=-1, keepdims=True), hint=ties)
    check_backward(Max, [np.array([[5.0, 1.0, 5.0], [5.0, 2.0, 0.0]])], np.array(3.0), [np.array([[1, 0, 1], [1, 0, 0]])],
                   case="a three-way tie over all axes", params=dict(axis=None, keepdims=False), hint=ties)
    check_backward(Max, [np.ones(4, dtype=np.float32)], np.float32(1.0), [np.full(4, 0.25)],
                   case="a constant float32 array: four ties", params=dict(axis=None, keepdims=False), hint=ties)
    print("Task 3.3 passes the visible checks")

# %% [markdown]
# ## Putting it together
#
# A softened maximum pulls a little gradient to every element; the hard maximum gives all
# of it to the winner. Your reductions and unary rules, through the whole engine:

# %% tags=["not-graded", "raises-exception"]
x = mt.Tensor(np.array([0.5, 2.0, 1.0, 1.8]), requires_grad=True)
x.max().backward()
hard = x.grad.copy()
x.zero_grad()
(x * 4).exp().sum().log().backward()  # a smooth maximum, scaled
fig, ax = plt.subplots(figsize=(5, 2.8), layout="constrained")
ax.bar(np.arange(4) - 0.2, hard, width=0.4, label="max")
ax.bar(np.arange(4) + 0.2, x.grad / 4, width=0.4, label="log-sum-exp (scaled)")
ax.set_xticks(range(4), [f"x={v}" for v in x.data])
ax.set_ylabel("gradient")
ax.legend()
print("max:", hard, "   log-sum-exp (scaled):", np.round(x.grad / 4, 4))
