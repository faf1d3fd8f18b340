"""Stage 6: modules, optimizers and the training loop. No backward rule is called here:
parameters get their gradients set directly, and the training loop runs with stand-ins
that record what it calls (``probes_modules.py``). The optimizers' parts (Tasks 6.2 and
6.3) are stage 6's too, in ``stage6_optimizers.py``."""

from __future__ import annotations

import re

import numpy as np

from grader.checks import part
from grader.checks.common import CheckFailure, call_learner, order_problem
from grader.checks.naming import judge_value, name_value_mistake

# What a walk of the probe's nest of modules meets (the library's site "parameters"): path, label, kind
WALK = [("a", "a", "Parameter"), ("inner.w", "inner.w", "Parameter"), ("blocks[0].w", "blocks[0].w", "Parameter"),
        ("blocks[1]['deep'].w", "blocks[1]['deep'].w", "Parameter"), ("middle.core.w", "middle.core.w", "Parameter"),
        ("shared.w", "inner.w", "Parameter"),
        ("plain", "plain (a Tensor)", "Tensor")]


@part("6.1", "parameters")
def parameters_are_found_everywhere(w, rng):
    found = call_learner(w, "parameters", "Module.parameters() on nested modules")
    expected = ["a", "inner.w", "blocks[0].w", "blocks[1]['deep'].w", "middle.core.w"]
    if found != expected:
        name_value_mistake("parameters", {"walk": WALK}, "Module.parameters() on nested modules (a shared one among them, "
                           "one two levels down)", found, expected)
    if sorted(found) != sorted(expected):
        raise CheckFailure(f"Module.parameters() found {found}, expected {expected} in any order: look inside "
                           "sub-modules (and theirs, at any depth) and lists, tuples and dicts of them; count a "
                           "shared one once; a plain Tensor is not a Parameter", "parameters missed")
    if found != expected:
        raise CheckFailure(f"Module.parameters() found the right parameters in the order {found}, expected {expected}: "
                           "the order the attributes were set (an optimizer's state and saved weights are matched to "
                           "parameters by that order)", "order")


@part("6.1", "Linear")
def linear(w, rng):
    x = rng.standard_normal((4, 3))  # a square layer first: x @ weight, without the transpose, does not raise
    seen = call_learner(w, "linear", "Linear(3, 3) on an input of shape (4, 3)", in_features=3, out_features=3,
                        bias=True, x=x)
    weight, bias = seen["weight"], seen["bias"]
    if isinstance(weight, np.ndarray) and weight.shape == (3, 3) and isinstance(bias, np.ndarray) and bias.shape == (3,):
        judge_value("Linear(3, 3).forward(x) for x of shape (4, 3)", "linear", {"x": x, "weight": weight, "bias": bias},
                    seen["out"], x @ weight.T + bias)
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
            judge_value(f"Linear(5, 3, bias={bias}).forward(x) for x of shape {x_shape}", "linear",
                        {"x": x, "weight": weight, "bias": seen["bias"] if bias else None}, seen["out"], expected)
    _linear_initialisation(w)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    seen = call_learner(w, "linear", "Linear(5, 3, dtype=np.float32) on a float32 input", in_features=5,
                        out_features=3, bias=True, x=x, dtype="float32")
    kinds = {name: getattr(seen[name], "dtype", None) for name in ("weight", "bias", "out")}
    if any(kind != np.float32 for kind in kinds.values()):
        raise CheckFailure(f"Linear(5, 3, dtype=np.float32) gave weight, bias and output of dtypes "
                           f"{', '.join(str(k) for k in kinds.values())}: make the Parameters in the dtype asked for "
                           f"(Parameter(..., dtype=dtype))" + _made_at(seen.get("made")), "dtype")


def _spread(name: str, values: np.ndarray, bound: float, layer: str) -> str:
    """Why ``values`` do not look drawn uniformly from [-bound, bound], or ""."""
    low, high, mean, std = values.min(), values.max(), values.mean(), values.std()
    described = f"{layer}'s {name} starts between {low:.4f} and {high:.4f} with mean {mean:.4f} and spread (std) {std:.4f}"
    if not values.any():
        return f"{described}: all zeros"
    if max(-low, high) > bound * (1 + 1e-6):
        return f"{described}: beyond the bound {bound:.4f}"
    if abs(mean) > bound / 10 or not 0.85 < std / (bound / np.sqrt(3)) < 1.15:
        return f"{described}: not uniform over the whole range (its spread would be {bound / np.sqrt(3):.4f})"
    return ""


def _bound_taken(values: np.ndarray, fan_in: int, fan_out: int) -> str:
    """Which other bound b the values look drawn from, uniform in [-b, b] (its largest size, mean and spread), or ""."""
    top, mean, std = float(np.abs(values).max()), float(values.mean()), float(values.std())
    for label, bound in ((f"1/in_features (1/{fan_in})", 1 / fan_in), (f"1/sqrt(out_features) (1/sqrt({fan_out}))",
                         1 / np.sqrt(fan_out)), (f"1/out_features (1/{fan_out})", 1 / fan_out), ("1", 1.0)):
        if 0.97 * bound <= top <= bound * (1 + 1e-6) and abs(mean) < bound / 10 and 0.9 < std / (bound / np.sqrt(3)) < 1.1:
            return f": its bound is {label} = {bound:.4f}, where the API's is 1/sqrt(in_features)"
    return ""


def _linear_initialisation(w):
    """The weight and the bias each uniform in [-b, b] for b = 1/sqrt(in_features), as the
    API says (and PyTorch does): with 65,536 weights and 1,024 biases, their largest size,
    mean and spread (b/sqrt(3) for a uniform) are close to those of that range. Then
    manual_seed: the same seed gives the same start, another seed another."""
    seen = call_learner(w, "linear", "Linear(64, 1024), just made", in_features=64, out_features=1024, bias=True,
                        x=None)
    weight, bias, bound = seen["weight"], seen["bias"], 1 / np.sqrt(64)
    if not isinstance(weight, np.ndarray) or weight.shape != (1024, 64) or not isinstance(bias, np.ndarray):
        return  # the shapes are judged above
    for name, values in (("weight", weight), ("bias", bias)):
        problem = _spread(name, values, bound, "Linear(64, 1024)")
        if problem:
            raise CheckFailure(f"{problem}{_bound_taken(values, 64, 1024)}. The API starts the weight and the bias alike, uniform in "
                               f"[-1/sqrt(in_features), 1/sqrt(in_features)] = [-{bound:.4f}, {bound:.4f}] (the "
                               "bias too: in_features, not out_features, and not zeros)", "initialisation")
    made = call_learner(w, "linear_seeded", "manual_seed(7), Linear(5, 3); manual_seed(7) again; manual_seed(8)",
                        seeds=[7, 7, 8])
    same = [all(isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
                for a, b in zip(made[0], other)) for other in made[1:]]
    if not same[0]:
        raise CheckFailure("mt.manual_seed(7) then Linear(5, 3), twice, gave two different starts: draw the weights "
                           "from the generator manual_seed sets (nn._rng in nn.py), not from np.random or a generator "
                           "of your own, so that a seed repeats a run", "not seeded")
    if same[1]:
        raise CheckFailure("mt.manual_seed(7) and mt.manual_seed(8) gave the same start for Linear(5, 3): draw from "
                           "the generator manual_seed sets (nn._rng), not one made with a fixed seed inside Linear",
                           "not seeded")


@part("6.1", "MLP")
def mlp(w, rng):
    sizes = [2, 6, 4, 3]
    for activation, fn in (("tanh", np.tanh), ("relu", lambda a: np.maximum(a, 0))):
        x = rng.standard_normal((5, 2))
        layers = [(rng.standard_normal((n, m)), rng.standard_normal(n)) for m, n in zip(sizes, sizes[1:])]
        seen = call_learner(w, "mlp", f"MLP({sizes}, activation={activation!r}) (with a given Linear)", sizes=sizes,
                            activation=activation, x=x, weights=layers)
        if seen["count"] != 6 or seen["layers"] != 3:
            pairs = [list(pair) for pair in zip(sizes, sizes[1:])]
            held = seen.get("sizes")
            where = ": the last layer is missing" if held == pairs[:-1] else \
                ": the first layer is missing" if held == pairs[1:] else ""
            raise CheckFailure(f"MLP({sizes}) should keep 3 Linear layers in self.layers, and have 6 parameters; it "
                               f"has {seen['layers']} layers and {seen['count']} parameters"
                               + (f" (its layers' in_features and out_features: {held}, expected {pairs}{where}: one "
                                  "Linear for each pair of neighbouring sizes, zip(sizes[:-1], sizes[1:]))"
                                  if held is not None and held != pairs else ""), "parameters missed")
        held, pairs = seen.get("sizes"), [list(pair) for pair in zip(sizes, sizes[1:])]
        if isinstance(held, list) and held != pairs and all(isinstance(n, int) for pair in held for n in pair):
            swapped = held == [pair[::-1] for pair in pairs]
            raise CheckFailure(f"MLP({sizes}) made its layers with (in_features, out_features) {held}, expected {pairs}"
                               + (": each Linear was made with in and out swapped" if swapped else "") + ". One Linear "
                               "for each pair of neighbouring sizes, Linear(sizes[i], sizes[i + 1])",
                               "in and out swapped" if swapped else "parameters missed")
        h = x
        for k, (weight, bias) in enumerate(layers):
            h = h @ weight.T + bias
            if k < 2:
                h = fn(h)
        judge_value(f"MLP([2, 6, 4, 3], activation={activation!r}).forward(x) (the activation between layers, none "
                    "after the last)", "mlp", {"x": x, "layers": layers, "activation": activation}, seen["out"], h)


def _train_epoch(w, rng):
    # squares: no split into batches of 4, 4 and 2 gives the plain mean of the batch means the weighted one
    x, y = np.zeros((10, 2)), np.arange(10, dtype=np.float64) ** 2
    return call_learner(w, "train_epoch", "train_epoch on 10 examples with batch_size 4 (stand-in model, loss and "
                 "optimizer)", x=x, y=y, batch_size=4, seed=0)


@part("6.4", "order of calls")
def training_loop_order(w, rng):
    calls = _train_epoch(w, rng)["calls"]
    right = ["zero_grad", "forward", "loss", "backward", "step"] * 3
    if calls != right:
        name_value_mistake("train_epoch calls", {"examples": 10, "batch_size": 4}, "the order of train_epoch's calls for 10 "
                  "examples with batch_size 4 (stand-in model, loss and optimizer)", calls, right)
    steps = calls.count("step")
    if steps != 3:
        raise CheckFailure(f"train_epoch made {steps} optimizer steps for 10 examples with batch_size 4, expected 3 "
                           "(one per mini-batch)", "wrong number of steps")
    problem = order_problem(calls, ["forward", "loss", "backward", "step"], 3, "batch")
    if problem:
        raise CheckFailure(f"train_epoch made the calls {calls[:12]}{'...' if len(calls) > 12 else ''}: {problem}. "
                           "Each batch: zero_grad (of the optimizer or the model), forward, loss, backward, step",
                           "zero_grad or order of calls")


def _made_at(made) -> str:
    """Where the learner's Linear.__init__ made a parameter of another dtype, in words ("" if not known)."""
    if isinstance(made, list) and len(made) == 5 and isinstance(made[0], str) and re.fullmatch(
            r"minitorch/[\w/]+\.py", made[0]) and isinstance(made[1], int) and re.fullmatch(r"[\w.]+", str(made[2])) \
            and re.fullmatch(r"self\.\w+", str(made[3])) and re.fullmatch(r"(u?int|float|complex)\d+", str(made[4])):
        return (f". {made[3]} is made in {made[4]} at line {made[1]} of {made[0]} ({made[2]}) (NumPy's random draws "
                "are float64: make the value in the dtype asked for)")
    return ""


def _called_at(where) -> str:
    """Where the learner's train_epoch called the model, in words ("" when the probe could not say)."""
    if isinstance(where, list) and len(where) == 3 and isinstance(where[0], str) and re.fullmatch(
            r"minitorch/[\w/]+\.py", where[0]) and isinstance(where[1], int) and str(where[2]).isidentifier():
        return f" (the model is called at line {where[1]} of {where[0]} ({where[2]}))"
    return ""


@part("6.4", "batches and the mean")
def training_loop_batches(w, rng):
    seen = _train_epoch(w, rng)
    if "out second" in seen.get("loss_args", []):
        raise CheckFailure("train_epoch called the loss with the model's output second, loss_fn(y[batch], out): the "
                           "loss takes the model's output first, then the targets, loss_fn(out, y[batch]) (mse_loss "
                           "does not mind the order, but cross_entropy(logits, targets) does)", "loss arguments swapped")
    if sorted(seen["batches"]) != [2, 4, 4]:
        whole = bool(seen["batches"]) and all(n == 10 for n in seen["batches"])
        raise CheckFailure(f"train_epoch gave the model inputs of {seen['batches']} examples for 10 examples and "
                           "batch_size 4, expected 4, 4 and 2 in any order"
                           + (": every batch's forward got the whole data set, x, not x[batch]" if whole else "")
                           + _called_at(seen.get("called_at"))
                           + ". Each batch: the model gets x[batch] only, and the loss compares with y[batch]", "wrong batches")
    if seen.get("returned") == "loss":
        raise CheckFailure("train_epoch returned a Tensor (a loss object, made by loss * len(batch) or a sum of "
                           "losses), not a float: add loss.item() * len(batch) to the total. A Tensor total also keeps "
                           "every batch's graph alive until the epoch ends", "a Tensor, not a float")
    if seen["mean"] is None or abs(seen["mean"] - 28.5) > 1e-9:
        name_value_mistake("train_epoch mean", {"losses": seen["losses"], "sizes": seen["batches"], "batch_size": 4},
                  "train_epoch's mean loss for 10 examples with batch_size 4 (the mean of the batch losses weighted "
                  "by batch size)", seen["mean"], 28.5, 1e-9, 1e-9)
        raise CheckFailure(f"train_epoch returned {seen['mean']}, expected 28.5: the mean of the batch losses weighted "
                           "by batch size (the last batch is smaller)", "wrong mean")
