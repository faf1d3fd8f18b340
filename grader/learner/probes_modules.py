"""Probes of the learner's modules, optimizers and training loop (stage 6 on).

Like ``probes.py``: run inside the learner's process, return observations, decide nothing.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

from grader.learner.own_lines import first_other_dtype, own_caller
from grader.learner.probes import given, plain, probe, swaps_of


@probe
def parameters(mt: Any) -> list:
    """Which parameters ``Module.parameters()`` finds in a nest of modules, lists and dicts."""
    Module, Parameter = mt.nn.Module, mt.nn.Parameter

    class Inner(Module):  # type: ignore[misc, valid-type]
        def __init__(self):
            super().__init__()
            self.w = Parameter(np.ones(2))

    class Middle(Module):  # type: ignore[misc, valid-type]
        def __init__(self):
            super().__init__()
            self.core = Inner()  # two levels down from Outer

    class Outer(Module):  # type: ignore[misc, valid-type]
        def __init__(self):
            super().__init__()
            self.a = Parameter(np.ones(1))
            self.inner = Inner()
            self.blocks: list[Any] = [Inner(), {"deep": Inner()}]
            self.middle = Middle()
            self.shared = self.inner
            self.plain = mt.Tensor(np.ones(3), requires_grad=True)

    model = Outer()
    names = {id(model.a): "a", id(model.inner.w): "inner.w", id(model.blocks[0].w): "blocks[0].w",
             id(model.blocks[1]["deep"].w): "blocks[1]['deep'].w", id(model.middle.core.w): "middle.core.w",
             id(model.plain): "plain (a Tensor)"}
    return [names.get(id(p), type(p).__name__) for p in model.parameters()]


def _data(t: Any) -> Any:
    return plain(None if t is None else np.asarray(getattr(t, "data", t)))


@probe
def linear(mt, in_features: int, out_features: int, bias: bool, x: np.ndarray | None,
           dtype: str | None = None) -> dict:
    """A Linear layer's parameters and, unless ``x`` is None, its output for ``x``; with
    ``dtype``, a layer made in that dtype."""
    mt.manual_seed(0) if hasattr(mt, "manual_seed") else None
    options = {} if dtype is None else {"dtype": np.dtype(dtype)}
    layer = mt.nn.Linear(in_features, out_features, bias=bias, **options)
    out = None if x is None else layer(mt.Tensor(x))
    made = []  # with dtype: where the learner's __init__ makes a parameter of another dtype
    for name in ("weight", "bias") if dtype is not None else ():
        if dtype is not None and str(getattr(getattr(layer, name, None), "dtype", dtype)) != dtype:
            init = mt.nn.Linear.__init__
            found = first_other_dtype(lambda: mt.nn.Linear(in_features, out_features, bias=bias, **options), [init],
                                      dtype, f"self.{name}")
            if found is not None:
                root = os.path.dirname(os.path.realpath(mt.__file__))
                path = os.path.relpath(os.path.realpath(init.__code__.co_filename), root).replace(os.sep, "/")
                made = [f"minitorch/{path}", found[1], init.__qualname__, found[2], found[3]]
            break
    return {"weight": _data(layer.weight), "bias": _data(getattr(layer, "bias", None)),
            "parameters": isinstance(layer.weight, mt.nn.Parameter)
            and (layer.bias is None or isinstance(layer.bias, mt.nn.Parameter)),
            "count": len(list(layer.parameters())), "out": _data(out), "made": made}


@probe
def linear_seeded(mt, seeds: list) -> list:
    """For each seed: ``manual_seed(seed)``, then a new Linear(5, 3)'s weight and bias."""
    made = []
    for seed in seeds:
        mt.manual_seed(seed)
        layer = mt.nn.Linear(5, 3)
        made.append([_data(layer.weight), _data(getattr(layer, "bias", None))])
    return made


@probe
def mlp(mt, sizes: list, activation: str, x: np.ndarray, weights: list) -> dict:
    """The learner's MLP built from a given Linear (so that a Linear mistake is charged to the
    Linear part alone) with the ``weights`` given, layer by layer: its wiring is checked."""
    with given(mt, swaps_of("mlp")):
        model = mt.nn.MLP(sizes, activation=activation)
        layers = list(getattr(model, "layers", []))
        for layer, (weight, bias) in zip(layers, weights):
            layer.weight.data, layer.bias.data = np.array(weight), np.array(bias)
        out = model(mt.Tensor(x))
    sizes_held = [[getattr(layer, "in_features", None), getattr(layer, "out_features", None)] for layer in layers]
    return {"layers": len(layers), "count": len(list(model.parameters())), "out": _data(out), "sizes": sizes_held}


@probe
def optimizer(mt, name: str, starts: list, steps: list, kwargs: dict, lrs: list | None = None) -> dict:
    """Several parameters, each with its own gradients (None: no gradient that step), and
    one that never gets a gradient; ``lrs`` sets ``opt.lr`` before each step (a schedule).
    The parameters after every step, and (``held``) the arrays each held before that step,
    as they are after it: what another reference to a parameter's data sees."""
    params = [mt.nn.Parameter(np.array(s)) for s in starts]
    idle = mt.nn.Parameter(np.ones(2))
    opt = getattr(mt.optim, name)([*params, idle], **kwargs)
    history: list = []
    held: list = []
    given: list = []  # each p.grad handed over: (step, parameter, the array, its value)
    changed: list = []  # each gradient a step changed: [given at, parameter, by step]
    for t, grads in enumerate(steps):
        if lrs:
            opt.lr = lrs[t]
        opt.zero_grad()
        for k, (p, g) in enumerate(zip(params, grads)):
            p.grad = None if g is None else np.array(g)
            given += [] if g is None else [(t, k, p.grad, np.array(g))]
        before = [getattr(p, "data", None) for p in params]
        opt.step()
        history.append([np.array(_data(p), copy=True) if _data(p) is not None else None for p in params])
        held.append([plain(np.array(b, copy=True)) if b is not None else None for b in before])
        changed += [[at, k, t] for at, k, grad, value in given if [at, k] not in [c[:2] for c in changed]
                    and not np.array_equal(grad, value)]
    kept = getattr(opt, "state", None)  # each parameter's state's keys, where the state is a list of dicts
    keys = [sorted(str(k)[:40] for k in s) if isinstance(s, dict) else None for s in kept[:len(params)]] \
        if isinstance(kept, list) else None
    counts = [s.get("step") if isinstance(s, dict) else None for s in kept[:len(params)]] if isinstance(kept, list) else []
    counts = [int(n) if isinstance(n, (int, np.integer)) or isinstance(n, float) and n.is_integer() else None for n in counts]
    return {"history": history, "params": history[-1] if history else [], "idle": _data(idle), "held": held,
            "grads_changed": changed, "state_keys": keys, "state_steps": counts}


@probe
def optimizer_decay_folded(mt, name: str, starts: list, steps: list, kwargs: dict, lrs: list | None = None) -> dict:
    """The same schedule twice: with the weight decay λ of ``kwargs``, and without it on
    gradients g + λ·p (p as it is before each step), what L2 weight decay means. Equal
    results say the decay term is right, whatever the rest of the update does."""
    decay = kwargs["weight_decay"]
    runs = {}
    for run, options in (("decay", kwargs), ("folded", {**kwargs, "weight_decay": 0.0})):
        params = [mt.nn.Parameter(np.array(s)) for s in starts]
        opt = getattr(mt.optim, name)(params, **options)
        for t, grads in enumerate(steps):
            if lrs:
                opt.lr = lrs[t]
            opt.zero_grad()
            for p, g in zip(params, grads):
                fold = decay * np.array(_data(p)) if run == "folded" else 0.0
                p.grad = None if g is None else np.array(g) + fold
            opt.step()
        runs[run] = [_data(p) for p in params]
    return runs


class _Recorder:
    """A model, a loss and an optimizer that record the calls they get."""

    def __init__(self, mt: Any) -> None:
        self.calls: list[str] = []
        self.batches: list[int] = []
        self.called_at: list = []  # where the learner's code called the model first
        self.losses: list[float] = []
        self.loss_args: list[str] = []  # each loss call: "out first" (right), "out second", or "other"
        self.output: Any = None
        recorder = self

        class Model:
            def __call__(self, x):
                recorder.calls.append("forward")
                recorder.batches.append(len(np.asarray(getattr(x, "data", x))))
                if not recorder.called_at:  # the learner's line that called the model
                    found = own_caller(sys._getframe(1), os.path.dirname(os.path.realpath(mt.__file__)))
                    recorder.called_at = [f"minitorch/{found[0]}", *found[1:]] if found else []
                recorder.output = x
                return x

            forward = __call__

            def zero_grad(self):
                recorder.calls.append("zero_grad")

            def parameters(self):
                return []

        class Loss:
            def __init__(self, value):
                self.data = np.float64(value)

            def backward(self, *args):
                recorder.calls.append("backward")

            def item(self):
                return float(self.data)

            def __float__(self):
                return float(self.data)

            # Arithmetic keeps a loss a loss, as a Tensor's does: a total built from losses
            # instead of loss.item() comes back as one, and is named for what it is.
            def __add__(self, other):
                return Loss(float(self.data) + float(other))

            __radd__ = __add__

            def __mul__(self, other):
                return Loss(float(self.data) * float(other))

            __rmul__ = __mul__

            def __truediv__(self, other):
                return Loss(float(self.data) / float(other))

        self.model, self.loss_class = Model(), Loss

    def loss(self, out, y):
        self.calls.append("loss")
        made = self.output is not None
        self.loss_args.append("out first" if made and out is self.output else "out second" if made and y is self.output
                              else "other")
        self.losses.append(float(np.mean(np.asarray(getattr(y, "data", y), dtype=np.float64))))
        return self.loss_class(self.losses[-1])

    def zero_grad(self):
        self.calls.append("zero_grad")

    def step(self):
        self.calls.append("step")


@probe
def train_epoch(mt, x: np.ndarray, y: np.ndarray, batch_size: int, seed: int) -> dict:
    rec = _Recorder(mt)
    mean = mt.training.train_epoch(rec.model, rec.loss, rec, x, y, batch_size, np.random.default_rng(seed))
    returned = "loss" if isinstance(mean, rec.loss_class) else type(mean).__name__
    try:
        mean = float(np.asarray(getattr(mean, "data", mean)))
    except (TypeError, ValueError):
        mean = None
    return {"calls": rec.calls, "batches": rec.batches, "losses": rec.losses, "mean": mean, "returned": returned,
            "loss_args": rec.loss_args, "called_at": rec.called_at}
