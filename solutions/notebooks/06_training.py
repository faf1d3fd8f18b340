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
# Edits you save in minitorch/ reach this notebook at the next cell (a file that does not
# load is named in one short line instead).
# %load_ext minitorch.course.notebook
import functools
import re

import matplotlib.pyplot as plt
import numpy as np

import minitorch as mt
from minitorch import datasets, nn, optim, plotting, training
from minitorch.course.visible import called_from, check_backward, checking, fail, in_place, same, same_dtype, seen  # the checks' messages

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
#
# Stuck? `mt.hint("6.1")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task6_1_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 6.1: parameters found everywhere and once, Linear's start and output, MLP's layers
with checking("6.1"):
    mt.manual_seed(0)  # the same start on every run: a known mistake is named by what it computes from it
    model = nn.MLP([2, 8, 3])
    x = np.random.default_rng(0).standard_normal((50, 2))
    layer = model.layers[0]
    held = [(getattr(linear, "in_features", None), getattr(linear, "out_features", None)) for linear in model.layers]
    if held != [(2, 8), (8, 3)]:  # which layer is missing or extra, or swapped, from the sizes each one was made with
        where = {str([(2, 8)]): ": the last layer is missing", str([(8, 3)]): ": the first layer is missing",
                 str([(8, 2), (3, 8)]): ": each Linear was made with in and out swapped (the layers are right: MLP "
                 "gave them their sizes the wrong way round)"}
        fail("nn.MLP([2, 8, 3]).layers, each as (in_features, out_features)", "", f"came back as {held}; expected "
             f"[(2, 8), (8, 3)]{where.get(str(held), '')}", hint="One Linear for each pair of neighbouring sizes, "
             "in then out: zip(sizes[:-1], sizes[1:]).")
    same(tuple(layer.weight.shape), (8, 2), "nn.MLP([2, 8, 3]).layers[0].weight.shape", "Linear(2, 8)",
         hint="A Linear(in_features, out_features) keeps its weight as (out_features, in_features), as torch does; "
              "forward computes x @ weight.T.")
    wide = nn.Linear(64, 1024)  # 65,536 weights and 1,024 biases: their spread is close to a uniform's, (1/√64) / √3
    for name, values in (("weight", wide.weight.data), ("bias", wide.bias.data)):
        spread = np.array([np.abs(values).max() <= 1 / 8, abs(values.std() / (1 / 8 / np.sqrt(3)) - 1) < 0.1])
        bound = next((f", as if drawn within ±{which}, not ±1/√in_features" for which, b in (("1/in_features = 1/64", 1 / 64),
                      ("1/√out_features = 1/32", 1 / 32), ("1/out_features = 1/1024", 1 / 1024), ("1", 1.0))
                      if 0.97 * b <= np.abs(values).max() <= b * (1 + 1e-6) and abs(values.std() / (b / np.sqrt(3)) - 1) < 0.1), "")
        same(spread, np.array([True, True]), f"nn.Linear(64, 1024).{name}: [within 1/√64, spread of a uniform]",
             f"values from {values.min():.4f} to {values.max():.4f}, spread (std) {values.std():.4f}{bound}",
             hint="Both weight and bias start uniform in [-1/√in_features, 1/√in_features] (not zeros, not 1/√out).")
    small = nn.Linear(2, 3, dtype=np.float32)
    for name in ("weight", "bias"):
        same_dtype(getattr(small, name).dtype, "float32", f"nn.Linear(2, 3, dtype=np.float32).{name}.dtype",
                   lambda: nn.Linear(2, 3, dtype=np.float32),
                   hint="Make each Parameter in the dtype asked for: Parameter(..., dtype=dtype).", only=f"self.{name}")
    square, x3 = nn.Linear(3, 3), x[:4, :1] * np.array([1.0, -2.0, 0.5])  # square: x @ weight runs too
    same(square(mt.Tensor(x3)).data, x3 @ square.weight.data.T + square.bias.data, "nn.Linear(3, 3)(x)", "x of shape (4, 3)",
         known=("linear", {"x": x3, "weight": square.weight.data, "bias": square.bias.data}))
    same(layer(mt.Tensor(x)).data, x @ layer.weight.data.T + layer.bias.data, "Linear(2, 8)(x)", "x of shape (50, 2)")
    scores = model(mt.Tensor(x)).data
    same(scores.shape, (50, 3), "nn.MLP([2, 8, 3])(x).shape", "x of shape (50, 2)")
    layers = [(linear.weight.data, linear.bias.data) for linear in model.layers]
    same(scores, np.maximum(x @ layers[0][0].T + layers[0][1], 0) @ layers[1][0].T + layers[1][1], "nn.MLP([2, 8, 3])(x)",
         "x of shape (50, 2), relu between the layers", known=("mlp", {"x": x, "layers": layers, "activation": "relu"}))
    if not (scores < 0).any():
        fail("nn.MLP([2, 8, 3])(x)", "x of shape (50, 2)", "gave no negative score; expected some",
             hint="No activation after the last layer: scores can be negative.")
    starts = []
    for seed in (5, 5, 6):
        mt.manual_seed(seed)
        starts.append(nn.Linear(3, 2).weight.data)
    same(starts[1], starts[0], "mt.manual_seed(5); nn.Linear(3, 2).weight", "the same seed twice",
         hint="Draw from nn._rng (what manual_seed sets), not from np.random: a seed must repeat a start.")
    if np.array_equal(starts[2], starts[0]):
        fail("mt.manual_seed(6); nn.Linear(3, 2).weight", "after the same with seed 5", "gave the same start; expected another",
             hint="Draw from nn._rng, not from a generator made inside Linear with a fixed seed.")


    class Wrapped(nn.Module):  # a module holding a module: two levels down from Nested
        def __init__(self):
            self.inner = nn.Linear(2, 2)


    class Nested(nn.Module):
        def __init__(self):
            shared = nn.Parameter(np.zeros(2))
            self.scale, self.same_scale = shared, shared  # one parameter under two names
            self.body = nn.Linear(2, 2)  # a sub-module
            self.parts = [nn.Linear(2, 2), {"head": nn.Linear(2, 1)}]  # and more, in a list and a dict
            self.deep = Wrapped()  # a sub-module's sub-module
            self.mask = mt.Tensor(np.ones(2))  # a Tensor, not a Parameter: nothing to learn


    nested = Nested()
    walk = {"scale": nested.scale, "same_scale": nested.scale, "body.weight": nested.body.weight,  # all a walk meets
            "body.bias": nested.body.bias, "parts[0].weight": nested.parts[0].weight, "parts[0].bias": nested.parts[0].bias,
            "parts[1]['head'].weight": nested.parts[1]["head"].weight,
            "parts[1]['head'].bias": nested.parts[1]["head"].bias, "deep.inner.weight": nested.deep.inner.weight,
            "deep.inner.bias": nested.deep.inner.bias, "mask": nested.mask}
    label: dict = {}
    for path, value in walk.items():
        label.setdefault(id(value), path if isinstance(value, nn.Parameter) else f"{path} (a Tensor)")
    same(tuple(label.get(id(p), type(p).__name__) for p in nested.parameters()),
         ("scale", "body.weight", "body.bias", "parts[0].weight", "parts[0].bias", "parts[1]['head'].weight",
          "parts[1]['head'].bias", "deep.inner.weight", "deep.inner.bias"), "Nested().parameters(), each by where it was found",
         "one Parameter under two names, a Linear, two Linears in a list and a dict, a Linear inside a sub-module, a plain "
         "Tensor", hint="Each Parameter once, inside sub-modules (and theirs, at any depth), lists and dicts too, in the order "
                        "set, and no plain Tensor.",
         known=("parameters", {"walk": [(path, label[id(v)], type(v).__name__) for path, v in walk.items()]}))
    no_bias = nn.Linear(2, 3, bias=False)
    same(no_bias.bias is None, True, "nn.Linear(2, 3, bias=False).bias is None")
    same(len(no_bias.parameters()), 1, "len(nn.Linear(2, 3, bias=False).parameters())")
    same(no_bias(mt.Tensor(x)).data, x @ no_bias.weight.data.T, "nn.Linear(2, 3, bias=False)(x)", "x of shape (50, 2)")
    same(tuple(p.shape for p in model.parameters()), ((8, 2), (8,), (3, 8), (3,)), "the shapes of nn.MLP([2, 8, 3]).parameters()",
         hint="Each Linear(in, out) has a weight (out, in) and a bias (out,), found in the order they were set.")
    print("Task 6.1 passes the visible checks")

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
#
# Stuck? `mt.hint("6.2")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task6_2_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 6.2: three steps against SGD's formulas worked out with NumPy, with momentum
# kept per parameter, weight decay, and parameters that sit out a step or every step
with checking("6.2"):
    def sgd_by_hand(start, grads, lrs, momentum, weight_decay):
        p, buffer = start.copy(), None
        for grad, lr in zip(grads, lrs):
            if grad is not None:  # no gradient: no step, and the buffer waits
                g = grad + weight_decay * p
                buffer = g if buffer is None else momentum * buffer + g
                p = p - lr * buffer
        return p


    starts = [np.array([1.0, -2.0]), np.array([0.5]), np.array([3.0])]
    grads = [[np.array([1.0, 1.0]), np.array([1.0, -2.0]), np.array([0.5, 0.0])],
             [np.array([-4.0]), None, np.array([2.0])],
             [None, None, None]]
    lrs = [0.1, 0.1, 0.05]  # a schedule: the learning rate changes before the third step
    # momentum 0.8 with lr 0.1: 1 - momentum is not lr, so a dampened buffer and lr inside it move differently
    for momentum, weight_decay in ((0.8, 0.0), (0.0, 0.5), (0.7, 0.1)):
        params = [nn.Parameter(start.copy()) for start in starts]
        sgd = optim.SGD(params, lr=0.1, momentum=momentum, weight_decay=weight_decay)
        given = []  # each gradient handed to the step, with a copy of it: the step may only read p.grad
        for step in range(3):
            sgd.lr = lrs[step]
            for i, (p, steps) in enumerate(zip(params, grads)):
                p.grad = None if steps[step] is None else steps[step].copy()
                given += [] if p.grad is None else [(step, i, p.grad, p.grad.copy())]
            before, held = [p.data.copy() for p in params], [p.data for p in params]
            sgd.step()
            for at, i, grad, kept in given:
                if not np.array_equal(grad, kept):
                    fail(f"optim.SGD(lr=0.1, momentum={momentum}, weight_decay={weight_decay}).step()",
                         f"parameter {i} at step {step + 1}", "changed p.grad in place: the gradient of this step"
                         if at == step else f"changed the gradient p.grad held at step {at + 1}, an earlier step: "
                         "the state kept p.grad's own array (state['momentum_buffer'] = g, not a copy) and then "
                         "changed it in place (*=, +=)", grad, kept,
                         hint="The step only reads p.grad: keep a copy in the state (g.copy()), or build a new array "
                              "each step, b = momentum * b + g.")
            case = {"starts": starts, "grads": [[steps[s] for steps in grads] for s in range(step + 1)],
                    "lrs": lrs[:step + 1], "momentum": momentum, "weight_decay": weight_decay}  # known mistakes' case
            for i, (p, start, steps) in enumerate(zip(params, starts, grads)):
                same(p.data, sgd_by_hand(start, steps[:step + 1], lrs, momentum, weight_decay),
                     f"optim.SGD(lr=0.1, momentum={momentum}, weight_decay={weight_decay}).step()",
                     f"parameter {i} after step {step + 1} (lr {lrs[step]}; a None gradient: no step)", atol=1e-12,
                     moved_from=before[i], known=("sgd", {**case, "param": i}),
                     hint="b = momentum * b + (g + weight_decay * p) in state['momentum_buffer'], then p -= lr * b, "
                          "with lr read at every step (keep it out of the buffer).")
                in_place(held[i], p.data, f"optim.SGD(lr=0.1, momentum={momentum}, weight_decay={weight_decay}).step()",
                         f"parameter {i} after step {step + 1}")
        # the state of the two parameters that got gradients
        kept = [sorted(map(str, s)) if isinstance(s, dict) else [] for s in list(sgd.state)[:2]]
        if momentum and any("momentum_buffer" not in keys for keys in kept):
            fail(f"optim.SGD(lr=0.1, momentum={momentum}, weight_decay={weight_decay}).state", "3 right steps, "
                 "parameters 0 and 1", f"held the keys {kept}; expected 'momentum_buffer' in each: the buffer b is "
                 "kept under PyTorch's name, which the stub gives (code that reads an optimizer's state, such as a "
                 "checkpoint, looks it up by that name)", hint="Keep b in state['momentum_buffer'], in the dict "
                 "self.state gives each parameter.")
    print("Task 6.2 passes the visible checks")

# %% [markdown]
# ## Your task 6.3: `Adam.step` in `minitorch/optim.py`
#
# **Adam** keeps running averages of the gradient ($m$) and of its square ($v$) and steps
# by $m / \sqrt{v}$: every weight moves by about the learning rate, whatever the scale of
# its gradient. Both averages start at 0, which biases them toward 0 in the first steps;
# dividing by $1 - \beta^t$ at step $t$ corrects that.
#
# Stuck? `mt.hint("6.3")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task6_3_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 6.3: Adam's first step is lr times the sign of the gradient (almost exactly);
# three steps against its formulas worked out with NumPy, each parameter with its own
# step count, a tiny gradient (where eps goes matters), with and without weight decay
with checking("6.3"):
    def adam_by_hand(start, grads, lrs, weight_decay, beta1=0.9, beta2=0.999, eps=1e-8):
        p, m, v, t = start.copy(), 0.0, 0.0, 0
        for grad, lr in zip(grads, lrs):
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
    lrs = [0.01, 0.01, 0.004]  # a schedule: the learning rate changes before the third step


    def kept(values):  # each array as it is now (anything else as it is, for same to judge)
        return [v.copy() if isinstance(v, np.ndarray) else v for v in values]


    for weight_decay in (0.0, 0.1):
        params = [nn.Parameter(start.copy()) for start in starts]
        adam = optim.Adam(params, lr=0.01, weight_decay=weight_decay)
        ran, raised = [], None  # each step: the parameters before it, the arrays they held (as they are after it), after it
        for step in range(3):
            adam.lr = lrs[step]
            for p, steps in zip(params, grads):
                p.grad = steps[step]
            before, held = kept(p.data for p in params), [p.data for p in params]
            try:
                adam.step()
            except (ZeroDivisionError, ValueError) as error:  # your error: named below if a known mistake raises it here
                raised = (step, error)
                break
            ran.append((before, kept(held), kept(p.data for p in params)))
        cases = [{"starts": starts, "grads": [[steps[s] for steps in grads] for s in range(step + 1)],
                  "lrs": lrs[:step + 1], "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": weight_decay}
                 for step in range(3)]
        for step, (_, _, after) in enumerate(ran):  # every step is evidence before the first is judged
            for i, (start, steps) in enumerate(zip(starts, grads)):
                seen(after[i], adam_by_hand(start, steps[:step + 1], lrs, weight_decay), ("adam", {**cases[step], "param": i}),
                     rtol=1e-9, atol=1e-12)
        for step, (before, held, after) in enumerate(ran):
            case = cases[step]
            if step == 0 and weight_decay == 0.0:
                same(after[0], np.array([1.0 - 0.01, -2.0 + 0.01]), "optim.Adam(lr=0.01).step()",
                     "parameter 0 after the first step", atol=1e-6, moved_from=np.array([1.0, -2.0]),
                     known=("adam", {**case, "param": 0}),
                     hint="After one step Adam moves each weight by about lr (m_hat / sqrt(v_hat) is ±1 when t = 1).")
            for i, (start, steps) in enumerate(zip(starts, grads)):
                same(after[i], adam_by_hand(start, steps[:step + 1], lrs, weight_decay),
                     f"optim.Adam(lr=0.01, weight_decay={weight_decay}).step()",
                     f"parameter {i} after step {step + 1} (lr {lrs[step]}; a None gradient: no step)", rtol=1e-9, atol=1e-12,
                     moved_from=before[i], known=("adam", {**case, "param": i}),
                     hint="Per parameter: t counts from 1; m, v the raw running averages in the state; "
                          "p -= lr / (1 - beta1 ** t) * m / (sqrt(v) / sqrt(1 - beta2 ** t) + eps).")
                in_place(held[i], after[i], f"optim.Adam(lr=0.01, weight_decay={weight_decay}).step()",
                         f"parameter {i} after step {step + 1}")
        if raised:
            step, error = raised
            same(error, adam_by_hand(starts[0], grads[0][:step + 1], lrs, weight_decay),
                 f"optim.Adam(lr=0.01, weight_decay={weight_decay}).step()", f"parameter 0 at step {step + 1}",
                 known=("adam", {**cases[step], "param": 0}), hint="Per parameter: t counts from 1; "
                 "p -= lr / (1 - beta1 ** t) * m / (sqrt(v) / sqrt(1 - beta2 ** t) + eps).")
        counted = [s.get("step") if isinstance(s, dict) else None for s in list(adam.state)[:2]]
        if counted != [3, 2]:  # parameter 1 sat out step 2
            fail(f"optim.Adam(lr=0.01, weight_decay={weight_decay}).state", "3 right steps, parameters 0 and 1",
                 f"held state['step'] {counted}; expected [3, 2], the number of steps each parameter took",
                 hint="Count the step before using it: state['step'] += 1 (from 0), then t = state['step'], so that "
                      "t = 1 at the first step and state['step'] is the number of steps taken.")
    print("Task 6.3 passes the visible checks")

# %% [markdown]
# ## Your task 6.4: `train_epoch` in `minitorch/training.py`
#
# One epoch visits every example once, in random mini-batches. For each batch:
# `zero_grad` (gradients accumulate, remember), forward, loss, `backward`, `step`. Return
# the mean loss over the epoch, each batch weighted by its size. `fit` (given) calls it
# once per epoch and records the validation loss too.
#
# Stuck? `mt.hint("6.4")` gives a hint, one step per call (the idea, where to look, then nearly the line).

# %% nbgrader={"grade": false, "grade_id": "task6_4_visible", "locked": true, "schema_version": 3, "solution": false, "task": false} tags=["raises-exception"]
# Check Task 6.4: the epoch's loss weights each batch by its size; each batch is one
# gradient step on that batch only (worked out with NumPy); five epochs fit a line
with checking("6.4"):
    calls, rows, outputs, loss_args, at = [], [], [], [], []  # a model, an optimizer and a loss that note each call


    class Recorded(nn.Linear):
        def forward(self, x):
            calls.append("forward")
            rows.append(len(x.data) if isinstance(x, mt.Tensor) else len(x))  # how many examples this batch has
            at.append(called_from())  # the line of yours that called the model
            outputs.append(super().forward(x))
            return outputs[-1]

        def zero_grad(self):
            calls.append("zero_grad")
            super().zero_grad()


    class RecordedSGD(optim.SGD):
        def zero_grad(self):
            calls.append("zero_grad")
            super().zero_grad()

        def step(self):
            calls.append("step")
            super().step()


    class NotedBackward(mt.Function):  # the identity on the loss: notes when backward reaches it
        @staticmethod
        def forward(ctx, loss):
            return loss.copy()

        @staticmethod
        def backward(ctx, grad):
            calls.append("backward")
            return grad


    def recorded_mse(out, target):
        calls.append("loss")  # which argument is the model's output: the first (right), the second, or neither
        loss_args.append("out first" if outputs and out is outputs[-1] else "out second" if outputs and target is outputs[-1]
                         else "other")
        return NotedBackward.apply(mt.mse_loss(out, target))


    mt.manual_seed(0)
    model = Recorded(1, 1)
    x, y = np.linspace(-1, 1, 10)[:, None], 3 * np.linspace(-1, 1, 10)[:, None]
    try:
        training.train_epoch(model, recorded_mse, RecordedSGD(model.parameters(), lr=0.1), x, y, 4, np.random.default_rng(0))
    except Exception as error:  # a model that saw every row gives an output the batch's targets do not match
        if 10 not in rows:
            raise
        fail("training.train_epoch(model, loss_fn, optimizer, x, y, 4, rng)", "10 examples in batches of 4, 4 and 2",
             f"gave the model inputs of {rows} examples, then raised {type(error).__name__}: {error}. The model saw "
             "every row of x, not the batch's rows, x[batch]" + (f" (the model is called at {at[rows.index(10)]})"
                                                               if at[rows.index(10)] else ""),
             hint="Each batch: the model gets x[batch] only, and the loss compares with y[batch].")
    letters = "".join({"zero_grad": "z", "forward": "f", "loss": "l", "backward": "b", "step": "s"}[c] for c in calls)
    # right: zero_grad anywhere but between a backward and its step, and once or more between a step and the next backward
    right = re.fullmatch(r"z*fz*lz*bs(?:(?:z+fz*lz*|fz+lz*|flz+)bs){2}z*", letters)
    same(tuple(calls), tuple(calls) if right else ("zero_grad", "forward", "loss", "backward", "step") * 3,
         "the calls of training.train_epoch(model, loss_fn, optimizer, x, y, 4, rng)", "10 examples in batches of 4, 4 and 2",
         hint="Each batch: zero_grad, forward, loss, backward, step.",
         known=("train_epoch calls", {"examples": 10, "batch_size": 4}))
    if "out second" in loss_args:
        fail("the calls of training.train_epoch(model, loss_fn, optimizer, x, y, 4, rng)", "10 examples in batches of 4, 4 "
             "and 2", "called the loss with the model's output second: loss_fn(y[batch], out)", hint="The loss takes "
             "the model's output first, then the targets: loss_fn(out, y[batch]). mse_loss does not mind the order, "
             "but cross_entropy(logits, targets) does.")
    if rows and sorted(rows) != [2, 4, 4]:
        whole = all(n == 10 for n in rows)
        fail("the calls of training.train_epoch(model, loss_fn, optimizer, x, y, 4, rng)", "10 examples in batches of 4, 4 "
             "and 2", f"gave the model inputs of {rows} examples; expected 4, 4 and 2 (in any order)"
             + (": every batch's forward got the whole data set, x, not x[batch]" if whole else "")
             + (f" (the model is called at {at[0]})" if at[0] else ""),
             hint="Each batch: the model gets x[batch] only, and the loss compares with y[batch].")
    mt.manual_seed(0)
    model = nn.Linear(1, 1)
    w, b = model.weight.data[0, 0], model.bias.data[0]
    frozen = optim.SGD(model.parameters(), lr=0.0)
    loss = training.train_epoch(model, mt.mse_loss, frozen, x, y, 4, np.random.default_rng(0))  # batches of 4, 4, 2
    batches = list(training.minibatches(10, 4, np.random.default_rng(0)))  # the batches train_epoch drew
    losses = [float(np.mean((x[batch] * w + b - y[batch]) ** 2)) for batch in batches]
    same(loss, float(np.mean((x * w + b - y) ** 2)), "training.train_epoch(model, mt.mse_loss, SGD(lr=0), x, y, 4, rng)",
         "10 examples in batches of 4, 4 and 2, nothing learned (lr 0)",
         known=("train_epoch mean", {"losses": losses, "sizes": [len(batch) for batch in batches], "batch_size": 4}),
         hint="Return a float: add loss.item() * len(batch), the batch's loss weighted by its size, then divide by len(x).")
    sgd = optim.SGD(model.parameters(), lr=0.1)
    for batch in training.minibatches(10, 4, np.random.default_rng(1)):  # the batches train_epoch draws below
        residual = x[batch, 0] * w + b - y[batch, 0]
        w, b = w - 0.1 * np.mean(2 * residual * x[batch, 0]), b - 0.1 * np.mean(2 * residual)
    training.train_epoch(model, mt.mse_loss, sgd, x, y, 4, np.random.default_rng(1))
    same(np.array([model.weight.data[0, 0], model.bias.data[0]]), np.array([w, b]),
         "[weight, bias] after training.train_epoch(model, mt.mse_loss, SGD(lr=0.1), x, y, 4, rng)", "one epoch of 3 batches",
         hint="Each batch: zero_grad, forward, loss, backward, step.")
    mt.manual_seed(0)
    model = nn.Linear(1, 1)
    x, y = np.linspace(-1, 1, 32)[:, None], 3 * np.linspace(-1, 1, 32)[:, None]
    losses = [training.train_epoch(model, mt.mse_loss, optim.SGD(model.parameters(), lr=0.3), x, y, 8,
                                   np.random.default_rng(0)) for _ in range(5)]
    if not (losses[-1] < 0.1 * losses[0] and abs(model.weight.data[0, 0] - 3) < 0.3):
        fail("5 epochs of train_epoch", "fitting y = 3x", f"gave the losses {np.round(losses, 4)} and the weight "
             f"{model.weight.data[0, 0]:.3f}; expected the loss to fall tenfold and the weight to near 3")
    print("Task 6.4 passes the visible checks; losses:", np.round(losses, 4))

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
