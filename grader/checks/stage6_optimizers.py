"""Tasks 6.2 and 6.3: SGD and Adam, stepped with different gradients per parameter, a
parameter without a gradient at one step, and a learning rate that changes between steps
(as a schedule changes it). The parameters are compared after every step; a wrong one is
explained by the mistake it matches (each a reference option below) or, failing that, by
the step where it first went wrong and what happened at that step."""

from __future__ import annotations

import numpy as np

from grader.checks import part
from grader.checks.common import CheckFailure, call_learner, explain

MISTAKES = {  # a reference option, and what the mistake is, for the learner
    "none_as_zero": "a parameter whose grad is None was still updated (its state moved on): skip it at that step",
    "shared_step": "one step count was shared by all the parameters: each parameter keeps its own step count t in "
                   "its state",
    "lr_in_buffer": "the momentum buffer holds the step itself, v = momentum * v - lr * g (the learning rate inside "
                    "the buffer): that equals torch's update only while lr stays the same; keep b = momentum * b + g "
                    "in state['momentum_buffer'] and step by p -= lr * b, reading lr at each step",
    "dampened": "the momentum buffer is dampened, b = momentum * b + (1 - momentum) * g: torch's SGD (without "
                "dampening) adds the whole gradient, b = momentum * b + g",
    "no_correction": "Adam without its bias correction: divide m by 1 - beta1 ** t and v by 1 - beta2 ** t (t is the "
                     "parameter's step count, from 1)",
    "no_m_correction": "the bias correction of m is missing: m_hat = m / (1 - beta1 ** t)",
    "no_v_correction": "the bias correction of v is missing: v_hat = v / (1 - beta2 ** t), under the square root",
    "correction_product": "the bias correction multiplies where it should raise to a power: 1 - beta ** t, not "
                          "1 - beta * t",
    "t_from_zero": "the step count t starts at 0, so the first bias correction divides by 1 - beta ** 0 = 0: count "
                   "the step before using it (t = 1 at the first step)",
    "t_ahead": "the step count is one ahead (t = 2 at the first step): the first step uses t = 1",
    "eps_inside_sqrt": "eps is added under the square root, sqrt(v_hat + eps): add it after, sqrt(v_hat) + eps",
    "eps_before_correction": "eps is added before the bias correction of v, (sqrt(v) + eps) / sqrt(1 - beta2 ** t): "
                             "add it after, sqrt(v) / sqrt(1 - beta2 ** t) + eps",
    "corrected_m_in_state": "state['m'] keeps the bias-corrected average, which the next step then averages again: "
                            "keep the raw running averages m and v in the state and correct copies of them",
}
RAISED = {  # an exception Adam's step raised, and the slip that usually makes it
    "ZeroDivisionError": MISTAKES["t_from_zero"],
    "math domain error": "a bias correction went negative under a square root: 1 - beta2 ** t lies between 0 and 1 "
                         "for every t >= 1, but 1 - beta2 * t (a product, not a power) is negative from t = 2",
}
SGD_MISTAKES = ("none_as_zero", "lr_in_buffer", "dampened")
ADAM_MISTAKES = ("none_as_zero", "shared_step", "no_correction", "no_m_correction", "no_v_correction",
                 "correction_product", "t_from_zero", "t_ahead", "eps_inside_sqrt", "eps_before_correction",
                 "corrected_m_in_state")


def _close(got, want) -> bool:
    return isinstance(got, np.ndarray) and got.shape == np.shape(want) and \
        np.allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True)


def _trajectory_matches(history, expected) -> bool:
    return len(history) == len(expected) and all(
        _close(g, e) for got, want in zip(history, expected) for g, e in zip(got, want))


def _context(t: int, k: int, steps: list, lrs: list) -> str:
    """What happened at step t (0-based) for parameter k."""
    if t == 0:
        return "the first step"
    if lrs[t] != lrs[t - 1]:
        return (f"the step where lr changed from {lrs[t - 1]:g} to {lrs[t]:g}: read self.lr at every step, and keep "
                "it out of the state")
    if steps[t - 1][k] is None:
        return "the step after one where it had no gradient"
    return ""


def _run(w, name, doing, starts, steps, kwargs, lrs, probe="optimizer"):
    """The probe's run; an exception Adam's step raised gets the slip that usually makes it."""
    try:
        return call_learner(w, probe, doing, name=name, starts=starts, steps=steps, kwargs=kwargs, lrs=lrs)
    except CheckFailure as failure:
        hint = next((words for error, words in RAISED.items() if name == "Adam" and error in str(failure)), "")
        if hint:
            raise CheckFailure(f"{failure} This is what happens when {hint}.", failure.pitfall) from None
        raise


def _optimizer(w, name, starts, steps, lrs, kwargs, reference, label, mistakes):
    """``reference(starts, steps, **option)`` gives the expected parameters after each step;
    with one of ``mistakes`` as option, what that mistake gives: named when it matches."""
    shapes = " and ".join(str(np.shape(s)) for s in starts)
    changes = ", ".join(f"{lr:g} at step {t + 1}" for t, lr in enumerate(lrs) if t and lr != lrs[t - 1])
    doing = (f"{name}({label}) stepping {len(starts)} parameters of shapes {shapes} with different gradients (each "
             f"keeps its own state), the second without a gradient at step 2, and a third that never gets one; "
             f"the learning rate set to {changes} (opt.lr, as a schedule does)")
    seen = _run(w, name, doing, starts, steps, kwargs, lrs)
    if not np.array_equal(seen["idle"], np.ones(2)):
        raise CheckFailure(f"{name}.step changed a parameter whose grad is None ({doing}): skip it",
                           "updates without a gradient")
    expected = reference(starts, steps)
    history = seen["history"]
    if _trajectory_matches(history, expected):
        return
    if _trajectory_matches(history, [list(starts)] * len(steps)):
        raise CheckFailure(f"{doing}: the parameters never moved. Change each parameter's data in place "
                           "(p.data -= lr * ...): p = p - ... only gives the local name p a new Tensor", "no update")
    t, k = next(((t, k) for t, (got, want) in enumerate(zip(history, expected)) for k, (g, e)
                 in enumerate(zip(got, want)) if not _close(g, e)), (len(expected) - 1, 0))
    for option in mistakes:
        with np.errstate(all="ignore"):
            other = reference(starts, steps, **{option: True})
        if _trajectory_matches(history, other) and not _trajectory_matches(other, expected):
            raise CheckFailure(f"{doing}: parameter {k} is wrong after step {t + 1}. It matches this mistake: "
                               f"{MISTAKES[option]}.", option) from None
    notes = [note for note in (_context(t, k, steps, lrs), f"right after step {t}" if t else "") if note]
    what = f"{doing}: parameter {k} after step {t + 1}" + (f" ({'; '.join(notes)})" if notes else "")
    got = history[t][k] if t < len(history) and k < len(history[t]) else None
    explain(what, got, expected[t][k], rtol=1e-9, atol=1e-12)
    raise CheckFailure(f"{what} is wrong", "wrong result")


def _schedule(rng, count):
    """Two parameters with different gradients; the second gets none at step 2."""
    starts = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    steps = [[rng.standard_normal((3, 2)), None if t == 1 else rng.standard_normal(4)] for t in range(count)]
    return starts, steps


def _gradients(params, grads, none_as_zero):
    for i, g in enumerate(grads):
        if g is None and none_as_zero:
            g = np.zeros_like(params[i])
        if g is not None:
            yield i, g


def sgd_reference(starts, steps, lrs, momentum, decay, none_as_zero=False, lr_in_buffer=False, dampened=False):
    params, buffers, history = [s.copy() for s in starts], [None] * len(starts), []
    for t, grads in enumerate(steps):
        for i, g in _gradients(params, grads, none_as_zero):
            g = g + decay * params[i]
            if momentum and lr_in_buffer:
                buffers[i] = -lrs[t] * g if buffers[i] is None else momentum * buffers[i] - lrs[t] * g
                params[i] = params[i] + buffers[i]
                continue
            if momentum:
                buffers[i] = g if buffers[i] is None else momentum * buffers[i] + (1 - momentum if dampened else 1) * g
                g = buffers[i]
            params[i] = params[i] - lrs[t] * g
        history.append([p.copy() for p in params])
    return history


def adam_reference(starts, steps, lrs, betas, decay, eps=1e-8, **mistake):
    b1, b2 = betas
    params, history = [s.copy() for s in starts], []
    state = [{"t": 0, "m": 0.0, "v": 0.0} for _ in starts]
    shared = 0
    for lr, grads in zip(lrs, steps):
        for i, g in _gradients(params, grads, mistake.get("none_as_zero")):
            s = state[i]
            shared += 1
            s["t"] = shared if mistake.get("shared_step") else s["t"] + 1
            t = s["t"] - (1 if mistake.get("t_from_zero") else 0) + (1 if mistake.get("t_ahead") else 0)
            g = g + decay * params[i]
            m, v = b1 * s["m"] + (1 - b1) * g, b2 * s["v"] + (1 - b2) * g * g
            power = (lambda b: b * t) if mistake.get("correction_product") else (lambda b: b ** t)
            bc1 = 1.0 if mistake.get("no_correction") or mistake.get("no_m_correction") else 1 - power(b1)
            bc2 = 1.0 if mistake.get("no_correction") or mistake.get("no_v_correction") else 1 - power(b2)
            if mistake.get("eps_inside_sqrt"):
                denom = np.sqrt(v / bc2 + eps)
            elif mistake.get("eps_before_correction"):
                denom = (np.sqrt(v) + eps) / np.sqrt(bc2)
            else:
                denom = np.sqrt(v / bc2) + eps
            params[i] = params[i] - lr * (m / bc1) / denom
            s["m"], s["v"] = (m / bc1 if mistake.get("corrected_m_in_state") else m), v
        history.append([p.copy() for p in params])
    return history


def _decay_apart(w, name, starts, steps, lrs, kwargs, reference, failure):
    """A weight-decay part that failed: judge the decay term on its own. When the same
    update without weight decay is wrong too (a slip another part charges) and the decay
    term is right (the update with decay equals the update without it on g + λ·p), the
    part passes: one slip is charged once. Otherwise the message says which is wrong."""
    plain = {**kwargs, "weight_decay": 0.0}
    seen = _run(w, name, f"{name} without weight decay", starts, steps, plain, lrs)
    plain_right = np.array_equal(seen["idle"], np.ones(2)) and _trajectory_matches(
        seen["history"], reference(starts, steps, 0.0))
    if plain_right:
        raise CheckFailure(f"{failure} The same steps without weight decay are right, so the decay term is wrong: "
                           f"weight_decay={kwargs['weight_decay']} adds weight_decay * p to each gradient before the "
                           "update (L2 decay, as torch.optim does).", failure.pitfall) from None
    runs = _run(w, name, f"{name} with weight decay, and without it on g + weight_decay * p", starts, steps, kwargs,
                lrs, "optimizer_decay_folded")
    moved = any(isinstance(p, np.ndarray) and p.shape == np.shape(s) and not np.allclose(p, s)
                for p, s in zip(runs["decay"], starts))
    folded = all(isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                 and np.allclose(a, b, rtol=1e-9, atol=1e-12) for a, b in zip(runs["decay"], runs["folded"]))
    if not (moved and folded):
        raise CheckFailure(f"{failure} The update without weight decay is wrong too (another part says how), and the "
                           "decay term is not right either: weight_decay adds weight_decay * p to each gradient "
                           "before the update.", failure.pitfall) from None


def _optimizer_part(name, kwargs, label, lrs, count, reference, mistakes, scale=1.0):
    """A part: ``reference(starts, steps, weight_decay, **option)``, the trajectory."""
    def schedule(rng):
        starts, steps = _schedule(rng, count)
        return starts, [[g * scale if g is not None else None for g in grads] for grads in steps]

    def judge(w, rng):
        starts, steps = schedule(rng)
        decay = kwargs["weight_decay"]
        try:
            _optimizer(w, name, starts, steps, lrs, {**kwargs, "lr": lrs[0]},
                       lambda s, g, **o: reference(s, g, decay, **o), label, mistakes)
        except CheckFailure as failure:
            if not decay:
                raise
            _decay_apart(w, name, starts, steps, lrs, {**kwargs, "lr": lrs[0]}, reference, failure)
    return judge


SGD_LRS = [0.1, 0.1, 0.04, 0.04, 0.2]


def _sgd_part(momentum, decay):
    return _optimizer_part(
        "SGD", {"momentum": momentum, "weight_decay": decay}, f"lr=0.1, momentum={momentum}, weight_decay={decay}",
        SGD_LRS, len(SGD_LRS), lambda s, g, wd, **o: sgd_reference(s, g, SGD_LRS, momentum, wd, **o), SGD_MISTAKES)


part("6.2", "plain")(_sgd_part(0.0, 0.0))
part("6.2", "momentum")(_sgd_part(0.9, 0.0))
part("6.2", "weight decay")(_sgd_part(0.8, 0.05))

ADAM_LRS = [0.01, 0.01, 0.003, 0.003, 0.02, 0.02]


def _adam_part(betas, decay, eps):
    return _optimizer_part(
        "Adam", {"betas": betas, "weight_decay": decay, "eps": eps},
        f"lr=0.01, betas={betas}, weight_decay={decay}, eps={eps}", ADAM_LRS, len(ADAM_LRS),
        lambda s, g, wd, **o: adam_reference(s, g, ADAM_LRS, betas, wd, eps, **o), ADAM_MISTAKES,
        scale=1e-3)  # small gradients: eps matters


part("6.3", "bias correction")(_adam_part((0.9, 0.999), 0.0, 1e-3))
part("6.3", "weight decay")(_adam_part((0.8, 0.95), 0.1, 1e-8))
