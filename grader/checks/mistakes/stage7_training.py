"""Known mistakes of Task 7.4, the training step and sampling. The sites and their cases:

* ``"greedy"``: the tokens ``sample_next`` picks at temperature 0, (B,), from ``logits`` (B, V);
* ``"temperature"``: how often each token is drawn, (V,), from ``logits`` (V,) (every row the
  same) and ``temperature``;
* ``"training calls"``: the calls ``language.train`` makes on the model, the loss and the
  optimizer (``"zero_grad"``, ``"forward"``, ``"backward"``, ``"step"``) in ``steps`` steps;
* ``"training gradient"``: the gradient the second step's ``optimizer.step`` meets, from
  ``first`` and ``second``, the gradients of the two steps' batches, each alone (learning
  rate 0, so that the model does not change between them);
* ``"optimizer steps"``: how many times ``language.train`` calls ``optimizer.step`` in ``steps`` steps.
"""

from __future__ import annotations

import numpy as np

from grader.checks.mistakes import ValueMistake


def _softmax(a):
    a = np.asarray(a, np.float64)
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _calls(one_step):
    return lambda steps: list(one_step) * steps


ZERO_GRAD = ("zero_grad missing",
             "the gradients are never cleared: each backward adds to what the steps before left, so every step "
             "uses the sum of all the gradients so far",
             "clear the gradients with the optimizer's zero_grad at each step, before backward")
CLEARED = ("gradients cleared before the step",
           "the step meets no gradient at all, so the model never learns: the gradients are cleared between "
           "backward and step, or the step comes before backward",
           "in each step: zero_grad, the loss, backward, and only then step")
NO_STEP = ("step missing", "the optimizer's step is never taken: the gradients are computed and then left unused",
           "take the optimizer's step after backward, at every step")

VALUE_MISTAKES = [
    ValueMistake("7.4", "greedy", "argmin, not argmax",
                 "at temperature 0 it picks each row's least likely token (argmin): greedy means the most likely one",
                 "take the argmax of each row (axis=-1)", lambda logits: np.asarray(logits).argmin(axis=-1)),
    ValueMistake("7.4", "greedy", "the largest logit, not its position",
                 "at temperature 0 it returns each row's largest logit, a score, not the token that has it",
                 "return the position of the largest value, the argmax along the last axis, not the value itself",
                 lambda logits: np.asarray(logits, np.float64).max(axis=-1)),
    ValueMistake("7.4", "greedy", "the largest probability, not its token",
                 "at temperature 0 it returns each row's largest probability, not the token that has it",
                 "return the position of the largest value, the argmax along the last axis, not the value itself",
                 lambda logits: _softmax(logits).max(axis=-1)),
    ValueMistake("7.4", "greedy", "argmax over the rows",
                 "at temperature 0 it took the argmax over axis 0, down each column across the rows, not along each "
                 "row: one answer per token of the vocabulary, not one per row",
                 "take the argmax along the last axis (axis=-1): each row's most likely token",
                 lambda logits: np.asarray(logits).argmax(axis=0)),
    ValueMistake("7.4", "greedy", "one argmax for the whole batch",
                 "at temperature 0 every row gets the same token, the argmax of the whole batch's logits",
                 "take each row's most likely token: the argmax along the last axis (axis=-1), one per row",
                 lambda logits: np.full(len(logits), np.asarray(logits).argmax() % np.shape(logits)[-1])),
    ValueMistake("7.4", "temperature", "temperature multiplies",
                 "the logits were multiplied by the temperature: a temperature below 1 then flattens the draw and one "
                 "above 1 sharpens it, the other way round",
                 "Divide the logits by the temperature before the softmax",
                 lambda logits, temperature: _softmax(np.asarray(logits) * temperature)),
    ValueMistake("7.4", "temperature", "temperature ignored",
                 "the draw ignores the temperature: it samples the softmax of the logits as they are",
                 "Divide the logits by the temperature before the softmax",
                 lambda logits, temperature: _softmax(logits)),
    ValueMistake("7.4", "training calls", *ZERO_GRAD, _calls(["forward", "backward", "step"])),
    ValueMistake("7.4", "training calls", *CLEARED, _calls(["forward", "backward", "zero_grad", "step"])),
    ValueMistake("7.4", "training calls", *NO_STEP, _calls(["zero_grad", "forward", "backward"])),
    ValueMistake("7.4", "training gradient", *ZERO_GRAD, lambda first, second: np.asarray(first) + np.asarray(second)),
    ValueMistake("7.4", "training gradient", *CLEARED, lambda first, second: np.zeros(np.shape(second))),
    ValueMistake("7.4", "optimizer steps", *NO_STEP, lambda steps: 0),
]
