"""Known mistakes of stage 6's modules (Task 6.1) and training loop (Task 6.4); the
optimizers' (6.2, 6.3) are in ``stage6_optim.py``. The sites and their cases:

* "parameters": ``walk``, what a walk of the module's attributes meets, in the order they
  were set: one ``(path, label, kind)`` per Parameter or Tensor reached, ``path`` the
  attributes and indices that lead to it (``"blocks[1]['deep'].w"``), ``label`` the name
  it is shown by (a Parameter reached twice, one shared, has one label), ``kind``
  "Parameter" or "Tensor". The answer: the labels of ``parameters()``, in order.
* "linear": ``x``, ``weight`` (out, in) and ``bias`` (out,) or None: Linear's output.
* "mlp": ``x``, ``layers`` (a ``(weight, bias)`` pair per Linear) and ``activation``
  ("relu" or "tanh"): the MLP's output.
* "train_epoch calls": ``examples`` and ``batch_size``: the calls one epoch makes, in order
  ("zero_grad", "forward", "loss", "backward", "step").
* "train_epoch mean": ``losses`` (each batch's mean loss, in order), ``sizes`` (each
  batch's size) and ``batch_size``: the float train_epoch returns.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np

from grader.checks.mistakes import ValueMistake

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"relu": lambda a: np.maximum(a, 0), "tanh": np.tanh}


def _labels(walk, keep=lambda path, kind: kind == "Parameter", once=True, order=None) -> list:
    entries = sorted(walk, key=order) if order else list(walk)
    found: list = []
    for path, label, kind in entries:
        if keep(path, kind) and not (once and label in found):
            found.append(label)
    return found


def _depth(path: str) -> int:
    """How many modules down a walk's path goes: "a" 0, "inner.w" and "blocks[1]['deep'].w" 1, "mid.core.w" 2 (a
    list or dict inside a sub-module counts as a level more: a look at its attributes alone does not reach it)."""
    modules = path.split(".")
    return len(modules) - 1 + sum("[" in part for part in modules[1:])


def _by_name(entry) -> tuple:
    """Each level's attributes sorted by name (indices of lists and dicts kept in order)."""
    return tuple(re.findall(r"\[[^\]]*\]|[^.\[]+", entry[0]))


def _mlp(x, layers, activation, before=False, after_last=False, none=False):
    act = (lambda a: a) if none else ACTIVATIONS[activation]
    h = np.asarray(x, np.float64)
    for k, (weight, bias) in enumerate(layers):
        if before:
            h = act(h)
        h = h @ np.asarray(weight).T + bias
        if not before and (k < len(layers) - 1 or after_last):
            h = act(h)
    return h


def _not_transposed(x, weight, bias):
    if np.shape(x)[-1] != np.shape(weight)[0]:
        return None  # the shapes do not fit: the learner's matmul raises (its own words)
    return np.asarray(x) @ weight + (0 if bias is None else bias)


def _bias_first(x, weight, bias):
    if bias is None or np.shape(x)[-1] != np.shape(bias)[-1]:
        return None
    return (np.asarray(x) + bias) @ np.asarray(weight).T


def _calls(examples, batch_size, each, end=()):
    return list(each) * math.ceil(examples / batch_size) + list(end)


VALUE_MISTAKES = [
    ValueMistake("6.1", "parameters", "sub-modules not searched",
                 "parameters() found only the module's own Parameters: those of its sub-modules were left out",
                 "for each attribute that is a Module, add what its parameters() finds",
                 lambda walk: _labels(walk, lambda path, kind: kind == "Parameter" and "." not in path)),
    ValueMistake("6.1", "parameters", "sub-modules searched one level deep",
                 "parameters() looked only one level into sub-modules: the Parameters of sub-modules' sub-modules are "
                 "missing", "recurse: for each attribute that is a Module, add what its own parameters() finds (it looks "
                 "inside its sub-modules in turn), not only its direct attributes",
                 lambda walk: _labels(walk, lambda path, kind: kind == "Parameter" and _depth(path) <= 1)),
    ValueMistake("6.1", "parameters", "lists and dicts not searched",
                 "parameters() missed the Parameters inside lists and dicts of modules",
                 "walk the attributes with _walk, which looks inside lists, tuples and dicts",
                 lambda walk: _labels(walk, lambda path, kind: kind == "Parameter" and "[" not in path)),
    ValueMistake("6.1", "parameters", "shared parameter counted twice",
                 "a Parameter reached twice (two attributes share it) was listed twice: an optimizer would step it twice",
                 "keep each Parameter once, by its id", lambda walk: _labels(walk, once=False)),
    ValueMistake("6.1", "parameters", "plain Tensor taken",
                 "parameters() listed a plain Tensor: only a Parameter is something to learn",
                 "test isinstance(value, Parameter), not Tensor", lambda walk: _labels(walk, lambda path, kind: True)),
    ValueMistake("6.1", "parameters", "sorted by name",
                 "parameters() lists the attributes sorted by name, not in the order they were set (an optimizer's state "
                 "and saved weights are matched to parameters by that order)",
                 "walk vars(self).values() as they are: the order the attributes were set",
                 lambda walk: _labels(walk, order=_by_name)),
    ValueMistake("6.1", "linear", "weight not transposed",
                 "Linear computed x @ weight: the weight has shape (out_features, in_features)",
                 "multiply by the weight transposed: x @ weight.T, then add the bias", _not_transposed),
    ValueMistake("6.1", "linear", "bias missing", "Linear's output leaves the bias out",
                 "add the bias after the matmul (unless it is None)",
                 lambda x, weight, bias: None if bias is None else np.asarray(x) @ np.asarray(weight).T),
    ValueMistake("6.1", "linear", "bias added before the matmul",
                 "the bias was added to x before the matmul, (x + bias) @ weight.T",
                 "add it to the matmul's result: x @ weight.T + bias", _bias_first),
    ValueMistake("6.1", "mlp", "activation after the last layer",
                 "the activation is applied after the last layer too: the scores can no longer be negative (relu) or "
                 "larger than 1 (tanh)", "apply the activation after every layer but the last",
                 lambda x, layers, activation: _mlp(x, layers, activation, after_last=True)),
    ValueMistake("6.1", "mlp", "no activation", "the layers are stacked without the activation between them: the MLP "
                 "is one linear map", "apply the activation after every layer but the last",
                 lambda x, layers, activation: _mlp(x, layers, activation, none=True)),
    ValueMistake("6.1", "mlp", "activation before each layer",
                 "the activation is applied to each layer's input (the data too), not to each hidden layer's output",
                 "apply it to a layer's output, after every layer but the last",
                 lambda x, layers, activation: _mlp(x, layers, activation, before=True)),
    ValueMistake("6.4", "train_epoch calls", "zero_grad missing",
                 "the gradients are never cleared, so each batch's backward adds to the gradients of the batches before",
                 "clear the gradients with the optimizer's zero_grad method before each batch's backward",
                 lambda examples, batch_size: _calls(examples, batch_size, ["forward", "loss", "backward", "step"])),
    ValueMistake("6.4", "train_epoch calls", "zero_grad between backward and step",
                 "zero_grad runs between backward and step: it throws the gradients away before step uses them",
                 "clear the gradients before the forward (or after the step), never between backward and step",
                 lambda examples, batch_size: _calls(examples, batch_size,
                                             ["forward", "loss", "backward", "zero_grad", "step"])),
    ValueMistake("6.4", "train_epoch calls", "step before backward",
                 "step runs before backward: each step uses gradients that are not yet there (or the last batch's)",
                 "backward first, then step",
                 lambda examples, batch_size: _calls(examples, batch_size, ["zero_grad", "forward", "loss", "step", "backward"])),
    ValueMistake("6.4", "train_epoch calls", "one step per epoch",
                 "step runs once, after the loop: one epoch makes one step, with the gradients of its last batch only",
                 "step inside the loop, once per batch",
                 lambda examples, batch_size: _calls(examples, batch_size, ["zero_grad", "forward", "loss", "backward"],
                                             ["step"])),
    ValueMistake("6.4", "train_epoch mean", "batch sizes left out",
                 "the batch losses were added without their sizes, then divided by the number of examples",
                 "add loss.item() * len(batch): each batch's mean loss times its size",
                 lambda losses, sizes, batch_size: float(np.sum(losses) / np.sum(sizes))),
    ValueMistake("6.4", "train_epoch mean", "mean of the batch means",
                 "the plain mean of the batch losses: the last, smaller batch counts as much as a full one",
                 "weight each batch's loss by its size: add loss.item() * len(batch)",
                 lambda losses, sizes, batch_size: float(np.mean(losses))),
    ValueMistake("6.4", "train_epoch mean", "total overwritten",
                 "the total is set, not added to, at each batch: only the last batch's loss is left",
                 "add to the total (+=) at each batch",
                 lambda losses, sizes, batch_size: float(losses[-1] * sizes[-1] / np.sum(sizes))),
    ValueMistake("6.4", "train_epoch mean", "every batch weighted as full",
                 "each batch's loss was weighted by batch_size, but the last batch can be smaller",
                 "weight by len(batch), the batch's own size",
                 lambda losses, sizes, batch_size: float(np.sum(losses) * batch_size / np.sum(sizes))),
]
