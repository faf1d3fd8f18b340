"""Probes of stage 7: the learner's attention, blocks, GPT, training step and sampling,
with weights the grader chose. Like ``probes.py``: observations only. Each module is
built and run with the stand-ins its declaration swaps in (``probe_declarations.py``):
a given Linear and stable logsumexp, then attention, then the whole Block."""

from __future__ import annotations

import numpy as np

from grader.learner.probes import given, plain, probe, swaps_of


def _load(mt, module, weights: dict) -> None:
    """Set the parameters named in ``weights`` ("attn.query.weight": array, ...)."""
    for name, value in weights.items():
        owner = module
        *path, last = name.split(".")
        for part in path:
            owner = owner[int(part)] if isinstance(owner, list) else getattr(owner, part)
        getattr(owner, last).data = np.array(value)


@probe
def attention(mt, dim: int, heads: int, weights: dict, xs: list) -> dict:
    """The outputs for each of ``xs``, and ``last_attention`` after the last of them."""
    with given(mt, swaps_of("attention")):
        attn = mt.nn.CausalSelfAttention(dim, heads)
        _load(mt, attn, weights)
        outs = [plain(np.asarray(attn(mt.Tensor(x)).data)) for x in xs]
    kept = getattr(attn, "last_attention", None)
    kind = None if kept is None or isinstance(kept, np.ndarray) else type(kept).__name__  # the task asks for an ndarray
    kept = getattr(kept, "data", kept)  # a Tensor's weights are judged too (its type is said apart)
    try:
        kept = None if kept is None else np.asarray(kept, dtype=np.float64)
    except (TypeError, ValueError):
        kept = None
    return {"outs": outs, "last_attention": kept, "last_attention_type": kind}


@probe
def block(mt, dim: int, heads: int, weights: dict, x: np.ndarray) -> dict:
    with given(mt, swaps_of("block")):
        b = mt.nn.Block(dim, heads)
        _load(mt, b, weights)
        return {"out": plain(np.asarray(b(mt.Tensor(x)).data)), "count": len(list(b.parameters()))}


@probe
def gpt(mt, sizes: dict, weights: dict, idx: list) -> dict:
    with given(mt, swaps_of("gpt")):
        model = mt.nn.GPT(**sizes)
        _load(mt, model, weights)
        return {"out": [plain(np.asarray(model(i).data)) for i in idx], "count": len(list(model.parameters())),
                "numbers": int(sum(np.asarray(p.data).size for p in model.parameters()))}


class _FixedLogits:
    """A stand-in model: the same logits at every position; records the widths it saw."""

    def __init__(self, mt, logits: np.ndarray, block_size: int) -> None:
        self.mt, self.logits, self.block_size = mt, logits, block_size
        self.widths: list[int] = []

    def __call__(self, idx):
        idx = np.asarray(getattr(idx, "data", idx))
        self.widths.append(int(idx.shape[1]))
        per_row = self.logits if self.logits.ndim == 1 else self.logits[:, None, :]  # (V,) or one row each (B, V)
        return self.mt.Tensor(np.broadcast_to(per_row, (*idx.shape, self.logits.shape[-1])).copy())


@probe
def sample(mt, logits: np.ndarray, rows: int, steps: int, temperature: float, seed: int, block_size: int,
           global_seed: int = 0) -> dict:
    """``GPT.generate`` on a stand-in model; NumPy's global generator is seeded with
    ``global_seed`` first, so that a draw that ignores ``rng`` shows as a changed result."""
    stand_in = _FixedLogits(mt, logits, block_size)
    start = np.zeros((rows, 2), dtype=np.int64)
    np.random.seed(global_seed)
    out = mt.nn.GPT.generate(stand_in, start, steps, temperature=temperature, rng=np.random.default_rng(seed))
    return {"out": plain(np.asarray(out)), "widths": stand_in.widths}


@probe
def sample_next(mt, logits: np.ndarray, temperature: float, seed: int) -> object:
    """``language.sample_next`` itself, on a batch of rows of logits."""
    return plain(np.asarray(mt.language.sample_next(np.array(logits), temperature, np.random.default_rng(seed))))


@probe
def train_steps(mt, steps: int, block_size: int, batch_size: int) -> dict:
    """The learner's ``language.train`` with stand-ins for the model, the loss and the
    optimizer: no rule of an earlier task runs, so only the loop itself is checked. The
    loop may clear the gradients through the optimizer, the model or its parameters, and
    compute the loss with ``loss_on`` or ``cross_entropy`` itself; each is recorded."""
    calls, inputs, targets = [], [], []

    class Loss:
        data = np.float64(1.0)

        def backward(self, *args):
            calls.append("backward")

        def item(self):
            return 1.0

        def __float__(self):
            return 1.0

    class Logits:  # what the model returns: a shape, and reshape
        def __init__(self, shape):
            self.shape = tuple(shape)
            self.ndim = len(self.shape)

        def reshape(self, *shape):
            return Logits(shape[0] if len(shape) == 1 and isinstance(shape[0], tuple) else shape)

    class Parameter:
        @property
        def grad(self):
            return None

        @grad.setter
        def grad(self, value):
            calls.append("zero_grad")

    class Model:
        def __call__(self, x):
            calls.append("forward")
            inputs.append(list(np.shape(getattr(x, "data", x))))
            return Logits(np.shape(getattr(x, "data", x)) + (5,))

        forward = __call__

        def parameters(self):
            return [Parameter()]

        def zero_grad(self):
            calls.append("zero_grad")

    def loss_on(model, x, y):
        model(x)
        targets.append(int(np.size(getattr(y, "data", y))))
        return Loss()

    def cross_entropy(logits, target, *args, **kwargs):
        targets.append(int(np.size(getattr(target, "data", target))))
        return Loss()

    class Optimizer:
        def zero_grad(self):
            calls.append("zero_grad")

        def step(self):
            calls.append("step")

    swapped = [(mt.language, "loss_on", loss_on), (mt.language, "cross_entropy", cross_entropy),
               (mt.losses, "cross_entropy", cross_entropy), (mt, "cross_entropy", cross_entropy)]
    saved = [(module, name, getattr(module, name)) for module, name, _ in swapped if hasattr(module, name)]
    try:
        for module, name, stand_in in swapped:
            setattr(module, name, stand_in)
        losses = mt.language.train(Model(), Optimizer(), np.arange(200) % 5, steps, block_size, batch_size,
                                   np.random.default_rng(0))
    finally:
        for module, name, value in saved:
            setattr(module, name, value)
    return {"calls": calls, "inputs": inputs, "targets": targets, "losses": plain([float(v) for v in losses])}
