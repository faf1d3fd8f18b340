# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 6 · Training networks
#
# Everything is in place to train: the engine computes every gradient. What remains is
# the scaffolding around it: modules that hold the weights, optimizers that update
# them, and the loop that feeds data through. Then we train two networks and watch them
# learn.
#
# **You will:** build modules that find their own parameters (6.1); SGD with momentum
# and weight decay (6.2); Adam with bias correction (6.3); the training loop (6.4); then
# train networks on spirals and on handwritten digits.
#
# **Time:** about 2 hours.

# %%
# %load_ext autoreload
# %autoreload 2
import functools

import matplotlib.pyplot as plt
import numpy as np

import minitorch as mt
from minitorch import datasets, nn, optim, plotting, training

# %% [markdown]
# ## Your task 6.1: `Module.parameters`, `Linear` and `MLP` in `minitorch/nn/modules.py`
#
# * `parameters()` walks the module's attributes and returns every `Parameter`, looking
#   inside sub-modules and inside lists, tuples and dicts of them (`_walk` helps), each
#   parameter once even if two attributes share it.
# * `Linear(in, out)` holds `weight` of shape `(out, in)` (PyTorch's layout) and `bias`
#   of shape `(out,)`, and computes `x @ weight.T + bias`. Start both uniform in
#   $[-1/\sqrt{\text{in}}, 1/\sqrt{\text{in}}]$: with $n$ inputs, each output sums $n$
#   terms, and this scale keeps its spread about that of one input (draw from `_rng`, so
#   `mt.manual_seed` makes runs repeatable).
# * `MLP([2, 64, 64, 3])` is three `Linear` layers with the activation between them, and
#   none after the last (the loss applies its own softmax).

# %% nbgrader={"grade": false, "grade_id": "task6_1_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 6.1: parameters found everywhere and once, Linear's start and output, MLP's layers
model = nn.MLP([2, 8, 3])
assert [p.shape for p in model.parameters()] == [(8, 2), (8,), (3, 8), (3,)]
x = np.random.default_rng(0).standard_normal((50, 2))
layer = model.layers[0]
bound = 1 / np.sqrt(2)
assert np.abs(layer.weight.data).max() <= bound and np.abs(layer.bias.data).max() <= bound
assert layer.weight.data.std() > 0.2 * bound, "the weights start spread over [-1/√in, 1/√in]"
wide = nn.Linear(100, 50).weight.data  # 5,000 draws: their spread is close to a uniform's, (1/√100) / √3
assert abs(wide.std() / (0.1 / np.sqrt(3)) - 1) < 0.1, f"spread {wide.std():.4f}: uniform in [-1/√in, 1/√in]"
small = nn.Linear(2, 3, dtype=np.float32)
assert small.weight.dtype == small.bias.dtype == small(mt.Tensor(x.astype(np.float32))).dtype == np.float32, \
    "Linear(..., dtype=np.float32): float32 parameters"
assert np.allclose(layer(mt.Tensor(x)).data, x @ layer.weight.data.T + layer.bias.data)
scores = model(mt.Tensor(x)).data
assert scores.shape == (50, 3) and (scores < 0).any(), "no activation after the last layer: scores can be negative"
mt.manual_seed(5)
first = nn.Linear(3, 2).weight.data
mt.manual_seed(5)
assert np.array_equal(nn.Linear(3, 2).weight.data, first), "draw from _rng, so that mt.manual_seed repeats a start"


class Nested(nn.Module):
    def __init__(self):
        shared = nn.Parameter(np.zeros(2))
        self.scale, self.same_scale = shared, shared  # one parameter under two names
        self.parts = [nn.Linear(2, 2), {"head": nn.Linear(2, 1)}]
        self.mask = mt.Tensor(np.ones(2))  # a Tensor, not a Parameter: nothing to learn


assert len(Nested().parameters()) == 1 + 2 + 2, "each Parameter once, inside lists and dicts too, and no plain Tensor"
no_bias = nn.Linear(2, 3, bias=False)
assert no_bias.bias is None and len(no_bias.parameters()) == 1, "bias=False: no bias"
assert np.allclose(no_bias(mt.Tensor(x)).data, x @ no_bias.weight.data.T)
print("Task 6.1 passes the visible checks")

# %% nbgrader={"grade": true, "grade_id": "task6_1", "locked": true, "schema_version": 3, "solution": false, "task": false}
# Task 6.1: its points and this text come from the task manifest (grader/tasks.toml)

# %% [markdown]
# ## Your task 6.2: `SGD.step` in `minitorch/optim.py`
#
# Both optimizers follow `torch.optim` exactly, so the same settings behave the same
# way; the module docstring has the formulas. Update `p.data` in place, keep
# per-parameter state in `state` (a dict per parameter), and skip parameters whose
# `.grad` is None. `weight_decay` adds $\lambda p$ to the gradient first (an L2 penalty).
#
# **SGD with momentum** keeps a running direction $b \leftarrow \mu b + g$ (on the first
# step, $b = g$) and steps along it: consistent directions build up speed, zig-zags
# cancel out.

# %% nbgrader={"grade": false, "grade_id": "task6_2_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 6.2: three steps against SGD's formulas worked out with NumPy, with momentum
# kept per parameter, weight decay, and parameters that sit out a step or every step


def sgd_by_hand(start, grads, lr, momentum, weight_decay):
    p, buffer = start.copy(), None
    for grad in grads:
        if grad is not None:  # no gradient: no step, and the buffer waits
            g = grad + weight_decay * p
            buffer = g if buffer is None else momentum * buffer + g
            p = p - lr * buffer
    return p


starts = [np.array([1.0, -2.0]), np.array([0.5]), np.array([3.0])]
grads = [[np.array([1.0, 1.0]), np.array([1.0, -2.0]), np.array([0.5, 0.0])],
         [np.array([-4.0]), None, np.array([2.0])],
         [None, None, None]]
for momentum, weight_decay in ((0.9, 0.0), (0.0, 0.5), (0.9, 0.1)):
    params = [nn.Parameter(start.copy()) for start in starts]
    sgd = optim.SGD(params, lr=0.1, momentum=momentum, weight_decay=weight_decay)
    for step in range(3):
        for p, steps in zip(params, grads):
            p.grad = steps[step]
        sgd.step()
    for i, (p, start, steps) in enumerate(zip(params, starts, grads)):
        expected = sgd_by_hand(start, steps, 0.1, momentum, weight_decay)
        assert np.allclose(p.data, expected, atol=1e-12), \
            f"parameter {i} (momentum {momentum}, weight_decay {weight_decay}): got {p.data}, expected {expected}"
print("Task 6.2 passes the visible checks")

# %% nbgrader={"grade": true, "grade_id": "task6_2", "locked": true, "schema_version": 3, "solution": false, "task": false}
# Task 6.2: its points and this text come from the task manifest (grader/tasks.toml)

# %% [markdown]
# ## Your task 6.3: `Adam.step` in `minitorch/optim.py`
#
# **Adam** keeps running averages of the gradient ($m$) and of its square ($v$) and steps
# by $m / \sqrt{v}$: every weight moves by about the learning rate, whatever the scale of
# its gradient. Both averages start at 0, which biases them toward 0 in the first steps;
# dividing by $1 - \beta^t$ at step $t$ corrects that.

# %% nbgrader={"grade": false, "grade_id": "task6_3_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 6.3: Adam's first step is lr times the sign of the gradient (almost exactly);
# three steps against its formulas worked out with NumPy, each parameter with its own
# step count, a tiny gradient (where eps goes matters), with and without weight decay


def adam_by_hand(start, grads, lr, weight_decay, beta1=0.9, beta2=0.999, eps=1e-8):
    p, m, v, t = start.copy(), 0.0, 0.0, 0
    for grad in grads:
        if grad is not None:  # no gradient: no step, and the step count waits
            t += 1
            g = grad + weight_decay * p
            m, v = beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * g * g
            p = p - lr / (1 - beta1 ** t) * m / (np.sqrt(v) / np.sqrt(1 - beta2 ** t) + eps)
    return p


starts = [np.array([1.0, -2.0]), np.array([0.5]), np.array([3.0])]
grads = [[np.array([3.0, -0.001]), np.array([-1.0, 2.0]), np.array([0.5, 0.5])],
         [np.array([2e-8]), None, np.array([-1e-8])],
         [None, None, None]]
for weight_decay in (0.0, 0.1):
    params = [nn.Parameter(start.copy()) for start in starts]
    adam = optim.Adam(params, lr=0.01, weight_decay=weight_decay)
    for step in range(3):
        for p, steps in zip(params, grads):
            p.grad = steps[step]
        adam.step()
        if step == 0 and weight_decay == 0.0:
            assert np.allclose(params[0].data, [1.0 - 0.01, -2.0 + 0.01], atol=1e-6), f"step 1: got {params[0].data}"
    for i, (p, start, steps) in enumerate(zip(params, starts, grads)):
        expected = adam_by_hand(start, steps, 0.01, weight_decay)
        assert np.allclose(p.data, expected, rtol=1e-9, atol=1e-12), \
            f"parameter {i} (weight_decay {weight_decay}): got {p.data}, expected {expected}"
print("Task 6.3 passes the visible checks")

# %% nbgrader={"grade": true, "grade_id": "task6_3", "locked": true, "schema_version": 3, "solution": false, "task": false}
# Task 6.3: its points and this text come from the task manifest (grader/tasks.toml)

# %% [markdown]
# ## Your task 6.4: `train_epoch` in `minitorch/training.py`
#
# One epoch visits every example once, in random mini-batches. For each batch:
# `zero_grad` (gradients accumulate, remember), forward, loss, `backward`, `step`. Return
# the mean loss over the epoch, each batch weighted by its size. `fit` (given) calls it
# once per epoch and records the validation loss too.

# %% nbgrader={"grade": false, "grade_id": "task6_4_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 6.4: the epoch's loss weights each batch by its size; each batch is one
# gradient step on that batch only (worked out with NumPy); five epochs fit a line
mt.manual_seed(0)
model = nn.Linear(1, 1)
x, y = np.linspace(-1, 1, 10)[:, None], 3 * np.linspace(-1, 1, 10)[:, None]
w, b = model.weight.data[0, 0], model.bias.data[0]
frozen = optim.SGD(model.parameters(), lr=0.0)
loss = training.train_epoch(model, mt.mse_loss, frozen, x, y, 4, np.random.default_rng(0))  # batches of 4, 4, 2
assert np.isclose(loss, np.mean((x * w + b - y) ** 2)), "weight each batch's loss by its size"
sgd = optim.SGD(model.parameters(), lr=0.1)
for batch in training.minibatches(10, 4, np.random.default_rng(1)):  # the batches train_epoch draws below
    residual = x[batch, 0] * w + b - y[batch, 0]
    w, b = w - 0.1 * np.mean(2 * residual * x[batch, 0]), b - 0.1 * np.mean(2 * residual)
training.train_epoch(model, mt.mse_loss, sgd, x, y, 4, np.random.default_rng(1))
assert np.allclose([model.weight.data[0, 0], model.bias.data[0]], [w, b]), \
    "each batch: zero_grad, forward, loss, backward, step"
mt.manual_seed(0)
model = nn.Linear(1, 1)
x, y = np.linspace(-1, 1, 32)[:, None], 3 * np.linspace(-1, 1, 32)[:, None]
losses = [training.train_epoch(model, mt.mse_loss, optim.SGD(model.parameters(), lr=0.3), x, y, 8,
                               np.random.default_rng(0)) for _ in range(5)]
assert losses[-1] < 0.1 * losses[0] and abs(model.weight.data[0, 0] - 3) < 0.3
print("Task 6.4 passes the visible checks; losses:", np.round(losses, 4))

# %% nbgrader={"grade": true, "grade_id": "task6_4", "locked": true, "schema_version": 3, "solution": false, "task": false}
# Task 6.4: its points and this text come from the task manifest (grader/tasks.toml)

# %% [markdown]
# ## Three spirals
#
# 600 points on three interleaved spiral arms: no straight line separates them, so a
# network needs its hidden layers. We hold out 20% to watch for overfitting.

# %% tags=["not-graded", "raises-exception"]
x_all, y_all = datasets.make_spirals(600, classes=3, noise=0.15)
(x_train, y_train), (x_val, y_val) = datasets.train_val_split(x_all, y_all)
print(f"{len(x_all)} points: {len(x_train)} to train on, {len(x_val)} held out")
fig, ax = plt.subplots(figsize=(3.6, 3.6), layout="constrained")
ax.scatter(x_all[:, 0], x_all[:, 1], c=y_all, cmap="coolwarm", s=10)
ax.set_title("three spirals")
ax.set_xticks([])
ax.set_yticks([]);


# %% [markdown]
# ## SGD against Adam
#
# The same network, the same initial weights, two optimizers. Solid lines are the
# training loss, dashed the validation loss.

# %% tags=["not-graded", "raises-exception"]
def train_spirals(make_optimizer, epochs=60):
    mt.manual_seed(1)
    model = nn.MLP([2, 64, 64, 3])
    history = training.fit(model, mt.cross_entropy, make_optimizer(model.parameters()), x_train, y_train,
                           epochs=epochs, batch_size=32, validation=(x_val, y_val), progress=True)
    return model, history


def accuracy(model, x, y):
    with mt.no_grad():
        return float(np.mean(model(mt.Tensor(x)).data.argmax(axis=1) == y))


runs = {"SGD (lr 0.1, momentum 0.9)": train_spirals(lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9)),
        "Adam (lr 0.01)": train_spirals(lambda ps: optim.Adam(ps, lr=0.01))}
fig, ax = plt.subplots(figsize=(6.5, 3.6), layout="constrained")
for (name, (model, history)), color in zip(runs.items(), ["#4a78a8", "#c48a2c"]):
    ax.plot(range(1, len(history["train"]) + 1), history["train"], color=color, lw=2, label=f"{name}, train")
    ax.plot(range(1, len(history["val"]) + 1), history["val"], color=color, lw=2, ls="--", label=f"{name}, validation")
    print(f"{name}: validation loss {history['val'][9]:.3f} after 10 epochs, {history['val'][-1]:.3f} after "
          f"{len(history['val'])}; spirals validation accuracy {accuracy(model, x_val, y_val):.3f}")
ax.set_yscale("log")
ax.set_xlabel("epoch")
ax.set_ylabel("cross-entropy")
ax.grid(alpha=0.3)
ax.legend(fontsize=8);

# %% [markdown]
# On this problem Adam pulls ahead within the first 10 epochs and ends with a validation
# loss several times lower than SGD's (the numbers above): the spiral arms need weights
# of very different scales, and Adam's per-weight step size adapts to each. Try other
# learning rates for SGD: too high and it diverges, too low and it crawls.
#
# ## The decision boundary as it forms
#
# Each panel colours the plane by the class the network predicts there, after 1, 5, 20
# and 60 epochs of Adam.

# %% tags=["not-graded", "raises-exception"]
def boundary_snapshots(epochs=(1, 5, 20, 60)):
    mt.manual_seed(1)
    model = nn.MLP([2, 64, 64, 3])
    adam = optim.Adam(model.parameters(), lr=0.01)
    fig, axes = plt.subplots(1, len(epochs), figsize=(3 * len(epochs), 3.2), layout="constrained")
    done = 0
    for ax, epoch in zip(axes, epochs):
        training.fit(model, mt.cross_entropy, adam, x_train, y_train, epochs=epoch - done, batch_size=32, seed=epoch,
                     progress=True)
        done = epoch

        def predict(points):
            with mt.no_grad():
                return model(mt.Tensor(points)).data.argmax(axis=1)

        plotting.plot_decision_boundary(predict, x_all, y_all, ax=ax, resolution=120)
        ax.set_title(f"after {epoch} epoch{'s' if epoch > 1 else ''}")


boundary_snapshots()

# %% [markdown]
# ## A real data set: handwritten digits
#
# 1,797 digits scanned at 8×8 pixels (shipped with the package, no download). Each image
# becomes 64 numbers, scaled to [0, 1]; the network maps them to 10 scores.

# %% tags=["not-graded", "raises-exception"]
pixels, digits = datasets.load_digits()
pixels = pixels / 16.0
(d_train, t_train), (d_val, t_val) = datasets.train_val_split(pixels, digits)
print(f"{len(pixels)} images of {pixels.shape[1]} pixels, values from {pixels.min():g} to {pixels.max():g}")
fig, axes = plt.subplots(1, 10, figsize=(9, 1.2), layout="constrained")
for ax, image, label in zip(axes, d_train[:10], t_train[:10]):
    ax.imshow(image.reshape(8, 8), cmap="gray_r")
    ax.set_title(str(label), fontsize=9)
    ax.axis("off")

# %% tags=["not-graded", "raises-exception"]
@functools.cache  # trained once, however many cells ask for it
def train_digits(epochs=25):
    mt.manual_seed(2)
    model = nn.MLP([64, 64, 10])
    history = training.fit(model, mt.cross_entropy, optim.Adam(model.parameters(), lr=3e-3), d_train, t_train,
                           epochs=epochs, batch_size=64, validation=(d_val, t_val), progress=True)
    return model, history


digit_model, digit_history = train_digits()
plotting.plot_curves({"train": digit_history["train"], "validation": digit_history["val"]})
print(f"digits validation accuracy {accuracy(digit_model, d_val, t_val):.3f}")

# %% [markdown]
# Some validation digits with the network's guesses (red when wrong):

# %% tags=["not-graded", "raises-exception"]
digit_model, _ = train_digits()
with mt.no_grad():
    guesses = digit_model(mt.Tensor(d_val[:16])).data.argmax(axis=1)
fig, axes = plt.subplots(2, 8, figsize=(8, 2.4), layout="constrained")
for ax, image, guess, truth in zip(axes.ravel(), d_val[:16], guesses, t_val[:16]):
    ax.imshow(image.reshape(8, 8), cmap="gray_r")
    ax.set_title(f"{guess}", color="black" if guess == truth else "red", fontsize=10)
    ax.axis("off")

# %% [markdown]
# You built every piece of this: the chain rule, the broadcasting reverse, reductions,
# indexing, matmul, softmax with its fused loss, the modules and the optimizers. The
# same ideas, in compiled code and on GPUs, train today's largest models.
