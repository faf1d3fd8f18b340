# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 4 · Shapes, indexing and concatenation
#
# These operations compute nothing new: they move, repeat or pick elements. So every
# backward here moves the gradient back to where each element came from. The art is in
# the bookkeeping.
#
# **You will:** invert reshape, transpose, broadcast_to, squeeze and unsqueeze (4.1);
# scatter an indexing gradient back, with repeated indices added up (4.2); split the
# gradient of a concatenation or a stack (4.3).
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
# ## Your task 4.1: reshape, transpose, broadcast_to, squeeze, unsqueeze in `minitorch/ops_shape.py`
#
# * `reshape`, `squeeze`, `unsqueeze` keep the elements in the same order and only
#   change the shape: the gradient just takes the input's shape back.
# * `transpose(axes)` sends input axis `axes[k]` to output position `k`. To undo it,
#   transpose the gradient by the *inverse* permutation: input axis `i` sits at output
#   position `axes.index(i)`. (For 2-D, the inverse of swapping is swapping.)
# * `broadcast_to` repeats elements: its backward is the sum from notebook 2.
#
# Stuck? `mt.hint("4.1")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% tags=["not-graded", "raises-exception"]
x = np.arange(6.0).reshape(2, 3)
plotting.draw_values([x, x.reshape(3, 2), x.T], ["x  (2, 3)", "x.reshape(3, 2)", "x.T  (3, 2)"]);

# %% nbgrader={"grade": false, "grade_id": "task4_1_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 4.1: each movement's backward against central differences of the NumPy
# movement it undoes (mt.numerical_grads), for a random upstream gradient
with checking("4.1"):
    from minitorch import ops_shape  # noqa: E402

    rng = np.random.default_rng(0)
    x, column = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 1))
    for name, at, params, with_numpy in [
            ("Reshape", x, dict(shape=(4, -1)), lambda v: v.reshape(4, -1)),
            ("Transpose", x, dict(axes=(2, 0, 1)), lambda v: v.transpose(2, 0, 1)),
            ("BroadcastTo", column, dict(shape=(2, 3, 5)), lambda v: np.broadcast_to(v, (2, 3, 5))),
            ("Squeeze", x.reshape(2, 1, 12, 1), dict(axis=1), lambda v: v.squeeze(1)),
            ("Squeeze", x.reshape(2, 1, 12, 1), dict(axis=-1), lambda v: v.squeeze(-1)),  # another axis: none hard-coded
            ("Squeeze", x.reshape(2, 1, 12, 1), dict(axis=None), lambda v: v.squeeze()),  # every size-1 axis
            ("Unsqueeze", column, dict(axis=0), lambda v: np.expand_dims(v, 0))]:
        for dtype in (np.float64, np.float32):  # float32 in, float32 gradient out
            check_backward(getattr(ops_shape, name), [at.astype(dtype)], params=params, reference=with_numpy)
    g = rng.standard_normal((6, 4)).T  # a gradient that came back through a transpose: column by column in memory
    check_backward(ops_shape.Reshape, [x], g, [g.reshape(2, 3, 4)], params=dict(shape=(4, 6)),
                   case="an upstream gradient laid out column by column (a transposed array)",
                   hint="Reshape the gradient by index (grad.reshape(ctx.shape)), never in its memory order.")
    print("Task 4.1 passes the visible checks")

# %% [markdown]
# ## Indexing, and why assignment loses gradient
#
# `x[index]` copies some elements of `x`, maybe several times: `x[[0, 2, 0]]` uses
# element 0 twice. The backward starts from zeros of `x`'s shape and adds each output's
# gradient into the element it came from, so element 0 collects *both* of its
# gradients.
#
# The obvious NumPy line, `full[index] += grad`, is wrong for repeated indices: NumPy
# evaluates it as `full[index] = full[index] + grad`, and of two writes to the same
# element only the last survives. `np.add.at(full, index, grad)` really adds them all.

# %% tags=["not-graded", "raises-exception"]
index = np.array([0, 2, 0, 0])
grad = np.ones(4)
lossy = np.zeros(3)
lossy[index] += grad
exact = np.zeros(3)
np.add.at(exact, index, grad)
print("x[[0, 2, 0, 0]] with upstream ones:")
print("  full[index] += grad      ->", lossy)
print("  np.add.at(full, ...)     ->", exact)

# %% [markdown]
# ## Your task 4.2: `GetItem.backward` in `minitorch/ops_index.py`
#
# The forward saved the input's shape, dtype and the index (ints, slices with steps,
# `None`, `...`, integer arrays, boolean masks, or a tuple of them: NumPy accepts them all
# in `np.add.at` too).
#
# Stuck? `mt.hint("4.2")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task4_2_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 4.2: repeated rows, a reversed slice, a mask, None and ..., each against
# central differences of NumPy's own indexing
with checking("4.2"):
    from minitorch.ops_index import GetItem  # noqa: E402

    x = np.random.default_rng(0).standard_normal((3, 2))
    for index in [(np.array([0, 2, 0]), slice(None, None, -1)), x > 0, (None, Ellipsis, 1), (1, slice(0, 1))]:
        check_backward(GetItem, [x], params=dict(index=index), reference=lambda v: v[index],
                       hint="Start from zeros of x's shape and add each output's gradient where it came from "
                            "(np.add.at adds repeats; full[index] += grad keeps only one of them).")
    check_backward(GetItem, [x.astype(np.float32)], np.ones((2, 2), np.float32), [np.array([[2, 2], [0, 0], [0, 0]])],
                   params=dict(index=np.array([0, 0])), case="row 0 picked twice",
                   hint="Start from zeros of x's shape and add each output's gradient where it came from "
                        "(np.add.at adds repeats; full[index] += grad keeps only one of them).")
    print("Task 4.2 passes the visible checks")

# %% [markdown]
# ## Your task 4.3: `Cat.backward` and `Stack.backward` in `minitorch/ops_index.py`
#
# `cat` joins inputs along an existing axis: cut the gradient back into pieces of the
# inputs' sizes along that axis (`np.split` takes the cut points). `stack` joins them
# along a *new* axis: input `i` gets slice `i` along it.
#
# In the picture each input keeps its colour inside the joined array. The backward cuts
# along the same lines: column 0 of the gradient goes to input 0, columns 1 to 3 to
# input 1, columns 4 and 5 to input 2.
#
# Stuck? `mt.hint("4.3")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% tags=["not-graded", "raises-exception"]
parts = [np.array([[1.0], [2.0]]), np.arange(3.0, 9.0).reshape(2, 3), np.arange(9.0, 13.0).reshape(2, 2)]
plotting.draw_cat(parts, axis=1);

# %% nbgrader={"grade": false, "grade_id": "task4_3_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 4.3: cat and stack along several axes, against central differences of
# NumPy's concatenate and stack
with checking("4.3"):
    from minitorch.ops_index import Cat, Stack  # noqa: E402

    rng = np.random.default_rng(0)
    for op, with_numpy, arrays, axis in [
            (Cat, np.concatenate, [rng.standard_normal((2, 1)), rng.standard_normal((2, 3)), rng.standard_normal((2, 2))], 1),
            (Cat, np.concatenate, [rng.standard_normal((1, 3)), rng.standard_normal((2, 3))], -2),
            (Stack, np.stack, [rng.standard_normal(3), rng.standard_normal(3)], 1),
            (Stack, np.stack, [rng.standard_normal((2, 2)) for _ in range(3)], 0)]:
        for dtype in (np.float64, np.float32):  # float32 in, float32 gradients out
            check_backward(op, [a.astype(dtype) for a in arrays], params=dict(axis=axis),
                           reference=lambda *parts: with_numpy(parts, axis=axis))
    print("Task 4.3 passes the visible checks")

# %% [markdown]
# ## All together: a sliding window
#
# Overlapping slices stacked into one tensor use each interior element several times. The
# gradient of their sum counts how often each element was used, computed by your code.

# %% tags=["not-graded", "raises-exception"]
signal = mt.Tensor(np.sin(np.linspace(0, 3, 10)), requires_grad=True)
windows = mt.stack([signal[i:i + 4] for i in range(7)])
windows.sum().backward()
fig, ax = plt.subplots(figsize=(5.5, 2.6), layout="constrained")
ax.bar(range(10), signal.grad)
ax.set_xlabel("element of the signal")
ax.set_ylabel("gradient = times used")
ax.set_title("7 windows of width 4 over 10 elements")
print("times each element was used:", signal.grad)
