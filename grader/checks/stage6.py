"""Stage 6: modules, optimizers and the training loop. No backward rule is called here:
parameters get their gradients set directly, and the training loop runs with stand-ins
that record what it calls (``probes_modules.py``)."""

from __future__ import annotations

import numpy as np

from grader.checks import part
from grader.checks.common import CheckFailure, call_learner, explain, order_problem


@part("6.1", "parameters")
def parameters_are_found_everywhere(w, rng):
    found = call_learner(w, "parameters", "Module.parameters() on nested modules")
    expected = ["a", "inner.w", "blocks[0].w", "blocks[1]['deep'].w"]
    if sorted(found) != sorted(expected):
        raise CheckFailure(f"Module.parameters() found {found}, expected {expected} in any order: look inside "
                           "sub-modules and lists, tuples and dicts of them; count a shared one once; a plain Tensor "
                           "is not a Parameter", "parameters missed")
    if found != expected:
        raise CheckFailure(f"Module.parameters() found the right parameters in the order {found}, expected {expected}: "
                           "the order the attributes were set (an optimizer's state and saved weights are matched to "
                           "parameters by that order)", "order")


@part("6.1", "Linear")
def linear(w, rng):
    for bias in (True, False):
        for x_shape in [(4, 5), (2, 3, 5)]:  # a batch, and a batch of sequences
            x = rng.standard_normal(x_shape)
            seen = call_learner(w, "linear", f"Linear(5, 3, bias={bias})", in_features=5, out_features=3, bias=bias, x=None)
            weight = seen["weight"]
            if not isinstance(weight, np.ndarray) or weight.shape != (3, 5):
                raise CheckFailure(f"Linear(5, 3) needs a weight of shape (3, 5) (out_features, in_features), got "
                                   f"{getattr(weight, 'shape', weight)}", "wrong shape")
            if bias and (not isinstance(seen["bias"], np.ndarray) or seen["bias"].shape != (3,)):
                raise CheckFailure("Linear(5, 3) needs a bias of shape (3,)", "wrong shape")
            if not bias and seen["bias"] is not None:
                raise CheckFailure("Linear(..., bias=False) must have bias None", "bias")
            if not seen["parameters"] or seen["count"] != (2 if bias else 1):
                raise CheckFailure(f"Linear's weight{' and bias' if bias else ''} must be Parameters, found by "
                                   f"parameters() ({seen['count']} found)", "parameters missed")
            seen = call_learner(w, "linear", f"Linear(5, 3, bias={bias}) on an input of shape {x_shape}", in_features=5,
                         out_features=3, bias=bias, x=x)
            weight = seen["weight"]
            expected = x @ weight.T + (seen["bias"] if bias else 0)
            explain(f"Linear(5, 3, bias={bias}).forward(x) for x of shape {x_shape}", seen["out"], expected)
    _linear_initialisation(w)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    seen = call_learner(w, "linear", "Linear(5, 3, dtype=np.float32) on a float32 input", in_features=5,
                        out_features=3, bias=True, x=x, dtype="float32")
    kinds = {name: getattr(seen[name], "dtype", None) for name in ("weight", "bias", "out")}
    if any(kind != np.float32 for kind in kinds.values()):
        raise CheckFailure(f"Linear(5, 3, dtype=np.float32) gave weight, bias and output of dtypes "
                           f"{', '.join(str(k) for k in kinds.values())}: make the Parameters in the dtype asked for",
                           "dtype")


def _linear_initialisation(w):
    """Uniform in [-b, b] for b = 1/sqrt(in_features): with 2,048 weights, their largest
    size, mean and spread (b/sqrt(3) for a uniform) are close to those of that range."""
    seen = call_learner(w, "linear", "Linear(64, 32), just made", in_features=64, out_features=32, bias=True, x=None)
    weight, bias, bound = seen["weight"], seen["bias"], 1 / np.sqrt(64)
    if not isinstance(weight, np.ndarray) or weight.shape != (32, 64) or not isinstance(bias, np.ndarray):
        return  # the shapes are judged above
    if (np.abs(weight).max() > bound * (1 + 1e-6) or np.abs(bias).max() > bound * (1 + 1e-6)
            or abs(weight.mean()) > bound / 10 or not 0.85 < weight.std() / (bound / np.sqrt(3)) < 1.15):
        raise CheckFailure(f"Linear(64, 32)'s weights start between {weight.min():.4f} and {weight.max():.4f} with "
                           f"mean {weight.mean():.4f} and spread (std) {weight.std():.4f}; uniform in "
                           f"[-1/sqrt(in_features), 1/sqrt(in_features)] = [-{bound:.4f}, {bound:.4f}] gives mean 0 "
                           f"and spread {bound / np.sqrt(3):.4f} (weight and bias alike)", "initialisation")


@part("6.1", "MLP")
def mlp(w, rng):
    sizes = [2, 6, 4, 3]
    for activation, fn in (("tanh", np.tanh), ("relu", lambda a: np.maximum(a, 0))):
        x = rng.standard_normal((5, 2))
        layers = [(rng.standard_normal((n, m)), rng.standard_normal(n)) for m, n in zip(sizes, sizes[1:])]
        seen = call_learner(w, "mlp", f"MLP({sizes}, activation={activation!r}) (with a given Linear)", sizes=sizes,
                            activation=activation, x=x, weights=layers)
        if seen["count"] != 6 or seen["layers"] != 3:
            raise CheckFailure(f"MLP({sizes}) should keep 3 Linear layers in self.layers, and have 6 parameters; it "
                               f"has {seen['layers']} layers and {seen['count']} parameters", "parameters missed")
        h = x
        for k, (weight, bias) in enumerate(layers):
            h = h @ weight.T + bias
            if k < 2:
                h = fn(h)
        explain(f"MLP([2, 6, 4, 3], activation={activation!r}).forward(x) (the activation between layers, none after "
                "the last)", seen["out"], h)


MISTAKES = {  # a common mistake, and the reference's option that makes it
    "none_as_zero": "a parameter whose grad is None was still updated (its state moved on): skip it at that step",
    "shared_step": "one step count was shared by all the parameters: each parameter keeps its own step count t in "
                   "its state",
}


def _optimizer(w, name, starts, steps, kwargs, reference, label, mistakes=("none_as_zero",)):
    """``reference(starts, steps, **options)`` gives the expected parameters; with one of
    ``mistakes`` as option, what that mistake gives: it is named only when the result matches."""
    shapes = " and ".join(str(np.shape(s)) for s in starts)
    doing = (f"{name}({label}) stepping {len(starts)} parameters of shapes {shapes} with different gradients (each "
             "keeps its own state), the second without a gradient at step 2, and a third that never gets one")
    seen = call_learner(w, "optimizer", doing, name=name, starts=starts, steps=steps, kwargs=kwargs)
    if not np.array_equal(seen["idle"], np.ones(2)):
        raise CheckFailure(f"{name}.step changed a parameter whose grad is None ({doing}): skip it",
                           "updates without a gradient")
    expected = reference(starts, steps)
    for k, (got, want) in enumerate(zip(seen["params"], expected)):
        try:
            explain(f"{doing}: parameter {k} after {len(steps)} steps", got, want, rtol=1e-9, atol=1e-12)
        except CheckFailure as failure:
            for option in mistakes:
                other, hint = reference(starts, steps, **{option: True}), MISTAKES[option]
                if all(isinstance(g, np.ndarray) and g.shape == o.shape and np.allclose(g, o, rtol=1e-9, atol=1e-12)
                       for g, o in zip(seen["params"], other)) and not np.allclose(other[k], want, rtol=1e-9):
                    raise CheckFailure(f"{failure} It matches this mistake: {hint}.", option) from None
            raise


def _schedule(rng, count):
    """Two parameters with different gradients; the second gets none at step 2."""
    starts = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    steps = [[rng.standard_normal((3, 2)), None if t == 1 else rng.standard_normal(4)] for t in range(count)]
    return starts, steps


def _gradients(params, steps, none_as_zero):
    """(parameter index, gradient) for each parameter of each step, in order: a None
    gradient is skipped, or taken as zeros to model an optimizer that does not skip it."""
    for grads in steps:
        for i, g in enumerate(grads):
            if g is None and none_as_zero:
                g = np.zeros_like(params[i])
            if g is not None:
                yield i, g


def sgd_reference(starts, steps, lr, momentum, decay, none_as_zero=False):
    params, buffers = [s.copy() for s in starts], [None] * len(starts)
    for i, g in _gradients(params, steps, none_as_zero):
        g = g + decay * params[i]
        if momentum:
            buffers[i] = g if buffers[i] is None else momentum * buffers[i] + g
            g = buffers[i]
        params[i] = params[i] - lr * g
    return params


def _decay_apart(w, name, starts, steps, kwargs, reference, failure):
    """A weight-decay part that failed: judge the decay term on its own. When the same
    update without weight decay is wrong too (a slip another part charges) and the decay
    term is right (the update with decay equals the update without it on g + λ·p), the
    part passes: one slip is charged once. Otherwise the message says which is wrong."""
    plain = {**kwargs, "weight_decay": 0.0}
    seen = call_learner(w, "optimizer", f"{name} without weight decay", name=name, starts=starts, steps=steps,
                        kwargs=plain)
    expected = reference(starts, steps, 0.0)
    plain_right = np.array_equal(seen["idle"], np.ones(2)) and all(
        isinstance(g, np.ndarray) and g.shape == e.shape and np.allclose(g, e, rtol=1e-9, atol=1e-12)
        for g, e in zip(seen["params"], expected))
    if plain_right:
        raise CheckFailure(f"{failure} The same steps without weight decay are right, so the decay term is wrong: "
                           f"weight_decay={kwargs['weight_decay']} adds weight_decay * p to each gradient before the "
                           "update (L2 decay, as torch.optim does).", failure.pitfall) from None
    runs = call_learner(w, "optimizer_decay_folded", f"{name} with weight decay, and without it on g + weight_decay * p",
                        name=name, starts=starts, steps=steps, kwargs=kwargs)
    moved = any(isinstance(p, np.ndarray) and p.shape == np.shape(s) and not np.allclose(p, s)
                for p, s in zip(runs["decay"], starts))
    folded = all(isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                 and np.allclose(a, b, rtol=1e-9, atol=1e-12) for a, b in zip(runs["decay"], runs["folded"]))
    if not (moved and folded):
        raise CheckFailure(f"{failure} The update without weight decay is wrong too (another part says how), and the "
                           "decay term is not right either: weight_decay adds weight_decay * p to each gradient "
                           "before the update.", failure.pitfall) from None


def _with_decay_apart(name, check, starts_steps, kwargs, reference):
    """``check`` for a weight-decay part, with ``_decay_apart`` judging a failure."""
    def judge(w, rng):
        starts, steps = starts_steps(rng)
        try:
            check(w, starts, steps)
        except CheckFailure as failure:
            if not kwargs["weight_decay"]:
                raise
            _decay_apart(w, name, starts, steps, kwargs, reference, failure)
    return judge


def _sgd_part(momentum, decay):
    kwargs = {"lr": 0.1, "momentum": momentum, "weight_decay": decay}

    def reference(s, g, wd, **options):
        return sgd_reference(s, g, 0.1, momentum, wd, **options)

    def check(w, starts, steps):
        _optimizer(w, "SGD", starts, steps, kwargs, lambda s, g, **options: reference(s, g, decay, **options),
                   f"lr=0.1, momentum={momentum}, weight_decay={decay}")
    return _with_decay_apart("SGD", check, lambda rng: _schedule(rng, 5), kwargs, reference)


part("6.2", "plain")(_sgd_part(0.0, 0.0))
part("6.2", "momentum")(_sgd_part(0.9, 0.0))
part("6.2", "weight decay")(_sgd_part(0.8, 0.05))


def adam_reference(starts, steps, lr, betas, decay, eps=1e-8, none_as_zero=False, shared_step=False):
    params = [s.copy() for s in starts]
    state = [{"t": 0, "m": 0.0, "v": 0.0} for _ in starts]
    shared = 0
    for i, g in _gradients(params, steps, none_as_zero):
        s = state[i]
        shared += 1
        s["t"] = shared if shared_step else s["t"] + 1
        g = g + decay * params[i]
        s["m"] = betas[0] * s["m"] + (1 - betas[0]) * g
        s["v"] = betas[1] * s["v"] + (1 - betas[1]) * g * g
        m_hat, v_hat = s["m"] / (1 - betas[0] ** s["t"]), s["v"] / (1 - betas[1] ** s["t"])
        params[i] = params[i] - lr * m_hat / (np.sqrt(v_hat) + eps)
    return params


def _adam_part(betas, decay, eps):
    kwargs = {"lr": 0.01, "betas": betas, "weight_decay": decay, "eps": eps}

    def schedule(rng):
        starts, steps = _schedule(rng, 6)
        return starts, [[g * 1e-3 if g is not None else None for g in grads] for grads in steps]  # eps matters here

    def reference(s, g, wd, **options):
        return adam_reference(s, g, 0.01, betas, wd, eps, **options)

    def check(w, starts, steps):
        _optimizer(w, "Adam", starts, steps, kwargs, lambda s, g, **options: reference(s, g, decay, **options),
                   f"lr=0.01, betas={betas}, weight_decay={decay}, eps={eps}", ("none_as_zero", "shared_step"))
    return _with_decay_apart("Adam", check, schedule, kwargs, reference)


part("6.3", "bias correction")(_adam_part((0.9, 0.999), 0.0, 1e-3))
part("6.3", "weight decay")(_adam_part((0.8, 0.95), 0.1, 1e-8))


def _train_epoch(w, rng):
    # squares: no split into batches of 4, 4 and 2 gives the plain mean of the batch means the weighted one
    x, y = np.zeros((10, 2)), np.arange(10, dtype=np.float64) ** 2
    return call_learner(w, "train_epoch", "train_epoch on 10 examples with batch_size 4 (stand-in model, loss and "
                 "optimizer)", x=x, y=y, batch_size=4, seed=0)


@part("6.4", "order of calls")
def training_loop_order(w, rng):
    calls = _train_epoch(w, rng)["calls"]
    steps = calls.count("step")
    if steps != 3:
        raise CheckFailure(f"train_epoch made {steps} optimizer steps for 10 examples with batch_size 4, expected 3 "
                           "(one per mini-batch)", "wrong number of steps")
    problem = order_problem(calls, ["forward", "loss", "backward", "step"], 3, "batch")
    if problem:
        raise CheckFailure(f"train_epoch made the calls {calls[:12]}{'...' if len(calls) > 12 else ''}: {problem}. "
                           "Each batch: zero_grad (of the optimizer or the model), forward, loss, backward, step",
                           "zero_grad or order of calls")


@part("6.4", "batches and the mean")
def training_loop_batches(w, rng):
    seen = _train_epoch(w, rng)
    if sorted(seen["batches"]) != [2, 4, 4]:
        raise CheckFailure(f"train_epoch used batches of sizes {seen['batches']} for 10 examples and batch_size 4",
                           "wrong batches")
    if seen["mean"] is None or abs(seen["mean"] - 28.5) > 1e-9:
        raise CheckFailure(f"train_epoch returned {seen['mean']}, expected 28.5: the mean of the batch losses weighted "
                           "by batch size (the last batch is smaller)", "wrong mean")
