"""Hidden checks of stage 6: modules, optimizers and the training loop.

These call no backward rule at all: parameters get their gradients set by hand, and the
training loop is checked with stand-ins that record what it calls.
"""

from __future__ import annotations

import numpy as np

from .checks import CheckFailure, explain
from .registry import task


@task("6.1")
def parameters_are_found_everywhere(mt, rng):
    nn = mt.nn

    class Inner(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(np.ones(2))

    class Outer(nn.Module):
        def __init__(self):
            self.a = nn.Parameter(np.ones(1))
            self.inner = Inner()
            self.blocks = [Inner(), {"deep": Inner()}]
            self.shared = self.inner
            self.plain = mt.Tensor(np.ones(3), requires_grad=True)

    model = Outer()
    expected = [model.a, model.inner.w, model.blocks[0].w, model.blocks[1]["deep"].w]
    got = list(model.parameters())
    if {id(p) for p in got} != {id(p) for p in expected}:
        raise CheckFailure(f"Module.parameters() found {len(got)} parameter(s), expected {len(expected)}: look "
                           "inside sub-modules and lists, tuples and dicts of them; count a shared one once; "
                           "a plain Tensor is not a Parameter")
    if len(got) != len(expected):
        raise CheckFailure("Module.parameters() lists a parameter more than once")


@task("6.1")
def linear_and_mlp(mt, rng):
    nn = mt.nn
    layer = nn.Linear(5, 3)
    if layer.weight.shape != (3, 5) or layer.bias is None or layer.bias.shape != (3,):
        raise CheckFailure("Linear(5, 3) needs weight of shape (3, 5) (out_features, in_features) and bias (3,)")
    bound = 1 / np.sqrt(5)
    w = layer.weight.data
    if np.abs(w).max() > bound + 1e-12 or w.std() < bound / 4:
        raise CheckFailure("Linear's weights should start uniform in [-1/sqrt(in_features), 1/sqrt(in_features)]")
    if not isinstance(layer.weight, nn.Parameter) or not isinstance(layer.bias, nn.Parameter):
        raise CheckFailure("Linear's weight and bias must be Parameters, so that parameters() finds them")
    if nn.Linear(5, 3, bias=False).bias is not None:
        raise CheckFailure("Linear(..., bias=False) must have bias None")
    x = rng.standard_normal((4, 5))
    explain("Linear.forward(x)", np.asarray(layer(mt.Tensor(x)).data), x @ w.T + layer.bias.data)
    model = nn.MLP([2, 6, 3], activation="tanh")
    if len(model.parameters()) != 4:
        raise CheckFailure(f"MLP([2, 6, 3]) should have 4 parameters, has {len(model.parameters())}")
    x = rng.standard_normal((5, 2))
    first, last = model.layers[0], model.layers[-1]
    hidden = np.tanh(x @ first.weight.data.T + first.bias.data)
    explain("MLP([2, 6, 3], activation='tanh').forward(x) (activation between layers, none after the last)",
            np.asarray(model(mt.Tensor(x)).data), hidden @ last.weight.data.T + last.bias.data)


def run_optimizer(mt, cls, steps, start, grads, **kwargs):
    p = mt.nn.Parameter(start.copy())
    idle = mt.nn.Parameter(np.ones(2))
    opt = cls([p, idle], **kwargs)
    for g in grads[:steps]:
        opt.zero_grad()
        p.grad = g.copy()
        opt.step()
    if not np.array_equal(idle.data, np.ones(2)):
        raise CheckFailure(f"{cls.__name__}.step changed a parameter whose grad is None: skip it")
    return p.data


@task("6.2")
def sgd_matches_torch_formula(mt, rng):
    start, grads = rng.standard_normal((3, 2)), [rng.standard_normal((3, 2)) for _ in range(5)]
    for momentum, decay in ((0.0, 0.0), (0.9, 0.0), (0.0, 0.1), (0.8, 0.05)):
        p, buffer = start.copy(), None
        for g in grads:
            g = g + decay * p
            if momentum:
                buffer = g if buffer is None else momentum * buffer + g
                g = buffer
            p = p - 0.1 * g
        explain(f"SGD(lr=0.1, momentum={momentum}, weight_decay={decay}) after 5 steps",
                run_optimizer(mt, mt.optim.SGD, 5, start, grads, lr=0.1, momentum=momentum, weight_decay=decay), p,
                rtol=1e-10)


@task("6.3")
def adam_matches_torch_formula(mt, rng):
    start, grads = rng.standard_normal((3, 2)), [rng.standard_normal((3, 2)) for _ in range(6)]
    for betas, decay in (((0.9, 0.999), 0.0), ((0.8, 0.95), 0.1)):
        p, m, v = start.copy(), 0.0, 0.0
        for t, g in enumerate(grads, start=1):
            g = g + decay * p
            m = betas[0] * m + (1 - betas[0]) * g
            v = betas[1] * v + (1 - betas[1]) * g * g
            p = p - 0.01 * (m / (1 - betas[0] ** t)) / (np.sqrt(v / (1 - betas[1] ** t)) + 1e-8)
        got = run_optimizer(mt, mt.optim.Adam, 6, start, grads, lr=0.01, betas=betas, weight_decay=decay)
        explain(f"Adam(lr=0.01, betas={betas}, weight_decay={decay}) after 6 steps (with bias correction)",
                got, p, rtol=1e-9)


class _Recorder:
    """Stand-ins for a model, a loss and an optimizer that record the calls they get."""

    def __init__(self):
        self.calls, self.batches = [], []

    def model(self, x):
        self.calls.append("forward")
        self.batches.append(len(x.data))
        return x

    def loss(self, out, y):
        self.calls.append("loss")
        recorder, value = self, float(np.mean(y))

        class Loss:
            def backward(self):
                recorder.calls.append("backward")

            def item(self):
                return value
        return Loss()

    def zero_grad(self):
        self.calls.append("zero_grad")

    def step(self):
        self.calls.append("step")


@task("6.4")
def training_loop_calls_in_order(mt, rng):
    rec = _Recorder()
    x, y = np.zeros((10, 2)), np.arange(10, dtype=np.float64)
    mean = mt.training.train_epoch(rec.model, rec.loss, rec, x, y, 4, np.random.default_rng(0))
    expected_calls = ["zero_grad", "forward", "loss", "backward", "step"] * 3
    if rec.calls != expected_calls:
        raise CheckFailure(f"train_epoch made the calls {rec.calls[:10]}...; each batch needs zero_grad, "
                           "forward, loss, backward, step, in that order")
    if sorted(rec.batches) != [2, 4, 4]:
        raise CheckFailure(f"train_epoch used batches of sizes {rec.batches} for 10 examples and batch_size 4")
    if abs(mean - 4.5) > 1e-9:
        raise CheckFailure(f"train_epoch returned {mean}, expected 4.5: the mean of the batch losses "
                           "weighted by batch size")
