"""Known mistakes of stage 6's optimizers: SGD (Task 6.2, site "sgd") and Adam (Task 6.3,
site "adam"). A case is a run of several steps:

* ``starts``: one array per parameter, its value before the first step;
* ``grads``: one list per step, holding each parameter's gradient at that step (None: no
  gradient, so no step and no change of its state);
* ``lrs``: the learning rate of each step (``opt.lr`` set before it, as a schedule does);
* ``weight_decay``; for SGD ``momentum``; for Adam ``betas`` and ``eps``;
* ``param``: which parameter's value after the last step is the answer.

``sgd_run`` and ``adam_run`` (the right runs, and each mistake's with its option) give
every parameter after every step; the hidden checks (``stage6_optimizers.py``) take their
expected trajectories from them.
"""

from __future__ import annotations

import math

import numpy as np

from grader.checks.mistakes import ValueMistake


def _gradients(params: list, grads: list, none_as_zero: bool):
    for i, g in enumerate(grads):
        if g is None and none_as_zero:
            g = np.zeros_like(params[i])
        if g is not None:
            yield i, np.asarray(g, np.float64)


def sgd_run(starts, grads, lrs, momentum, weight_decay, none_as_zero=False, dampened=False, lr_in_buffer=False,
            decay_subtracted=False, decay_after=False, lr_twice=False, decay_of_grad=False, buffer_unused=False,
            raw_grad=False) -> list:
    """Every parameter after every step of torch's SGD, or of a mistake's (an option)."""
    params = [np.array(s, np.float64) for s in starts]
    buffers: list = [None] * len(starts)
    history = []
    for lr, step in zip(lrs, grads):
        for i, g in _gradients(params, step, none_as_zero):
            decay = weight_decay * (g if decay_of_grad else params[i])
            raw, g = g, g - decay if decay_subtracted else g if decay_after else g + decay
            if momentum and lr_in_buffer:
                buffers[i] = -lr * g if buffers[i] is None else momentum * buffers[i] - lr * g
                params[i] = params[i] + buffers[i]
                continue
            if momentum:
                buffers[i] = g if buffers[i] is None else \
                    momentum * buffers[i] + (1 - momentum if dampened else lr if lr_twice else 1) * g
                g = g if buffer_unused else buffers[i]
            params[i] = params[i] - lr * (raw if raw_grad else g + decay if decay_after else g)
        history.append([p.copy() for p in params])
    return history


def adam_run(starts, grads, lrs, betas, eps, weight_decay, **mistake) -> list:
    """Every parameter after every step of torch's Adam (L2 weight decay), or of a mistake's.
    A mistake that divides by zero or takes the root of a negative number raises here as a
    step written with Python floats and ``math.sqrt`` does."""
    b1, b2 = betas
    params = [np.array(s, np.float64) for s in starts]
    state = [{"t": 0, "m": 0.0, "v": 0.0} for _ in starts]
    shared, history = 0, []
    for lr, step in zip(lrs, grads):
        for i, g in _gradients(params, step, mistake.get("none_as_zero", False)):
            s = state[i]
            shared += 1
            s["t"] = shared if mistake.get("shared_step") else s["t"] + 1
            t = s["t"] - (1 if mistake.get("t_from_zero") else 0) + (1 if mistake.get("t_ahead") else 0)
            if mistake.get("decoupled"):
                params[i] = params[i] - lr * weight_decay * params[i]
            else:
                g = g + weight_decay * params[i]
            m1 = b2 if mistake.get("beta2_for_m") else b1
            v2 = b1 if mistake.get("beta1_for_v") else b2
            m = m1 * s["m"] + (1 - m1) * g
            v = v2 * s["v"] + (1 - v2) * (np.abs(g) if mistake.get("abs_v") else g if mistake.get("plain_v") else g * g)
            bc1, bc2 = (1 - b1 * t, 1 - b2 * t) if mistake.get("product") else (1 - b1 ** t, 1 - b2 ** t)
            bc1 = 1.0 if mistake.get("no_correction") or mistake.get("no_m_correction") else bc1
            bc2 = 1.0 if mistake.get("no_correction") or mistake.get("no_v_correction") else bc2
            m = m / bc1 if mistake.get("m_stored_corrected") else m  # stored so, and corrected again below
            v = v / bc2 if mistake.get("v_stored_corrected") else v
            if mistake.get("eps_inside_sqrt"):
                denom = np.sqrt(v / bc2 + eps)
            elif mistake.get("eps_inside_raw_sqrt"):
                denom = np.sqrt(v + eps) / math.sqrt(bc2)
            elif mistake.get("eps_before_correction"):
                denom = (np.sqrt(v) + eps) / math.sqrt(bc2)
            else:
                denom = np.sqrt(v) / math.sqrt(bc2) + eps
            params[i] = params[i] - (lr / bc1) * m / denom
            s["m"], s["v"] = (m / bc1 if mistake.get("corrected_m") else m), v
        history.append([p.copy() for p in params])
    return history


def _sgd(no_decay=False, **option):
    return lambda starts, grads, lrs, momentum, weight_decay, param: \
        sgd_run(starts, grads, lrs, momentum, 0.0 if no_decay else weight_decay, **option)[-1][param]


def _adam(no_decay=False, **option):
    return lambda starts, grads, lrs, betas, eps, weight_decay, param: \
        adam_run(starts, grads, lrs, betas, eps, 0.0 if no_decay else weight_decay, **option)[-1][param]


_NO_DECAY = ("weight decay is left out: the step is the one without it, as if weight_decay were 0",
             "add weight_decay * p to each gradient first, g = p.grad + weight_decay * p.data (an L2 penalty)")


_NONE = ("a parameter whose grad is None was still updated, as if its gradient were zeros: its state (and weight "
         "decay) moved it on", "skip a parameter whose grad is None at that step (continue), leaving its state as it is")

_STORED_FIX = "keep the raw running averages m and v in the state, and correct a copy of each for the step"

VALUE_MISTAKES = [
    ValueMistake("6.2", "sgd", "updated without a gradient", *_NONE, _sgd(none_as_zero=True)),
    ValueMistake("6.2", "sgd", "momentum dampened",
                 "the momentum buffer is dampened, b = momentum * b + (1 - momentum) * g",
                 "torch's SGD adds the whole gradient: b = momentum * b + g", _sgd(dampened=True)),
    ValueMistake("6.2", "sgd", "lr inside the buffer",
                 "the buffer holds the step itself, v = momentum * v - lr * g (the learning rate inside the buffer): that "
                 "equals torch's update only while lr stays the same",
                 "keep lr out of the buffer: b = momentum * b + g in state['momentum_buffer'], then p -= lr * b with lr read "
                 "at each step", _sgd(lr_in_buffer=True)),
    ValueMistake("6.2", "sgd", "lr in the buffer and in the step",
                 "the learning rate multiplies the gradient in the momentum buffer, b = momentum * b + lr * g, and the "
                 "step again, p -= lr * b: from the second step the new gradient counts lr times too little",
                 "keep lr out of the buffer: b = momentum * b + g, then p -= lr * b", _sgd(lr_twice=True)),
    ValueMistake("6.2", "sgd", "weight decay missing", *_NO_DECAY, _sgd(no_decay=True)),
    ValueMistake("6.2", "sgd", "weight decay subtracted",
                 "weight decay is subtracted from the gradient, g - weight_decay * p: it pulls the weights away from zero",
                 "add weight_decay * p to the gradient (an L2 penalty pulls toward zero)", _sgd(decay_subtracted=True)),
    ValueMistake("6.2", "sgd", "weight decay from the gradient",
                 "the decay term uses the gradient, weight_decay * p.grad, where it uses the parameter: L2 decay pulls "
                 "each weight toward 0 by its own size", "g = p.grad + weight_decay * p.data: the parameter's values, "
                 "not its gradient", _sgd(decay_of_grad=True)),
    *[ValueMistake("6.2", "sgd", "momentum buffer not used",
                   "the step moved along the gradient, not along the momentum buffer b: the buffer is kept, but p -= lr * g "
                   "ignores it", "with momentum, step along the buffer: b = momentum * b + g in state['momentum_buffer'], "
                   "then p -= lr * b", lambda starts, grads, lrs, momentum, weight_decay, param, how=how:
                   None if not momentum else sgd_run(starts, grads, lrs, momentum, weight_decay, **how)[-1][param])
      for how in ({"buffer_unused": True}, {"raw_grad": True})],
    ValueMistake("6.2", "sgd", "weight decay after the momentum",
                 "weight decay is added after the momentum buffer, p -= lr * (b + weight_decay * p), so the buffer never "
                 "holds it", "add weight_decay * p to the gradient first, then build the buffer from that sum",
                 _sgd(decay_after=True)),
    ValueMistake("6.3", "adam", "updated without a gradient", *_NONE, _adam(none_as_zero=True)),
    ValueMistake("6.3", "adam", "step count shared",
                 "one step count is shared by all the parameters, so the second parameter's first step uses t = 2",
                 "keep each parameter's own step count t in its state (state['step'])", _adam(shared_step=True)),
    ValueMistake("6.3", "adam", "weight decay missing", _NO_DECAY[0] + " (a decay term of weight_decay * p.grad does "
                 "that too: Adam's step does not change when the gradient is scaled)", _NO_DECAY[1], _adam(no_decay=True)),
    ValueMistake("6.3", "adam", "beta2 for m",
                 "m averages with beta2, m = beta2 * m + (1 - beta2) * g (v's rate, a copy-paste): the first step is "
                 "(1 - beta2) / (1 - beta1) of the right one", "m = beta1 * m + (1 - beta1) * g: beta1 for m, beta2 for v",
                 _adam(beta2_for_m=True)),
    ValueMistake("6.3", "adam", "beta1 for v",
                 "v averages with beta1, v = beta1 * v + (1 - beta1) * g * g (m's rate, a copy-paste)",
                 "v = beta2 * v + (1 - beta2) * g * g: beta1 for m, beta2 for v", _adam(beta1_for_v=True)),
    ValueMistake("6.3", "adam", "bias correction missing",
                 "Adam without its bias correction: m and v are used as they are, still biased toward their start at 0",
                 "divide m by 1 - beta1 ** t and v by 1 - beta2 ** t (t the parameter's step count, from 1)",
                 _adam(no_correction=True)),
    ValueMistake("6.3", "adam", "m not corrected", "the bias correction of m is missing (v's is there)",
                 "divide m by 1 - beta1 ** t as well", _adam(no_m_correction=True)),
    ValueMistake("6.3", "adam", "v not corrected", "the bias correction of v is missing (m's is there)",
                 "divide v by 1 - beta2 ** t too, under the square root: the bias correction of v", _adam(no_v_correction=True)),
    ValueMistake("6.3", "adam", "correction as a product",
                 "the bias correction multiplies where it should raise to a power: 1 - beta * t (a product, not a power) goes "
                 "negative from t = 2, and the square root of a negative number fails",
                 "1 - beta ** t, a power, not a product: it lies between 0 and 1 for every t >= 1", _adam(product=True)),
    ValueMistake("6.3", "adam", "t from 0",
                 "the step count t is used before the step is counted (t = 0 at the first step), so the first bias "
                 "correction divides by 1 - beta ** 0 = 0",
                 "count the step before using it (t = 1 at the first step)", _adam(t_from_zero=True)),
    ValueMistake("6.3", "adam", "t one ahead", "the step count is one ahead: the first step uses t = 2",
                 "the first step uses t = 1: count each step once, before using it", _adam(t_ahead=True)),
    ValueMistake("6.3", "adam", "eps inside the root", "eps is added under the square root, sqrt(v_hat + eps)",
                 "add eps after the root: sqrt(v_hat) + eps", _adam(eps_inside_sqrt=True)),
    ValueMistake("6.3", "adam", "eps under the root before the correction",
                 "eps is added under the square root, and before the bias correction: sqrt(v + eps) / sqrt(1 - beta2 ** t)",
                 "add eps last, outside the root: sqrt(v) / sqrt(1 - beta2 ** t) + eps", _adam(eps_inside_raw_sqrt=True)),
    ValueMistake("6.3", "adam", "eps before the correction",
                 "eps is added before the bias correction of v, (sqrt(v) + eps) / sqrt(1 - beta2 ** t)",
                 "add eps last: sqrt(v) / sqrt(1 - beta2 ** t) + eps", _adam(eps_before_correction=True)),
    ValueMistake("6.3", "adam", "corrected m kept",
                 "state['m'] keeps the bias-corrected average, which the next step averages (and corrects) again",
                 "keep the raw running averages m and v in the state, and correct copies of them", _adam(corrected_m=True)),
    ValueMistake("6.3", "adam", "corrected m stored back",
                 "the bias-corrected m was stored back into the state, and the step corrects it again: the first step is "
                 "1 / (1 - beta1) times too long", _STORED_FIX, _adam(m_stored_corrected=True)),
    ValueMistake("6.3", "adam", "corrected v stored back",
                 "the bias-corrected v was stored back into the state, and the step corrects it again: the first step "
                 "shrinks by a factor of about sqrt(1 - beta2)", _STORED_FIX, _adam(v_stored_corrected=True)),
    ValueMistake("6.3", "adam", "weight decay decoupled",
                 "the weights are shrunk by lr * weight_decay * p apart from the gradient (AdamW's decoupled decay)",
                 "Adam's weight_decay adds weight_decay * p to the gradient before m and v (L2, as torch.optim.Adam does)",
                 _adam(decoupled=True)),
    ValueMistake("6.3", "adam", "v of |g|", "v averages |g|, not the square of the gradient",
                 "v = beta2 * v + (1 - beta2) * g * g: the square of the gradient", _adam(abs_v=True)),
    ValueMistake("6.3", "adam", "v of g, not its square",
                 "v averages the gradient itself, not its square: where the gradient is negative v is negative, and its "
                 "square root is NaN", "v = beta2 * v + (1 - beta2) * g * g: the square of the gradient", _adam(plain_v=True)),
]
