# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 5 · Matmul, GELU, softmax and cross-entropy
#
# The four operations at the heart of a classifier: a linear layer's matrix product, a
# smooth activation, turning scores into probabilities, and the loss that compares them
# with the truth.
#
# **You will:** derive matmul's gradients, batched and with 1-D operands (5.1); GELU's
# derivative, exact and approximate (5.2); a numerically stable softmax family (5.3);
# the fused backward of cross-entropy (5.4).
#
# **Time:** 2 to 3 hours.

# %%
# Edits you save in minitorch/ reach this notebook at the next cell (a file that does not
# load is named in one short line instead).
# %load_ext minitorch.course.notebook
import math

import matplotlib.pyplot as plt
import numpy as np

import minitorch as mt
from minitorch import plotting
from minitorch.function import Context
from minitorch.course.visible import check_backward, checking, fail, same  # the checks' messages

# %% [markdown]
# ## Matmul's gradients
#
# For $C = AB$ with $A$ of shape $(m, k)$ and $B$ of shape $(k, n)$,
# $C_{ij} = \sum_p A_{ip} B_{pj}$. So $A_{ip}$ feeds every $C_{ij}$ of row $i$, with
# factor $B_{pj}$:
#
# $$\frac{\partial L}{\partial A_{ip}} = \sum_j \frac{\partial L}{\partial C_{ij}} B_{pj}
# \quad\Longrightarrow\quad dA = dC\,B^\top, \qquad\text{and likewise}\qquad dB = A^\top dC.$$
#
# A quick sanity check is the shapes: $dC$ is $(m, n)$, $B^\top$ is $(n, k)$, so $dA$ is
# $(m, k)$ like $A$. Swap the order or forget a transpose and the shapes stop fitting
# (unless the matrices are square: then only the values tell, so test non-square ones).
#
# **Batches.** With more than 2 axes the last two are matrices and the leading ones a
# batch that broadcasts, as in notebook 2. The products above then have the *broadcast*
# batch shape, and `unbroadcast` sums them back to each input's.
#
# **Vectors.** A 1-D `a` acts as a row $(1, k)$ and a 1-D `b` as a column $(k, 1)$; the
# added axis is dropped from the output. The helper `as_matrices` promotes them for you
# and reshapes the upstream gradient to match, so one formula covers every case; reshape
# each result back to its input's shape at the end.

# %% [markdown]
# The shapes of one batched product, axis by axis. Faded cells are batch axes that an
# operand lacks or has as size 1: it was broadcast along them, so its gradient is summed
# back over them.

# %% tags=["not-graded", "raises-exception"]
plotting.draw_matmul_shapes((8, 1, 4, 3), (5, 3, 2));

# %% [markdown]
# ## Your task 5.1: `MatMul.backward` in `minitorch/ops_linalg.py`
#
# `np.swapaxes(m, -1, -2)` transposes the last two axes of any array. The module also
# offers `product_like(x, y, like)`: the same numbers as `x @ y`, laid out in memory like
# `like`. Compute `b`'s gradient with it, `product_like(aᵀ, dC, b)`: when `b` is a
# transposed view (a `Linear` layer multiplies by `weight.T`), its gradient then comes
# back in the weight's own memory order, and the optimizer's update runs several times
# faster. Plain `@` gives the same numbers, just slower later.
#
# Stuck? `mt.hint("5.1")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task5_1_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 5.1: matrices, a broadcast batch, and 1-D operands on either side, against
# central differences of np.matmul
with checking("5.1"):
    from minitorch.ops_linalg import MatMul  # noqa: E402

    rng = np.random.default_rng(0)
    cases = [(rng.standard_normal(a_shape), rng.standard_normal(b_shape)) for a_shape, b_shape in
             [((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((2, 1, 2, 3), (4, 3, 2)), ((4, 2, 3), (1, 3, 5)),
              ((2, 3, 2, 3), (3, 3, 2)), ((3,), (3, 4)), ((2, 3), (3,)), ((3,), (3,))]]
    cases.append((rng.standard_normal((5, 2, 3)), rng.standard_normal((4, 3)).T))  # Linear on a sequence: x @ weight.T
    for a, b in cases:
        check_backward(MatMul, [a, b], rng.standard_normal(np.matmul(a, b).shape), reference=np.matmul,
                       case="a transposed view for b" if not b.flags.c_contiguous else "")
    for a, b in cases[:2]:  # float32 in, float32 gradients out
        check_backward(MatMul, [a.astype(np.float32), b.astype(np.float32)], reference=np.matmul)
    print("Task 5.1 passes the visible checks")

# %% [markdown]
# ## GELU
#
# ReLU has a corner at 0. GELU, used in most transformers, is a smooth alternative:
# $\mathrm{GELU}(x) = x\,\Phi(x)$, where $\Phi$ is the standard normal distribution
# function, $\Phi(x) = \tfrac12\left(1 + \mathrm{erf}(x/\sqrt2)\right)$. A popular
# approximation replaces $\Phi(x)$ by $\tfrac12\left(1 + \tanh u\right)$ with
# $u = \sqrt{2/\pi}\,(x + 0.044715\,x^3)$.
#
# By the product rule, $\mathrm{GELU}'(x) = \Phi(x) + x\,\varphi(x)$ with
# $\varphi(x) = e^{-x^2/2}/\sqrt{2\pi}$ the normal density. For the tanh form, with
# $t = \tanh u$: $\tfrac12(1 + t) + \tfrac12 x\,(1 - t^2)\,u'(x)$, where
# $u'(x) = \sqrt{2/\pi}\,(1 + 3 \cdot 0.044715\,x^2)$.
# Note the dip below zero around $x \approx -0.75$: unlike ReLU, GELU is not monotonic.

# %% tags=["not-graded", "raises-exception"]
x = np.linspace(-4, 4, 400)
phi = 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
gelu = x * phi
fig, axes = plt.subplots(1, 2, figsize=(9, 3), layout="constrained")
axes[0].plot(x, np.maximum(x, 0), lw=2, label="ReLU")
axes[0].plot(x, gelu, lw=2, label="GELU")
axes[1].plot(x, (x > 0) * 1.0, lw=2, label="ReLU′")
axes[1].plot(x, np.gradient(gelu, x), lw=2, label="GELU′")
for ax, title in zip(axes, ["the functions", "their derivatives"]):
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
print(f"GELU is lowest at x = {x[gelu.argmin()]:.2f}, where it is {gelu.min():.3f}")

# %% [markdown]
# ## Your task 5.2: `Gelu.backward` in `minitorch/ops_activation.py`
#
# Both approximations (`ctx.approximate` is `"none"` or `"tanh"`). The module has
# `normal_cdf`, `normal_pdf` and `tanh_inner` ready for you, and the forward saved
# $\Phi(x)$ as `cdf` (its tanh form for `"tanh"`): erf is slow to compute, so use `cdf`
# rather than calling `normal_cdf` again.
#
# Stuck? `mt.hint("5.2")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task5_2_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 5.2: both forms against central differences of GELU written with NumPy and
# math.erf, for a random upstream gradient
with checking("5.2"):
    from minitorch.ops_activation import Gelu  # noqa: E402

    erf = np.vectorize(math.erf)
    by_numpy = {"none": lambda v: v * 0.5 * (1 + erf(v / math.sqrt(2))),
                "tanh": lambda v: 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))}
    points = np.array([-3.0, -2.0, -0.75, -0.5, 0.0, 1.0, 3.0])
    g = np.random.default_rng(0).standard_normal(points.shape)
    for approximate, with_numpy in by_numpy.items():
        check_backward(Gelu, [points], g, params=dict(approximate=approximate), reference=with_numpy)
        for dtype in (np.float64, np.float32):  # far from 0: the density is 0 and the tanh is ±1 there
            check_backward(Gelu, [np.array([-1000.0, -30.0, 30.0, 1000.0], dtype)], np.ones(4, dtype),
                           [np.array([0.0, 0.0, 1.0, 1.0])], params=dict(approximate=approximate), case="values far from 0",
                           hint="A huge number times a density of 0 (or divided by an overflowing cosh) gives nan.")
    print("Task 5.2 passes the visible checks")

# %% [markdown]
# ## Softmax, and why it must be computed carefully
#
# $\mathrm{softmax}(x)_i = e^{x_i} / \sum_j e^{x_j}$ turns scores into probabilities. In
# floating point $e^{1000}$ is `inf`, and `inf / inf` is `nan`. But subtracting any
# constant $m$ from every score changes nothing: the factor $e^{-m}$ cancels. With $m$
# the maximum, every exponent is at most 0 and the sum lies between 1 and the number of
# scores. The same trick gives a stable
# $\mathrm{logsumexp}(x) = m + \log \sum_j e^{x_j - m}$, and then
# $\log\mathrm{softmax}(x) = x - \mathrm{logsumexp}(x)$.

# %% tags=["not-graded", "raises-exception"]
scores = np.array([1000.0, 1001.0, 1002.0])
with np.errstate(over="ignore", invalid="ignore"):
    naive = np.exp(scores) / np.exp(scores).sum()
shifted = np.exp(scores - scores.max())
print("naive :", naive)
print("stable:", shifted / shifted.sum())

# %% [markdown]
# **Backward without the Jacobian.** Softmax's Jacobian is a $C \times C$ matrix,
# $\partial s_i / \partial x_j = s_i(\delta_{ij} - s_j)$, but we never need it: multiplied
# by the upstream $g$ it collapses to $s \odot (g - \langle g, s\rangle)$, where
# $\langle g, s\rangle$ is the sum of $g \odot s$ along the axis. For log-softmax,
# $g - e^{\text{out}} \sum g$; for logsumexp, $g \cdot \mathrm{softmax}(x)$.
#
# ## Your task 5.3: `stable_logsumexp` and the three backward rules in `minitorch/ops_softmax.py`
#
# `stable_logsumexp(x, axes)` keeps the reduced axes with size 1, so that `x - out`
# broadcasts. A group whose values are all `-inf` gives `-inf` (the log of a sum of
# zeros, as PyTorch's `logsumexp`), not `nan`: mind what its maximum is then. `LogSumExp` reduces like `sum`: with `keepdims=False` the upstream gradient
# lacks the reduced axes, so put them back (`np.expand_dims`) before broadcasting.
#
# The module gives two helpers you may use instead of `x.max(axis, keepdims=True)` and
# `x.sum(axis, keepdims=True)`: `max_keepdims(x, axis)` and `sum_keepdims(x, axis)` compute
# the same numbers (up to rounding), 1.8 to 4 times faster over many short rows such as
# notebook 7's 16 attention weights (NumPy's own reductions pay a fixed cost for every row).
#
# Stuck? `mt.hint("5.3")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task5_3_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 5.3: no overflow near 1000, then each backward against central differences of
# the function written with NumPy, for a random upstream gradient
with checking("5.3"):
    from minitorch import ops_softmax  # noqa: E402

    rows = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -1002.0], [0.0, 1500.0, -1500.0]])
    shift = rows.max(axis=1, keepdims=True)
    with np.errstate(all="ignore"):  # an overflow on the way is fine if the answer comes out finite and right
        same(ops_softmax.stable_logsumexp(rows, (1,)), shift + np.log(np.exp(rows - shift).sum(axis=1, keepdims=True)),
             "stable_logsumexp(rows, (1,))", "rows near 1000, near -1000, and spread from -1500 to 1500",
             known=("stable logsumexp", {"x": rows, "axes": (1,)}),
             hint="logsumexp(x) = m + log(sum(exp(x - m))), m each row's own maximum (keepdims=True): not the mean, "
                  "not the whole array's.")
    all_inf = np.array([[-np.inf, -np.inf, -np.inf], [0.0, -np.inf, 1.0]])  # a row of all -inf gives -inf, as in PyTorch
    inf_case, inf_right = "a row of all -inf and the row [0, -inf, 1]", np.array([[-np.inf], [1.31326168751822]])
    with np.errstate(all="ignore"):
        got_inf = ops_softmax.stable_logsumexp(all_inf, (1,))
    if isinstance(got_inf, np.ndarray) and got_inf.shape == (2, 1) and got_inf.dtype.kind == "f" and got_inf[0, 0] != -np.inf:
        why = ": its maximum is -inf, and x - max is then -inf - (-inf) = nan" if np.isnan(got_inf[0, 0]) else ""
        fail("stable_logsumexp(x, (1,))", inf_case, f"the row of all -inf gave {got_inf[0, 0]}, expected -inf (the log "
             f"of a sum of zeros, as PyTorch's logsumexp gives){why} (known mistake: all -inf group not guarded)",
             got_inf, inf_right, "Fix: where a group's maximum is not finite, shift that group by 0 instead, so that "
             "the sum of its exps is 0 and its log -inf")
    same(got_inf, inf_right, "stable_logsumexp(x, (1,))", inf_case)


    def lse(v, axis, keepdims=False):
        return np.log(np.exp(v).sum(axis=axis, keepdims=keepdims))


    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    for name, params, with_numpy in [
            ("LogSumExp", dict(axis=-1), lambda v: lse(v, -1)),
            ("LogSumExp", dict(axis=(0, 2), keepdims=True), lambda v: lse(v, (0, 2), True)),
            ("LogSumExp", dict(axis=None), lambda v: lse(v, None)),
            ("LogSoftmax", dict(axis=1), lambda v: v - lse(v, 1, True)),
            ("Softmax", dict(axis=-1), lambda v: np.exp(v - lse(v, -1, True))),
            ("Softmax", dict(axis=0), lambda v: np.exp(v - lse(v, 0, True)))]:
        check_backward(getattr(ops_softmax, name), [x], params=params, reference=with_numpy)
        if params == dict(axis=-1) or name == "LogSoftmax":  # one float32 case each: float32 in, float32 gradient out
            check_backward(getattr(ops_softmax, name), [x.astype(np.float32)], params=params, reference=with_numpy)
    extreme = np.array([[-1000.0, -1001.0, -1003.0], [1000.0, 999.0, 990.0], [0.5, -1000.0, 2.0]])  # exps over- and underflow
    softmax = np.exp(extreme - extreme.max(1, keepdims=True))
    softmax /= softmax.sum(1, keepdims=True)
    g = np.random.default_rng(2).standard_normal((3, 3))
    for name, params, upstream, expected in [
            ("LogSumExp", dict(axis=1), g[:, 0], g[:, :1] * softmax),
            ("LogSoftmax", dict(axis=1), g, g - softmax * g.sum(1, keepdims=True)),
            ("Softmax", dict(axis=1), g, softmax * (g - (g * softmax).sum(1, keepdims=True)))]:
        check_backward(getattr(ops_softmax, name), [extreme], upstream, [expected], params=params,
                       case="logits near -1000, near 1000, and one 1000 below the rest",
                       hint="A ratio of exps is nan where exp overflows or underflows: use exp(x - out) or the saved output.")
    print("Task 5.3 passes the visible checks")

# %% [markdown]
# ## Cross-entropy, fused
#
# For logits $z$ (one row per sample) and the true class $y$, the loss is
# $-\log \mathrm{softmax}(z)_y = \mathrm{logsumexp}(z) - z_y$. Its gradient is
# beautifully simple: $\partial/\partial z_j = \mathrm{softmax}(z)_j - [j = y]$, the
# predicted probabilities minus the one-hot truth. With class *probabilities* $t$ as the
# target, the loss is $-\sum_j t_j \log \mathrm{softmax}(z)_j$ and the gradient
# $\mathrm{softmax}(z) \sum_j t_j - t$ (just $\mathrm{softmax}(z) - t$ when $t$ sums
# to 1; weighted or unnormalised soft labels need not, and PyTorch takes them). For
# `reduction="mean"` everything is divided by the batch size $N$.
#
# One fused `Function` computes this directly: no $C \times C$ Jacobian, no separate
# softmax node. Below, one gradient step on the logits of one sample moves probability
# toward the true class (class 2).

# %% tags=["not-graded", "raises-exception"]
z = np.array([2.0, 1.0, 0.1, -1.0])
p = np.exp(z - z.max())
p /= p.sum()
step = z - 1.5 * (p - np.eye(4)[2])
q = np.exp(step - step.max())
q /= q.sum()
fig, ax = plt.subplots(figsize=(5.5, 2.8), layout="constrained")
ax.bar(np.arange(4) - 0.2, p, width=0.4, label="before")
ax.bar(np.arange(4) + 0.2, q, width=0.4, label="after one step")
ax.set_xticks(range(4), [f"class {i}" for i in range(4)])
ax.set_ylabel("softmax probability")
ax.legend()
print(f"the probability of class 2: {p[2]:.3f} before the step, {q[2]:.3f} after")

# %% [markdown]
# ## Your task 5.4: `CrossEntropy.forward` (the per-sample losses) and `CrossEntropy.backward` in `minitorch/losses.py`
#
# The forward has already computed the log-probabilities `log_p` with your
# `stable_logsumexp`; `ctx.by_index` tells which kind of target you have. For an
# integer `target`, `log_p[np.arange(n), target]` picks each row's true class.
#
# The backward returns two gradients: one for the logits and one for the target. Class
# indices are not differentiable, so their gradient is `None`. A probability target
# gets $-\log \mathrm{softmax}(z)$, scaled like the logits' gradient, when
# `ctx.needs_input_grad[1]` is True, and `None` otherwise. The upstream gradient is one
# number for `"mean"` and `"sum"` (divide by $N$ for the mean) and one number per sample
# for `"none"`.
#
# Stuck? `mt.hint("5.4")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task5_4_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 5.4: class indices and class probabilities (also rows that do not sum to 1, as
# weighted soft labels), each reduction: the loss against NumPy, both gradients against
# central differences of it, for a random upstream gradient
with checking("5.4"):
    from minitorch.losses import CrossEntropy  # noqa: E402


    def cross_entropy_numpy(z, target, reduction):
        top = z.max(axis=1, keepdims=True)  # shifted, so that logits near ±1000 cannot overflow
        log_p = z - top - np.log(np.exp(z - top).sum(axis=1, keepdims=True))
        losses = -log_p[np.arange(len(z)), target] if target.dtype.kind == "i" else -(target * log_p).sum(axis=1)
        return {"mean": losses.mean(), "sum": losses.sum(), "none": losses}[reduction]


    rng = np.random.default_rng(0)
    logits = rng.standard_normal((4, 3)) * 2
    extreme = np.array([[0.0, 0.0, -1000.0], [1000.0, 999.0, 990.0], [0.5, -1000.0, 2.0], [1.0, 2.0, 3.0]])
    weighted = np.array([[0.25, 0.25, 0.0], [1.0, 0.5, 0.5], [0.0, 0.5, 1.0], [1.0, 1.0, 1.0]])  # soft labels
    kinds = ["class indices", "class probabilities", "class probabilities whose rows sum to 0.5, 2, 1.5 and 3"]
    for target, kind in zip((np.array([0, 2, 1, 2]), rng.dirichlet(np.ones(3), 4), weighted), kinds):
        by_index = target.dtype.kind == "i"
        for reduction in ("mean", "sum", "none"):
            for z, where in ((logits, ""), (extreme, ", logits where a probability underflows to 0")):
                ctx = Context((True, not by_index))
                loss = CrossEntropy.forward(ctx, z, target, reduction=reduction)
                case = f"logits of shape {z.shape}, {kind}, reduction={reduction!r}{where}"
                same(np.asarray(loss), np.asarray(cross_entropy_numpy(z, target, reduction)), "CrossEntropy.forward", case,
                     hint="Each sample's loss is -log_p of its class, read from log_p itself (never log(exp(log_p))).",
                     known=("cross-entropy forward", {"logits": z, "target": target, "reduction": reduction}))
                g = np.asarray(rng.standard_normal(np.shape(loss)))
                expected = mt.numerical_grads(lambda a: cross_entropy_numpy(a, target, reduction), [z], g)
                if not by_index:
                    expected += mt.numerical_grads(lambda t: cross_entropy_numpy(z, t, reduction), [target], g)
                grads = check_backward(CrossEntropy, [z, target], g, expected if not by_index else [expected[0], None],
                                       needs=(True, not by_index), params=dict(reduction=reduction), case=kind + where,
                                       hint={"None 1": "A probability target gets a gradient too, as in PyTorch: the "
                                             "loss's derivative by the target, minus log_p times rows (the upstream "
                                             "gradient per row). None is only for class indices, or a target whose "
                                             "ctx.needs_input_grad[1] is False."})
                if by_index and grads[1] is not None:
                    fail("CrossEntropy.backward", case, "gave the class indices a gradient; expected None",
                         hint="Class indices are not differentiable: return None for them.")
    probabilities = rng.dirichlet(np.ones(3), 4)  # a target that needs no gradient (ctx.needs_input_grad[1] False)
    ctx = Context((True, False))
    CrossEntropy.forward(ctx, logits, probabilities, reduction="mean")
    grads = CrossEntropy.backward(ctx, np.asarray(1.0))
    if isinstance(grads, (tuple, list)) and len(grads) == 2 and grads[1] is not None:
        fail("CrossEntropy.backward", "logits of shape (4, 3), class probabilities that need no gradient, "
             "reduction='mean'", "gave the target a gradient, though ctx.needs_input_grad[1] is False; expected None",
             hint="Return None for an input whose ctx.needs_input_grad is False.")
    check_backward(CrossEntropy, [logits.astype(np.float32), np.array([0, 2, 1, 2])], np.float32(1.0),
                   [mt.numerical_grads(lambda a: cross_entropy_numpy(a, np.array([0, 2, 1, 2]), "mean"), [logits])[0], None],
                   needs=(True, False), params=dict(reduction="mean"), case="float32 logits")
    print("Task 5.4 passes the visible checks")

# %% [markdown]
# ## A whole classifier's gradient, checked
#
# `mt.gradcheck` compares every gradient your engine computes with central differences.
# Here it checks a linear layer, GELU, another layer and the cross-entropy in one go.

# %% tags=["not-graded", "raises-exception"]
rng = np.random.default_rng(1)
inputs = [mt.Tensor(rng.standard_normal((6, 4)), requires_grad=True),
          mt.Tensor(rng.standard_normal((4, 5)), requires_grad=True),
          mt.Tensor(rng.standard_normal((5, 3)), requires_grad=True)]
labels = np.array([0, 2, 1, 1, 0, 2])
print("gradcheck:", mt.gradcheck(lambda x, w1, w2: mt.cross_entropy(mt.gelu(x @ w1) @ w2, labels), inputs))
