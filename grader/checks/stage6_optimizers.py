"""Tasks 6.2 and 6.3: SGD and Adam, stepped with different gradients per parameter, a
parameter without a gradient at one step, and a learning rate that changes between steps
(as a schedule changes it). The parameters are compared after every step; the first wrong
one is explained by the known mistake whose run gives it, at every step (the library's sites
"sgd" and "adam", grader/checks/mistakes/stage6_optim.py, which also gives the right runs) or,
failing that, by the step where it first went wrong and what happened at that step."""

from __future__ import annotations

import numpy as np

from grader.boundary.failures import Raised
from grader.checks import part
from grader.checks.common import CheckFailure, explain, learner_raised
from grader.checks.mistakes.stage6_optim import adam_run, sgd_run
from grader.checks.naming import name_value_mistake, seen_value, value_mistake_raised
from grader.checks.repair import located_value


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


def _run(w, name, site, doing, case, kwargs, probe="optimizer"):
    """The probe's run; an exception the learner's step raised names the known mistake that
    raises it on this case, if one does."""
    try:
        return w.call(probe, doing=f"running {doing}", name=name, starts=case["starts"], steps=case["grads"],
                      kwargs=kwargs, lrs=case["lrs"])
    except Raised as error:
        raise value_mistake_raised(learner_raised(error, doing), site, {**case, "param": 0}) from None


def _optimizer(w, name, site, case, kwargs, run, label):
    """``run(**case)`` gives the expected parameters after each step; the first wrong one
    is named by the known mistake of ``site`` that gives it, if one does. The probe's run
    when every step is right."""
    starts, steps, lrs = case["starts"], case["grads"], case["lrs"]
    shapes = " and ".join(str(np.shape(s)) for s in starts)
    changes = ", ".join(f"{lr:g} at step {t + 1}" for t, lr in enumerate(lrs) if t and lr != lrs[t - 1])
    doing = (f"{name}({label}) stepping {len(starts)} parameters of shapes {shapes} with different gradients (each "
             f"keeps its own state), the second without a gradient at step 2, and a third that never gets one; "
             f"the learning rate set to {changes} (opt.lr, as a schedule does)")
    seen = _run(w, name, site, doing, case, kwargs)
    if not np.array_equal(seen["idle"], np.ones(2)):
        what = f"{name}.step changed a parameter whose grad is None ({doing})"
        idle = {**case, "starts": [np.ones(2)], "grads": [[None] for _ in steps], "param": 0}
        name_value_mistake(site, idle, what, seen["idle"], np.ones(2), 1e-9, 1e-12)
        raise CheckFailure(f"{what}: skip it", "updates without a gradient")
    for at, k, t in seen.get("grads_changed", [])[:1]:  # the step may only read p.grad
        raise CheckFailure(f"{doing}: step {t + 1} changed " + (f"p.grad of parameter {k} in place" if at == t else
                           f"the gradient parameter {k} held at step {at + 1}, an earlier step: the state kept p.grad's "
                           "own array (a buffer set to g, not a copy) and then changed it in place (*=, +=)")
                           + ". The step only reads p.grad: keep a copy in the state (g.copy()), or build a new array "
                           "each step", "gradient changed")
    expected = run(**case)
    history = seen["history"]
    if _trajectory_matches(history, expected):
        return seen
    if _trajectory_matches(history, [list(starts)] * len(steps)):
        raise CheckFailure(f"{doing}: the parameters never moved. Change each parameter's data in place "
                           "(p.data -= lr * ...): p = p - ... only gives the local name p a new Tensor", "no update")
    t, k = next(((t, k) for t, (got, want) in enumerate(zip(history, expected)) for k, (g, e)
                 in enumerate(zip(got, want)) if not _close(g, e)), (len(expected) - 1, 0))
    notes = [note for note in (_context(t, k, steps, lrs), f"right after step {t}" if t else "") if note]
    what = f"{doing}: parameter {k} after step {t + 1}" + (f" ({'; '.join(notes)})" if notes else "")
    got = history[t][k] if t < len(history) and k < len(history[t]) else None
    for s, (got_s, want_s) in enumerate(zip(history, expected)):  # every other step is evidence too: a mistake is
        for j, (g, e) in enumerate(zip(got_s, want_s)):            # named only if its whole run fits the learner's
            if (s, j) != (t, k):
                seen_value(site, {**case, "grads": steps[:s + 1], "lrs": lrs[:s + 1], "param": j}, g, e, 1e-9, 1e-12)
    name_value_mistake(site, {**case, "grads": steps[:t + 1], "lrs": lrs[:t + 1], "param": k}, what, got, expected[t][k],
              1e-9, 1e-12)
    explain(what, got, expected[t][k], rtol=1e-9, atol=1e-12)
    raise CheckFailure(f"{what} is wrong", "wrong result")


def _state_keys(label: str, keys) -> None:
    """Right steps with momentum: each parameter that got a gradient keeps b under PyTorch's
    name, "momentum_buffer", which the stub gives (one part charges it: the momentum one)."""
    kept = keys[:2] if isinstance(keys, list) else []
    if len(kept) < 2 or any(not isinstance(k, list) or "momentum_buffer" not in k for k in kept):
        held = [k[:6] if isinstance(k, list) else "no dict" for k in kept] if kept else "no list of dicts"
        raise CheckFailure(f"optim.SGD({label}): every step is right, but the state of the two parameters that got "
                           f"gradients held the keys {held}; expected 'momentum_buffer' in each: the buffer b is kept "
                           "under PyTorch's name, which the stub gives, in the dict self.state gives each parameter",
                           "state key")


def _step_counts(label: str, counts, steps: int) -> None:
    """Right steps: state["step"] of each parameter is the number of steps it took (the second sat one out)."""
    if not isinstance(counts, list) or counts[:2] != [steps, steps - 1]:
        raise CheckFailure(f"optim.Adam({label}): every step is right, but state['step'] of the two parameters that got "
                           f"gradients held {counts[:2] if isinstance(counts, list) else counts}; expected the number of "
                           f"steps each took, [{steps}, {steps - 1}]: count the step (state['step'] += 1, from 0) before "
                           "using it as t, so that t = 1 at the first step and state['step'] is the steps taken",
                           "step count")


def _in_place(name, label, held, history) -> None:
    """The values are right: the array each parameter held before a step must hold them
    after it too, as any other reference to that array sees it."""
    for t, (before, after) in enumerate(zip(held or [], history)):
        for k, (b, a) in enumerate(zip(before, after)):
            if isinstance(b, np.ndarray) and isinstance(a, np.ndarray) and not _close(b, a):
                raise CheckFailure(
                    f"optim.{name}({label}).step(): parameter {k} after step {t + 1} has the right values, but the "
                    f"array it held before the step still has the old ones: {name}.step gave p.data a new array. "
                    "Change p.data in place (p.data -= ..., or p.data[...] = ...): any other reference to that array "
                    "(a view of it, or another Parameter sharing it) keeps the old values", "not in place")


def _schedule(rng, count):
    """Two parameters with different gradients; the second gets none at step 2."""
    starts = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    steps = [[rng.standard_normal((3, 2)), None if t == 1 else rng.standard_normal(4)] for t in range(count)]
    return starts, steps


def _decay_apart(w, name, site, case, kwargs, run, failure):
    """A weight-decay part that failed: judge the decay term on its own. When the same
    update without weight decay is wrong too (a mistake another part charges) and the decay
    term is right (the update with decay equals the update without it on g + λ·p), the
    part passes: one mistake is charged once. Otherwise the message says which is wrong."""
    plain = {**case, "weight_decay": 0.0}
    seen = _run(w, name, site, f"{name} without weight decay", plain, {**kwargs, "weight_decay": 0.0})
    plain_right = np.array_equal(seen["idle"], np.ones(2)) and _trajectory_matches(seen["history"], run(**plain))
    if plain_right:
        raise CheckFailure(f"{failure} The same steps without weight decay are right, so the decay term is wrong: "
                           f"weight_decay={kwargs['weight_decay']} adds weight_decay * p to each gradient before the "
                           "update (L2 decay, as torch.optim does).", failure.mistake, kind=failure.kind) from None
    runs = _run(w, name, site, f"{name} with weight decay, and without it on g + weight_decay * p", case, kwargs,
                "optimizer_decay_folded")
    starts = case["starts"]
    moved = any(isinstance(p, np.ndarray) and p.shape == np.shape(s) and not np.allclose(p, s)
                for p, s in zip(runs["decay"], starts))
    folded = all(isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                 and np.allclose(a, b, rtol=1e-9, atol=1e-12) for a, b in zip(runs["decay"], runs["folded"]))
    if not (moved and folded):
        raise CheckFailure(f"{failure} The update without weight decay is wrong too (another part says how), and the "
                           "decay term is not right either: weight_decay adds weight_decay * p to each gradient "
                           "before the update.", failure.mistake, kind=failure.kind) from None


def _optimizer_part(name, site, settings, label, lrs, run, scale=1.0):
    """A part: ``run(**case)``, the right trajectory of a case made of a random schedule,
    ``lrs`` and ``settings`` (weight_decay and momentum, or betas and eps)."""
    def judge(w, rng):
        starts, steps = _schedule(rng, len(lrs))
        steps = [[g * scale if g is not None else None for g in grads] for grads in steps]
        case = {"starts": starts, "grads": steps, "lrs": list(lrs), **settings}
        kwargs = {**settings, "lr": lrs[0]}
        try:
            seen = _optimizer(w, name, site, case, kwargs, run, label)
        except CheckFailure as failure:
            if not settings["weight_decay"]:  # a repair search on this case and a fresh one
                starts, steps = _schedule(np.random.default_rng(23), len(lrs))
                fresh = {**case, "starts": starts, "grads": [[g * scale if g is not None else None for g in grads]
                                                              for grads in steps]}
                calls = [{"name": name, "starts": c["starts"], "steps": c["grads"], "kwargs": kwargs, "lrs": c["lrs"]}
                         for c in (case, fresh)]
                adam = name == "Adam"  # Adam's edits must keep state["step"] the number of steps taken, too
                raise located_value(failure, w, f"optim.{name}.step", "optimizer", calls, [run(**case), run(**fresh)],
                                    right=_counts_as if adam else _moves_as,
                                    fields=MOVES + (("state_steps",) if adam else ())) from None
            _decay_apart(w, name, site, case, kwargs, run, failure)
        else:
            if not settings["weight_decay"] and not settings.get("momentum"):  # one part charges it
                _in_place(name, label, seen.get("held"), seen["history"])
            if name == "SGD" and settings.get("momentum") and not settings["weight_decay"]:
                _state_keys(label, seen.get("state_keys"))
            if name == "Adam" and not settings["weight_decay"]:
                _step_counts(label, seen.get("state_steps"), len(lrs))
    return judge


MOVES = ("history", "idle")  # what _moves_as reads of the probe's answer: a search's edits send only these


def _moves_as(seen, expected) -> bool:
    """Whether an optimizer's run (the probe's answer) took exactly the ``expected`` steps."""
    return isinstance(seen, dict) and isinstance(seen.get("idle"), np.ndarray) and \
        np.array_equal(seen["idle"], np.ones(2)) and isinstance(seen.get("history"), list) and \
        _trajectory_matches(seen["history"], expected)


def _counts_as(seen, expected) -> bool:
    """An Adam run that took exactly the ``expected`` steps, with state["step"] the number each parameter took."""
    return _moves_as(seen, expected) and seen.get("state_steps", [])[:2] == [len(expected), len(expected) - 1]


SGD_LRS = [0.1, 0.1, 0.04, 0.04, 0.2]


def _sgd_part(momentum, decay):
    return _optimizer_part("SGD", "sgd", {"momentum": momentum, "weight_decay": decay},
                           f"lr=0.1, momentum={momentum}, weight_decay={decay}", SGD_LRS, sgd_run)


part("6.2", "plain")(_sgd_part(0.0, 0.0))
part("6.2", "momentum")(_sgd_part(0.7, 0.0))  # 1 - momentum is not lr: a dampened buffer and lr in it differ
part("6.2", "weight decay")(_sgd_part(0.8, 0.05))

ADAM_LRS = [0.01, 0.01, 0.003, 0.003, 0.02, 0.02]


def _adam_part(betas, decay, eps):
    return _optimizer_part("Adam", "adam", {"betas": betas, "eps": eps, "weight_decay": decay},
                           f"lr=0.01, betas={betas}, weight_decay={decay}, eps={eps}", ADAM_LRS, adam_run,
                           scale=1e-3)  # small gradients: eps matters


part("6.3", "bias correction")(_adam_part((0.9, 0.999), 0.0, 1e-3))
part("6.3", "weight decay")(_adam_part((0.8, 0.95), 0.1, 1e-8))
