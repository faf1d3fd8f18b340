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
# Edits you save in minitorch/ reach this notebook at the next cell (a file that does not
# load is named in one short line instead).
# %load_ext minitorch.course.notebook
import matplotlib.pyplot as plt
import numpy as np

import minitorch as mt
from minitorch import plotting
from minitorch.course.visible import check_backward, checking, fail, names_shapes, same, same_size  # the checks' messages

# %% [markdown]
# The engine walks the same kind of graph as in notebook 1; its boxes now stand for whole
# arrays, so the picture shows each value's shape. Here `a` (4, 3) times `b` (3,), summed
# along axis 1, squared, averaged:

# %% tags=["not-graded"]
a = mt.Tensor(np.ones((4, 3)), requires_grad=True)
b = mt.Tensor(np.ones(3), requires_grad=True)
plotting.draw_graph(((a * b).sum(axis=1) ** 2).mean(), show_grad=False, names={"a": a, "b": b});

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
#
# Stuck? `mt.hint("2.1")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task2_1_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 2.1
with checking("2.1"):
    # shapes of different lengths first: shapes lined up from the left clash there, whatever order the sizes come in,
    # and a result as long as the shortest shape is not one without its first axis; the very first fits shapes lined
    # up from the left, so that a clash there is another mistake's (a size taken from one shape); a 0 with a 1 last
    for shapes, expected in [(((3,), (3, 2, 3)), (3, 2, 3)), (((3,), (4, 2, 3)), (4, 2, 3)), (((3,), (2, 3)), (2, 3)),
                             (((2, 1), (2, 3)), (2, 3)), (((3,), (4, 1)), (4, 3)), (((2, 1, 5), (3, 1), ()), (2, 3, 5)),
                             ((), ()), (((4, 1),), (4, 1)), (((0,), (1,)), (0,))]:
        try:
            got = mt.broadcast_shapes(*shapes)
        except ValueError as error:  # your error: named below if a known mistake raises it here
            got = error
        listed = isinstance(got, list) and tuple(got) == expected  # the right sizes, as a list
        same(got, expected, f"broadcast_shapes{shapes}", known=("broadcast shapes", {"shapes": list(shapes)}),
             hint={"type": "A shape is a tuple, as np.broadcast_shapes gives: (4, 3) == [4, 3] is False." if listed else
                   "Line the shapes up from the right, and give the sizes back from the first axis to the last.",
                   "values": "Line the shapes up from the right, and give the sizes back from the first axis to the last."})
    for shapes in [((3,), (3,), (4,)), ((2, 3), (4,))]:
        try:
            got = mt.broadcast_shapes(*shapes)
        except Exception as error:  # your error, of whatever type: a ValueError is the one asked for
            got = message = error
        same(got, ValueError, f"broadcast_shapes{shapes}", "shapes that do not broadcast",  # it should raise
             hint="These shapes do not broadcast: compare every shape, aligned from the right.",
             known=("broadcast shapes", {"shapes": list(shapes)}))
        names_shapes(got, shapes, f"broadcast_shapes{shapes}")  # the task asks for a message naming them
    print("good error:", message)
    print("Task 2.1 passes the visible checks")

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
#
# Stuck? `mt.hint("2.2")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task2_2_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 2.2
with checking("2.2"):
    g = np.arange(24.0).reshape(2, 4, 3)
    # (4, 3) first: summing one axis too many, or the axes where shape is not 1, leaves sizes of its own there
    for shape, expected in [((4, 3), g.sum(axis=0)), ((3,), g.sum(axis=(0, 1))), ((4, 1), g.sum(axis=(0, 2)).reshape(4, 1)),
                            ((1, 3), g.sum(axis=(0, 1)).reshape(1, 3)), ((), np.array(g.sum()))]:
        try:
            got = mt.unbroadcast(g, shape)
        except ValueError as error:  # your error: named below if a known mistake raises it here
            got = error
        same(got, expected, f"unbroadcast(g, {shape})", "g of shape (2, 4, 3)",
             hint="Sum the leading axes away; sum the size-1 axes keeping them (keepdims=True).",
             known=("unbroadcast", {"grad": g, "shape": shape}))
    same(mt.unbroadcast(g.astype(np.float32), (1, 3)), g.sum(axis=(0, 1)).reshape(1, 3).astype(np.float32),
         "unbroadcast(g, (1, 3))", "g of shape (2, 4, 3) in float32")
    same(g, np.arange(24.0).reshape(2, 4, 3), "g after the calls above", "unbroadcast(g, ...)",
         hint="unbroadcast changed grad: sum into a new array.")
    print("Task 2.2 passes the visible checks")

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
# at a tie, then `unbroadcast`). For `pow`, where $b = 0$ the gradient for `a` is 0 (even
# at $a = 0$), and where $a = 0$, $b \ge 0$ the gradient for `b` is 0.
#
# A rule returns a tuple with one gradient per input, in order. An input that needs no
# gradient may get `None` instead: `ctx.needs_input_grad[i]` says whether input `i`
# needs one. In `x ** 2` the exponent is a constant, so `Pow` returns `None` for `b`
# (and never takes `np.log` of a negative `x`, which would only give NaNs and warnings).
#
# Each gradient has its input's shape and dtype: float32 inputs get float32 gradients.
# NumPy keeps float32 when you combine it with a Python number (`grad * 0.5`), but a
# float64 array in the formula (`np.ones(3)`, or a `np.float64` number) turns the result
# into float64. The engine checks every gradient a rule returns: if its shape or dtype
# differs from its input's, you get an error naming the op and the input.
#
# Stuck? `mt.hint("2.3")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task2_3_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 2.3: each rule on plain arrays (both inputs broadcast, a random upstream
# gradient) against central differences of NumPy's own operation (mt.numerical_grads)
with checking("2.3"):
    from minitorch import ops_binary  # noqa: E402

    rng = np.random.default_rng(0)
    g = rng.standard_normal((2, 3))
    cases = [("Sub", np.subtract), ("Mul", np.multiply), ("Div", np.divide), ("Pow", np.power),
             ("Maximum", np.maximum), ("Minimum", np.minimum)]
    for name, with_numpy in cases:
        op = getattr(ops_binary, name)
        for a, b, case in [(rng.uniform(0.5, 2.0, (2, 1)), rng.uniform(0.5, 2.0, (3,)), "both inputs broadcast"),
                           (np.array([[1.0], [2.0]]), np.array([1.0, 0.5, 2.0]), "ties at [0, 0] and [1, 2]")]:
            for dtype in (np.float64, np.float32):
                check_backward(op, [a.astype(dtype), b.astype(dtype)], g.astype(dtype), reference=with_numpy, case=case)
        # large values: a square of them still fits in float32 (central differences taken at a scale of 1)
        scale_a, scale_b = (1e10, 1.0) if name == "Pow" else (1e15, 1e15)
        a, b = rng.uniform(0.5, 2.0, (2, 1)), rng.uniform(1.9, 2.0, (3,))  # outputs of like sizes: their sum keeps digits
        at_scale = mt.numerical_grads(lambda u, v: with_numpy(u * scale_a, v * scale_b), [a, b])  # upstream ones
        for dtype in (np.float64, np.float32):
            check_backward(op, [(a * scale_a).astype(dtype), (b * scale_b).astype(dtype)], np.ones((2, 3), dtype),
                           [at_scale[0] / scale_a, at_scale[1] / scale_b], case=f"a near {scale_a:g}, b near {scale_b:g}",
                           hint="Keep every intermediate in range: the square of a large number overflows float32.")
    # a and b near 1e20 in float32: b * b (1e40) overflows to inf, so Div's rule divides by b twice; each gradient
    # is judged to a thousandth of its own size (near 1e-20, where an absolute tolerance would let 0 pass)
    a, b = (rng.uniform(0.5, 2.0, (2, 1)) * 1e20).astype(np.float32), (rng.uniform(0.5, 2.0, (3,)) * 1e20).astype(np.float32)
    near_one = mt.numerical_grads(np.divide, [a.astype(np.float64) / 1e20, b.astype(np.float64) / 1e20])
    grads = check_backward(ops_binary.Div, [a, b], np.ones((2, 3), np.float32), [None, None], case="a and b near 1e20")
    with np.errstate(over="ignore"):
        squared = (-np.ones((2, 3), np.float32) * a / (b * b)).sum(axis=0)  # what an overflowed b * b gives
    for i, (got, want) in enumerate(zip(grads, near_one)):
        same_size(got, (want / 1e20).astype(np.float32), "Div.backward", f"a and b near 1e20 (float32): the gradient for "
                  f"input {i}", squared if i == 1 else None, "b * b overflowed float32 (above 3.4e38 it is inf, and a / inf "
                  "is 0)", "Fix: divide by b twice, (a / b) / b, so that no intermediate leaves float32's range")
    grads = check_backward(ops_binary.Pow, [np.array([-1.5, 2.0]), np.array(2.0)], np.ones(2), [np.array([-3.0, 4.0]), None],
                           needs=(True, False), case="x ** 2: the exponent needs no gradient")
    if grads[1] is not None:
        fail("Pow.backward", "x ** 2 (ctx.needs_input_grad[1] is False)", "gave the exponent a gradient; expected None",
             hint="Return None for an input that needs no gradient (and never take np.log of a negative base).")
    check_backward(ops_binary.Pow, [np.array([-1.5, 2.0]), np.array([2.0, 3.0])], np.ones(2),
                   [np.array([-3.0, 12.0]), np.array([np.nan, 8 * np.log(2.0)])],
                   case="a negative base: b's gradient is NaN there (the log of a negative number), as in PyTorch",
                   hint="b's gradient is a ** b * log(a) as it is: NaN for a negative base, as PyTorch gives.")
    check_backward(ops_binary.Pow, [np.array([0.0, 0.0, 2.0]), np.array([0.0, 2.0, 0.0])], np.ones(3),
                   [np.zeros(3), np.array([0.0, 0.0, np.log(2.0)])], case="zero bases and exponents",
                   hint="Where b = 0 the gradient for a is 0 (even at a = 0); where a = 0 and b >= 0, the one for b is 0.")
    print("Task 2.3 passes the visible checks")

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
class MulLosesKeepdims(mt.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved
        return grad * b, (grad * a).sum(axis=1)  # b has shape (4, 1); this sum has shape (4,)


column = mt.Tensor(np.ones((4, 1)), requires_grad=True)
try:
    MulLosesKeepdims.apply(x, column).backward(np.ones((4, 3)))
except ValueError as error:
    print(error)

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
