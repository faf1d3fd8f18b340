# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 1 · The chain rule on single numbers
#
# Training a network means nudging its weights downhill on a loss. To know which way is
# downhill we need the derivative of the loss with respect to every weight. In this
# notebook you build the machine that computes all of them in one backward sweep:
# **reverse-mode automatic differentiation**, first on plain numbers (`Scalar`).
#
# You write code in the package `minitorch/`, not in this notebook. The file browser on
# the left shows the course folder, `minitorch/` beside `notebooks/`: double-click
# `minitorch/`, then the file a task names, fill in the stub, save (Ctrl+S), and re-run
# the check cell here. The notebook explains, draws, and checks; edits to the package
# show up here without restarting the kernel.
#
# **You will:** estimate a derivative numerically (1.1); write the local derivative of
# every scalar operation (1.2); order a computation graph so that each node comes before
# the values it was computed from (1.3); backpropagate, adding up the contributions of a
# value used twice (1.4); then train a small model with your own engine.
#
# **Time:** about 2 hours.

# %%
# Edits you save in minitorch/ reach this notebook at the next cell (a file that does not
# load is named in one short line instead).
# %load_ext minitorch.course.notebook
import math

import matplotlib.pyplot as plt
import numpy as np

import minitorch as mt
from minitorch import plotting
from minitorch.course.visible import check_backward, checking, fail, same  # the checks' messages

# %% [markdown]
# ## Why derivatives: gradient descent
#
# Take the loss $L(w) = (w - 3)^2$. Its derivative $L'(w) = 2(w - 3)$ is negative left
# of the minimum and positive right of it, so the step $w \leftarrow w - \eta\, L'(w)$
# always moves toward $w = 3$. With many weights, the derivative becomes the gradient, one
# partial derivative per weight, and the step is the same.

# %% tags=["not-graded", "raises-exception"]
w, path = -1.0, []
for _ in range(12):
    path.append(w)
    w -= 0.15 * 2 * (w - 3)
grid = np.linspace(-1.5, 5, 200)
fig, ax = plt.subplots(figsize=(5.5, 3), layout="constrained")
ax.plot(grid, (grid - 3) ** 2, color="0.5")
ax.plot(path, [(p - 3) ** 2 for p in path], "o-", color="#c48a2c", ms=4)
ax.set_xlabel("w")
ax.set_ylabel("L(w)")
ax.set_title("12 steps of gradient descent, learning rate 0.15");

# %% [markdown]
# ## Your task 1.1: `central_difference` in `minitorch/numerical.py`
#
# Before computing derivatives exactly we need a way to check them. Nudge one input a
# little each way and watch the output:
#
# $$f'(x) \approx \frac{f(x + \varepsilon) - f(x - \varepsilon)}{2\varepsilon}$$
#
# The error of this *central* difference shrinks like $\varepsilon^2$ (the terms in
# $\varepsilon$ of the two Taylor expansions cancel), while the one-sided
# $(f(x+\varepsilon) - f(x))/\varepsilon$ only shrinks like $\varepsilon$.
# `central_difference(f, *values, arg=0, eps=1e-6)` differentiates with respect to
# `values[arg]`.
#
# Stuck? `mt.hint("1.1")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task1_1_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 1.1
with checking("1.1"):
    # each case names its function for the table of known mistakes ("known=": what a mistake would give here);
    # the first has an eps large enough that every known mistake gives a plainly different number
    same(mt.central_difference(lambda x: x * x, 1.5, eps=0.1), 3.0, "central_difference(lambda x: x * x, 1.5, eps=0.1)",
         "d/dx x*x at 1.5 with a large eps (x*x has no error: exactly 3)",
         known=("central difference", {"f": "square", "values": (1.5,), "arg": 0, "eps": 0.1}))
    same(mt.central_difference(math.sin, 0.3), math.cos(0.3), "central_difference(math.sin, 0.3)", "d/dx sin at 0.3",
         known=("central difference", {"f": "sin", "values": (0.3,), "arg": 0, "eps": 1e-6}))
    same(mt.central_difference(lambda a, b: a * b, 2.0, 5.0, arg=1), 2.0,
         "central_difference(lambda a, b: a * b, 2.0, 5.0, arg=1)", "d/db of a * b: nudge values[arg], not values[0]",
         known=("central difference", {"f": "product", "values": (2.0, 5.0), "arg": 1, "eps": 1e-6}))
    # a curved function: the one-sided difference is off by about 2.5e-6 of the slope here
    slope = 5 * math.exp(5.0)
    same(mt.central_difference(lambda v: math.exp(5 * v), 1.0), slope, "central_difference(lambda v: math.exp(5 * v), 1.0)",
         "a curved function", rtol=1e-7, atol=0, hint="Nudge both ways: (f(x + eps) - f(x - eps)) / (2 * eps).",
         known=("central difference", {"f": "exp5", "values": (1.0,), "arg": 0, "eps": 1e-6}))
    print("Task 1.1 passes the visible checks")

# %% [markdown]
# ## The chain rule, one operation at a time
#
# Every computation is a chain of small operations. If $y = g(u)$ and $u = h(x)$, then
#
# $$\frac{dy}{dx} = \frac{dy}{du}\cdot\frac{du}{dx}.$$
#
# So each operation only needs to know its *local* derivative. Going backwards from the
# output, each operation receives $g = \partial L / \partial\,\text{out}$ and hands each
# input $g \cdot \partial\,\text{out} / \partial\,\text{input}$. For $c = a \cdot b$ that
# is $g\,b$ for $a$ and $g\,a$ for $b$; for $c = \sin a$ it is $g \cos a$.
#
# A `Scalar` stores its value in `.data`. Every operation creates a new `Scalar` that
# remembers its inputs and a small function `backward(g)` with the local rule.

# %% [markdown]
# ## Your task 1.2: the local derivatives in `minitorch/scalar.py`
#
# Fill in the `backward(g)` of each operation: `+ - * /`, `** c`, unary `-`, `exp`,
# `log`, `sin`, `cos`, `tanh`, `sigmoid` and `relu`. Each returns a tuple with one number
# per input, in order: `(g, g)` for `a + b`, and `(g * ...,)`, a tuple of one, for an
# operation of one input. (In `a ** c` the exponent `c` is a plain number, not an input.
# For `c = 0` the derivative is 0, even at `a = 0`, where the formula would divide by 0.)
# Two facts save work: $\tanh' = 1 - \tanh^2$ and $\sigma' = \sigma (1 - \sigma)$, both
# from the output, which the rule can see as `out`. At exactly 0, take relu's derivative
# to be 0 (as PyTorch does).
#
# Stuck? `mt.hint("1.2")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task1_2_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 1.2: each rule, called directly with g = 0.5, against central differences of
# the same function written with NumPy (mt.numerical_grads: none of your code involved)
with checking("1.2"):
    cases = [  # name, on Scalars, with NumPy, the point
        ("a + b", lambda a, b: a + b, np.add, (2.0, -3.0)),
        ("a - b", lambda a, b: a - b, np.subtract, (2.0, -3.0)),
        ("a * b", lambda a, b: a * b, np.multiply, (2.0, -3.0)),
        ("a / b", lambda a, b: a / b, np.divide, (2.0, -3.0)),
        ("a ** 3", lambda a: a ** 3, lambda a: a ** 3, (-1.5,)),
        ("a ** 0", lambda a: a ** 0, lambda a: a ** 0, (0.0,)),
        ("-a", lambda a: -a, np.negative, (2.0,)),
        ("a.exp()", lambda a: a.exp(), np.exp, (0.7,)),
        ("a.log()", lambda a: a.log(), np.log, (0.7,)),
        ("a.sin()", lambda a: a.sin(), np.sin, (0.7,)),
        ("a.cos()", lambda a: a.cos(), np.cos, (0.7,)),
        ("a.tanh()", lambda a: a.tanh(), np.tanh, (-0.8,)),
        ("a.sigmoid()", lambda a: a.sigmoid(), lambda a: 1 / (1 + np.exp(-a)), (-0.8,)),
        ("a.relu()", lambda a: a.relu(), lambda a: np.maximum(a, 0), (1.3,)),
        ("a.relu()", lambda a: a.relu(), lambda a: np.maximum(a, 0), (-1.3,)),
    ]
    for name, on_scalars, with_numpy, point in cases:
        try:
            got = np.array([float(grad) for _, grad in on_scalars(*[mt.Scalar(v) for v in point]).chain_rule(0.5)])
        except ArithmeticError as error:  # your error: named below if a known mistake raises it here
            got = error
        expected = [float(d) for d in mt.numerical_grads(with_numpy, point, 0.5)]
        same(got, np.array(expected), f"the backward of {name}", f"inputs {point}, g = 0.5 (one number per input)",
             swapped=np.array(expected[::-1]),  # what the two inputs' gradients give in the other order
             known=("scalar backward", {"op": name, "point": point, "g": 0.5}))
    same(np.array([float(mt.Scalar(0.0).relu().chain_rule(1.0)[0][1])]), np.array([0.0]), "the backward of a.relu()",
         "the input exactly 0, g = 1", hint="At exactly 0, take relu's derivative to be 0, as PyTorch does.",
         known=("scalar backward", {"op": "a.relu()", "point": (0.0,), "g": 1.0}))
    print(f"Task 1.2 passes the visible checks ({len(cases) + 1} cases, every operation)")

# %% [markdown]
# ## The graph, and the order to walk it
#
# Here is the model this notebook trains: one input `x` and three weights.
#
# $$a = x^2,\quad b = \mathrm{relu}(w_1 a + w_3),\quad c = \mathrm{relu}(w_2 a + w_3),\quad y = 4 \sin(b + c)$$
#
# Blue boxes are the leaves (values we made), orange ones were computed. Arrows point
# from inputs to the values computed from them.

# %% tags=["raises-exception"]
def worked_model(x, w1, w2, w3):
    a = x ** 2
    a.name = "a"
    b = (w1 * a + w3).relu()
    b.name = "b"
    c = (w2 * a + w3).relu()
    c.name = "c"
    y = 4 * (b + c).sin()
    y.name = "y"
    return y


def leaves():
    return (mt.Scalar(0.8, "x"), mt.Scalar(1.5, "w1"), mt.Scalar(-0.3, "w2"), mt.Scalar(0.4, "w3"))


plotting.draw_graph(worked_model(*leaves()), show_grad=False);

# %% [markdown]
# `x` feeds `a`, and `a` feeds both `b` and `c`: a *diamond*. A change in `a` reaches `y`
# along two paths, so $\partial y/\partial a$ is the **sum** of the two contributions. We
# may only pass `a`'s gradient on once both have arrived. Hence the order: visit a node
# only after every node that uses it, a **reverse topological order** (the output
# first, the leaves last).

# %% [markdown]
# ## Your task 1.3: `topological_order` in `minitorch/autodiff.py`
#
# Return every node the root depends on, each once, the root first and every node before
# its parents. The engine sees nodes only through `node.parents`, so the same code will
# later walk tensor graphs. Do it without recursion: a graph can be 10,000 operations
# deep, and Python's recursion limit is about 1,000. A depth-first search with your own
# stack works: push a node, then its parents; emit the node once its parents are done.
#
# Stuck? `mt.hint("1.3")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task1_3_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 1.3 (on small graphs of its own)
with checking("1.3"):
    x = mt.Scalar(0.8, "x")
    a = x.exp()
    b = a.sin()
    c = a * b
    y = b + c
    graph = [x, a, b, c, y]  # by index: a uses x, b uses a, c uses a and b, y uses b and c
    parents = [[], [0], [1], [1, 2], [2, 3]]
    got = [next((i for i, node in enumerate(graph) if node is n), -1) for n in mt.topological_order(y)]
    call, case = "topological_order(y), as indices into [x, a, b, c, y]", "y = b + c, c = a * b, b = a.sin(), a = x.exp()"
    twice = " and ".join("xabcy"[i] for i in sorted({i for i in got if got.count(i) > 1}))  # listed more than once
    same(tuple(sorted(got)), (0, 1, 2, 3, 4), f"sorted({call})", f"{case}: which nodes are listed, and how often",
         known=("topological nodes", {"parents": parents}),
         hint=f"{twice} {'is' if len(twice) == 1 else 'are'} listed more than once: reached along two paths, handled each "
              "time. Keep a set of the ids of the nodes you have expanded, and skip a node already in it when it pops."
              if twice else "")
    u = x.exp()
    v = u.sin()
    w = v * u  # its parents latest first: every known mistake of the order gives an order of its own here
    z = u + w
    tied = [next((i for i, node in enumerate([x, u, v, w, z]) if node is n), -1) for n in mt.topological_order(z)]
    same(tuple(tied), (4, 3, 2, 1, 0), "topological_order(z), as indices into [x, u, v, w, z]",
         "z = u + w, w = v * u, v = u.sin(), u = x.exp(): its only order with every node before its parents",
         known=("topological order", {"parents": [[], [0], [1], [2, 1], [1, 3]]}))
    chain = [mt.Scalar(0.3, "x")]
    for _ in range(4):
        chain.append(chain[-1].sin())
    long = chain[1] * chain[4]  # a long branch and a short one that meet: depth-first and breadth-first orders differ
    walked = [next((i for i, node in enumerate([*chain, long]) if node is n), -1) for n in mt.topological_order(long)]
    same(tuple(walked), (5, 4, 3, 2, 1, 0), "topological_order(long), as indices into [x, s1, s2, s3, s4, long]",
         "long = s1 * s4, a chain x -> s1 -> s2 -> s3 -> s4 (each the sin of the one before)",
         known=("topological order", {"parents": [[], [0], [1], [2], [3], [1, 4]]}))
    same(tuple(got), (4, 3, 2, 1, 0), call, f"{case}: its only order with every node before its parents",
         known=("topological order", {"parents": parents}))
    a = x * x
    y = ((a * 1.5).relu() + (a * -0.3 + 0.4).relu()).sin()
    order = mt.topological_order(y)
    call, case = "topological_order(y)", "a diamond: x feeds a, a feeds two branches that meet again"
    if order[0] is not y:
        fail(call, case, f"put {order[0]!r} first; expected the root y first")
    if len(order) != len({id(n) for n in order}):
        fail(call, case, f"listed {len(order)} nodes, {len(order) - len({id(n) for n in order})} of them twice; "
             "expected each node once (keep a set of the nodes already visited)")
    position = {id(n): i for i, n in enumerate(order)}
    for n in order:
        for p in n.parents:
            if id(p) not in position or position[id(n)] > position[id(p)]:
                fail(call, case, f"put {p!r} before {n!r}, which was computed from it (or left it out); expected every "
                     "node before its parents")
    deep = x
    for _ in range(5000):  # deeper than Python's recursion limit
        deep = deep + 1.0
    try:
        count = len(mt.topological_order(deep))
    except RecursionError:
        fail("topological_order(deep)", "a chain 5,000 operations deep", "hit Python's recursion limit",
             hint="Walk the graph with a stack of your own instead of calling a function on each parent.")
    same(count, 1 + 2 * 5000, "len(topological_order(deep))", "a chain 5,000 operations deep (each + 1.0 adds two nodes)")
    print(f"Task 1.3 passes the visible checks ({len(order)} nodes, then a chain 5,000 operations deep)")

# %% [markdown]
# ## Your task 1.4: `backpropagate` in `minitorch/autodiff.py`
#
# Start with $\partial y/\partial y = 1$ at the root. Walk the topological order; for each
# node, its gradient is now complete: hand it to `node.accumulate` (which adds it to
# `.grad`), then to `node.chain_rule`, and **add** what comes back into a running total
# per parent. Adding, never assigning: that is what makes the diamond come out right,
# and what makes a second `backward()` add to the gradients instead of replacing them.
#
# Stuck? `mt.hint("1.4")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task1_4_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 1.4: x is used twice, so dy/dx = 3 e^x + 3x e^x
with checking("1.4"):
    x = mt.Scalar(0.5, "x")
    a = x.exp()
    b = a * x
    y = b * a  # = x e^(2x): x feeds a and b, a feeds b and y
    order = mt.topological_order(y)
    if len(order) != 4 or any(got is not want for got, want in zip(order, (y, b, a, x))):
        fail("backpropagate(y, 10.0)", "y = b * a, b = a * x, a = x.exp()", "walks topological_order(y), which does not "
             "give [y, b, a, x] here (the only right order): Task 1.3 first, then this check again")
    mt.backpropagate(y, 10.0)
    e = math.exp(0.5)
    graph = {"parents": [[], [0], [1, 0], [2, 1]], "local": [[], [e], [0.5, e], [e, 0.5 * e]], "seed": 10.0}
    same(np.array([x.grad, a.grad, b.grad, y.grad]), np.array([20 * e * e, 10 * e, 10 * e, 10.0]),
         "backpropagate(y, 10.0); [x.grad, a.grad, b.grad, y.grad]", "y = b * a, b = a * x, a = x.exp() at x = 0.5",
         atol=1e-10, known=("backpropagate", graph))
    x = mt.Scalar(0.5)
    y = (x * 3) * x.exp()
    dy_dx = (3 + 3 * 0.5) * math.exp(0.5)
    y.backward()
    same(float(x.grad), dy_dx, "y.backward(); x.grad", "y = (x * 3) * x.exp() at x = 0.5: x used twice", atol=1e-12,
         hint="A node used twice gets the sum of both contributions: add into a running total per parent.")
    y.backward()
    same(float(x.grad), 2 * dy_dx, "a second y.backward(); x.grad", "the same y", atol=1e-12,
         hint="A second backward adds to the gradients: accumulate, never assign.")
    x.zero_grad()
    mt.backpropagate(y, 10.0)  # the root's gradient need not be 1
    same(float(x.grad), 10 * dy_dx, "backpropagate(y, 10.0); x.grad", "the same y, seed 10", atol=1e-10,
         hint="Start from the gradient you are given, not from 1.")
    x, handed = mt.Scalar(0.5), []
    x.accumulate = lambda g: handed.append(g) or mt.Scalar.accumulate(x, g)  # watch what x is handed
    ((x * 3) * x.exp()).backward()
    if len(handed) != 1:
        fail("backward()", "x used twice, its accumulate watched", f"handed x {len(handed)} gradients ({handed}); "
             "expected one, the complete sum", hint="Accumulate a node's gradient once, when all its contributions are in.")


    class Twice(mt.Function):  # a + b, whose backward hands the same array to both inputs
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, grad):
            return grad, grad


    v = mt.Tensor(np.ones(3), requires_grad=True)
    upstream = np.ones(3)
    Twice.apply(v, v).backward(upstream)
    same(v.grad, np.full(3, 2.0), "Twice.apply(v, v).backward(ones); v.grad", "one array handed to both inputs")
    same(upstream, np.ones(3), "the upstream array after backward", "Twice.apply(v, v).backward(upstream)",
         hint="Add contributions into a new array (total = total + g): never change an array you were handed.")
    print("Task 1.4 passes the visible checks")

# %% [markdown]
# ## The graph with its gradients
#
# With all four tasks done, one call fills in every gradient. Each box now shows its value
# and $\partial y / \partial(\text{box})$. Check one by hand: $y = 4 \sin(b + c)$, so
# the gradient at `b` is $4\cos(b + c)$.

# %% tags=["not-graded", "raises-exception"]
y = worked_model(*leaves())
y.backward()
plotting.draw_graph(y);

# %% [markdown]
# ## Training the model
#
# Let us fit the weights so that the model maps five inputs to their targets, by plain
# gradient descent on the squared error plus a small L2 penalty $\lambda \sum w^2$ that
# keeps the weights small. The targets were made by the same model with the weights
# $(0.3, 0.1, 0.05)$, which training does not know; it starts from $(0.6, 0.4, 0.2)$.
# Each step: compute the loss, zero the gradients, backward, step every weight against
# its gradient.

# %% tags=["not-graded", "raises-exception"]
inputs = [-1.0, -0.5, 0.0, 0.5, 1.0]
targets = [1.92, 0.79, 0.4, 0.79, 1.92]  # the model's outputs with w = (0.3, 0.1, 0.05), rounded


def train_worked_model(steps=200, lr=0.002, penalty=1e-4):
    weights = [mt.Scalar(0.6, "w1"), mt.Scalar(0.4, "w2"), mt.Scalar(0.2, "w3")]
    history = []
    for _ in range(steps):
        loss = sum((worked_model(mt.Scalar(x), *weights) - t) ** 2 for x, t in zip(inputs, targets))
        loss = loss + penalty * sum(w * w for w in weights)
        for w in weights:
            w.zero_grad()
        loss.backward()
        for w in weights:
            w.data -= lr * w.grad
        history.append(loss.data)
    return weights, history


weights, history = train_worked_model()
fig, ax = plt.subplots(figsize=(5.5, 3), layout="constrained")
ax.plot(history, lw=2)
ax.set_yscale("log")
ax.set_xlabel("step")
ax.set_ylabel("loss")
ax.set_title("gradient descent on the worked model")
print(f"loss {history[0]:.3g} -> {history[-1]:.3g};", "learned:", ", ".join(f"{w.name} = {w.data:.3f}" for w in weights))

# %% [markdown]
# The loss falls from about 15 to below 0.0001, five orders of magnitude, and the weights
# land near the $(0.3, 0.1, 0.05)$ that made the targets: every gradient the engine
# computed pointed the right way. Next notebook: the same engine on whole arrays, where a new question appears
# (what happens to the gradient when a shape was *broadcast*?).
