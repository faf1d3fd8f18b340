# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 2 · Tensors, and the reverse of broadcasting
#
# From here on a value is a whole array: a `Tensor`. The engine from notebook 1 stays the
# same; what changes is what flows along the arrows. Each gradient is now an array with
# **exactly the shape of the value it belongs to**, and that single rule is where the new
# difficulty hides.
#
# Tensor operations are `Function` classes whose `forward(ctx, ...)` and
# `backward(ctx, grad)` work on plain NumPy arrays; `ctx` carries what the forward saves
# for the backward. Open `minitorch/ops_binary.py`: `Add` is worked out for you.
#
# **You will:** compute the shape NumPy's broadcasting gives (2.1); sum a gradient back
# to a broadcast input's shape (2.2); write the backward of the binary operations, ties
# included (2.3); and check any operation of your own with `mt.gradcheck`.
#
# **Time:** 1.5 to 2 hours.

# %%
# %load_ext autoreload
# %autoreload 2
import matplotlib.pyplot as plt
import numpy as np

import minitorch as mt
from minitorch import plotting

# %% [markdown]
# The engine walks the same kind of graph as in notebook 1; its boxes now stand for whole
# arrays, so the picture shows each value's shape. Here `a` (4, 3) times `b` (3,), summed
# along axis 1, squared, averaged:

# %% tags=["not-graded"]
a = mt.Tensor(np.ones((4, 3)), requires_grad=True)
b = mt.Tensor(np.ones(3), requires_grad=True)
plotting.draw_graph(((a * b).sum(axis=1) ** 2).mean(), show_grad=False);

# %% [markdown]
# ## Broadcasting, forwards
#
# NumPy lets `a + b` mix shapes. Line the shapes up **from the right**; in each position
# the sizes must be equal, or one of them 1 (a missing axis counts as 1). The result takes
# the larger size, and a size-1 (or missing) axis is *stretched*: its values are reused
# along it. In the pictures, solid cells are an operand's own values, faded cells copies.

# %% tags=["not-graded", "raises-exception"]
fig, axes = plt.subplots(2, 1, figsize=(8, 4.2), layout="constrained")
plotting.draw_broadcast((3,), (4, 1), ax=axes[0])
plotting.draw_broadcast((4, 3), (1, 3), ax=axes[1]);

# %% [markdown]
# ## Your task 2.1: `broadcast_shapes` in `minitorch/shapes.py`
#
# Compute the result shape of broadcasting any number of shapes, as
# `np.broadcast_shapes` does, and raise a `ValueError` that names the shapes when they do
# not fit (for example `(2, 3)` with `(4,)`).

# %% nbgrader={"grade": false, "grade_id": "task2_1_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 2.1
assert mt.broadcast_shapes((3,), (4, 1)) == (4, 3)
assert mt.broadcast_shapes((2, 1, 5), (3, 1), ()) == (2, 3, 5)
try:
    mt.broadcast_shapes((2, 3), (4,))
    raise AssertionError("(2, 3) and (4,) must not broadcast")
except ValueError as error:
    print("good error:", error)
print("Task 2.1 passes the visible checks")

# %% nbgrader={"grade": true, "grade_id": "task2_1", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Task 2.1 is worth 2 points. The autograder checks your package itself, outside this
# notebook, part by part (each op or case earns its share): nothing to run here.

# %% [markdown]
# ## Broadcasting, backwards: a sum
#
# Take `c = a + b` with `a` of shape `(3,)` and `b` of shape `(4, 3)`, so
# $c_{ij} = a_j + b_{ij}$. The element $a_j$ appears in four outputs, $c_{0j}$ to
# $c_{3j}$. By the chain rule (the diamond of notebook 1, four times over), its gradient
# is the sum of theirs:
#
# $$\frac{\partial L}{\partial a_j} = \sum_i \frac{\partial L}{\partial c_{ij}}\,\frac{\partial c_{ij}}{\partial a_j} = \sum_i \frac{\partial L}{\partial c_{ij}}.$$
#
# **Forward broadcast = backward sum**: sum the upstream gradient over every axis the
# input was stretched along. Leading axes the input lacked disappear; size-1 axes it had
# are summed *with keepdims*, so they stay as size 1.

# %% tags=["not-graded", "raises-exception"]
upstream = np.arange(12.0).reshape(4, 3)
plotting.draw_values([upstream, upstream.sum(axis=0), upstream.sum(axis=1, keepdims=True)],
                     ["upstream (4, 3)", "for a of shape (3,)", "for b of shape (4, 1)"]);

# %% [markdown]
# ## Your task 2.2: `unbroadcast(grad, shape)` in `minitorch/shapes.py`
#
# Sum `grad` (which has the broadcast shape) down to `shape`. This is the *only* place in
# the package where the reverse of broadcasting lives; every op that broadcasts calls it.
# Return a new array: never change `grad` itself.

# %% nbgrader={"grade": false, "grade_id": "task2_2_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 2.2
g = np.arange(24.0).reshape(2, 4, 3)
assert np.array_equal(mt.unbroadcast(g, (3,)), g.sum(axis=(0, 1)))
assert np.array_equal(mt.unbroadcast(g, (4, 1)), g.sum(axis=(0, 2)).reshape(4, 1))
assert mt.unbroadcast(g, ()).shape == ()
assert mt.unbroadcast(g.astype(np.float32), (1, 3)).dtype == np.float32
print("Task 2.2 passes the visible checks")

# %% nbgrader={"grade": true, "grade_id": "task2_2", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
# Task 2.2 is worth 4 points. The autograder checks your package itself, outside this
# notebook, part by part (each op or case earns its share): nothing to run here.

# %% [markdown]
# ## Your task 2.3: the binary ops' backward in `minitorch/ops_binary.py`
#
# Each rule multiplies the upstream gradient by a local derivative, elementwise, then
# calls `unbroadcast` for each input. Here the rule for each input:
#
# | op | for `a` | for `b` |
# | --- | --- | --- |
# | `a - b` | $g$ | $-g$ |
# | `a * b` | $g\,b$ | $g\,a$ |
# | `a / b` | $g / b$ | $-g\,a / b^2$ |
# | `a ** b` | $g\,b\,a^{b-1}$ | $g\,a^b \ln a$ |
# | `maximum(a, b)` | $g$ where $a > b$ | $g$ where $b > a$ |
#
# For `maximum` and `minimum`, at a tie ($a = b$) each side gets **half**, as in
# PyTorch. Their backward methods are given: both call `_split_by_winner(grad, a_wins,
# tie, a_shape, b_shape)`, which is yours to write (route `grad` to the winner, half each
# at a tie, then `unbroadcast`). For `pow`, where $b = 0$ the gradient for `a` is 0 (even at $a = 0$), and where
# $a = 0$, $b \ge 0$ the gradient for `b` is 0; `ctx.needs_input_grad[1]` says whether
# `b` needs a gradient at all (`x ** 2` passes a constant).
#
# The engine checks every gradient a rule returns: if its shape or dtype differs from its
# input's, you get an error naming the op and the input.

# %% nbgrader={"grade": false, "grade_id": "task2_3_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 2.3: call each rule on plain arrays
from minitorch.function import Context  # noqa: E402
from minitorch.ops_binary import Div, Maximum, Mul  # noqa: E402

a, b, g = np.array([[1.0], [2.0]]), np.array([3.0, 4.0, 5.0]), np.ones((2, 3))
ctx = Context((True, True))
Mul.forward(ctx, a, b)
grad_a, grad_b = Mul.backward(ctx, g)
assert grad_a.shape == (2, 1) and np.allclose(grad_a, [[12.0], [12.0]])
assert grad_b.shape == (3,) and np.allclose(grad_b, [3.0, 3.0, 3.0])
ctx = Context((True, True))
Div.forward(ctx, a, b)
assert np.allclose(Div.backward(ctx, g)[1], -(1 + 2) / b ** 2)
ctx = Context((True, True))
Maximum.forward(ctx, np.array([1.0, 2.0]), np.array([1.0, 0.0]))
assert np.allclose(Maximum.backward(ctx, np.array([2.0, 2.0]))[0], [1.0, 2.0])
print("Task 2.3 passes the visible checks")

# %% nbgrader={"grade": true, "grade_id": "task2_3", "locked": true, "points": 6, "schema_version": 3, "solution": false, "task": false}
# Task 2.3 is worth 6 points. The autograder checks your package itself, outside this
# notebook, part by part (each op or case earns its share): nothing to run here.

# %% [markdown]
# ## Checking any operation of your own: `mt.gradcheck`
#
# `mt.gradcheck(fn, inputs)` runs `fn` on Tensors, calls backward with a random upstream
# gradient, and compares every input's gradient with central differences (your Task 1.1
# idea, in float64). It returns True, or raises an error that names the input, the
# element and both numbers. Use it on anything you build, for example:

# %% tags=["not-graded", "raises-exception"]
rng = np.random.default_rng(0)
a = mt.Tensor(rng.standard_normal((2, 3)), requires_grad=True)
b = mt.Tensor(rng.uniform(0.5, 2.0, (3,)), requires_grad=True)  # broadcast against a
print("gradcheck:", mt.gradcheck(lambda a, b: mt.maximum(a * b - a / b, b) ** 2, [a, b]))

# %% [markdown]
# ## Three classic mistakes, and what you see when you make them
#
# Each class below is a broken copy of `Mul`. The engine catches the first two; the third
# it cannot see, which is why the hidden tests look for it.
#
# **1. Forgetting the reduction.** The gradient keeps the broadcast shape:

# %% tags=["not-graded", "raises-exception"]
class MulForgetsToSum(mt.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved
        return grad * b, grad * a  # no unbroadcast


x = mt.Tensor(np.ones((4, 3)), requires_grad=True)
scale = mt.Tensor(np.ones(3), requires_grad=True)
try:
    MulForgetsToSum.apply(x, scale).backward(np.ones((4, 3)))
except ValueError as error:
    print(error)

# %% [markdown]
# **2. Summing without keepdims.** For an input of shape `(4, 1)`, `grad.sum(axis=1)`
# gives `(4,)`: the right numbers in the wrong shape.

# %% tags=["not-graded", "raises-exception"]
grad = np.ones((4, 3))
print("sum(axis=1):", grad.sum(axis=1).shape, "  sum(axis=1, keepdims=True):", grad.sum(axis=1, keepdims=True).shape)

# %% [markdown]
# **3. Writing into the upstream gradient.** `grad *= b` changes the array the engine
# passed in, and other ops may share it: every gradient computed after that is silently
# wrong. Always build a new array (`grad * b`).

# %% tags=["not-graded", "raises-exception"]
class MulInPlace(mt.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved
        grad_b = grad * a
        grad *= b  # changes the caller's array!
        return grad, grad_b


upstream = np.ones(3)
ctx = mt.Context((True, True))
MulInPlace.forward(ctx, np.ones(3), np.full(3, 5.0))
MulInPlace.backward(ctx, upstream)
print("the upstream gradient after backward:", upstream, "(it was all ones)")

# %% [markdown]
# With tasks 2.1 to 2.3 done, arrays flow through the whole engine. A last look: the
# gradient of a broadcast product, computed by your code.

# %% tags=["not-graded", "raises-exception"]
a = mt.Tensor(np.array([[1.0], [2.0], [3.0]]), requires_grad=True)
b = mt.Tensor(np.array([10.0, 20.0]), requires_grad=True)
(a * b).backward(np.ones((3, 2)))
plotting.draw_values([(a * b).data, a.grad, b.grad], ["a * b  (3, 2)", "a.grad  (3, 1)", "b.grad  (2,)"]);
