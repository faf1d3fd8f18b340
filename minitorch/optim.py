"""Optimizers: turn each parameter's ``.grad`` into a step, with the update formulas of
``torch.optim`` (so the same hyper-parameters behave the same way).

SGD, for gradient g of parameter p, learning rate lr:

    g = g + weight_decay * p                 (L2 penalty)
    b = g               on the first step,   b = momentum * b + g   after   (if momentum)
    p = p - lr * b                           (p - lr * g without momentum)

Adam, at step t = 1, 2, ...:

    g = g + weight_decay * p
    m = β1 m + (1 - β1) g                    v = β2 v + (1 - β2) g²
    p = p - lr / (1 - β1^t) * m / (√v / √(1 - β2^t) + eps)
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from .nn import Parameter


class Optimizer:
    """Holds the parameters; ``step()`` updates them in place, ``zero_grad()`` clears
    their gradients. A parameter whose ``.grad`` is None is left alone."""

    def __init__(self, params: Iterable[Parameter], lr: float) -> None:
        self.params = list(params)
        if not self.params:
            raise ValueError(f"{type(self).__name__} got no parameters to optimize")
        if lr < 0:
            raise ValueError(f"learning rate must be >= 0, got {lr}")
        self.lr = lr
        self.state: list[dict[str, np.ndarray]] = [{} for _ in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        raise NotImplementedError


class SGD(Optimizer):
    def __init__(self, params: Iterable[Parameter], lr: float, momentum: float = 0.0,
                 weight_decay: float = 0.0) -> None:
        super().__init__(params, lr)
        self.momentum, self.weight_decay = momentum, weight_decay

    def step(self) -> None:
        for p, state in zip(self.params, self.state):
            if p.grad is None:
                continue
            # Task 6.2: SGD.step (state["momentum_buffer"] holds b)
            raise NotImplementedError("Task 6.2: SGD.step (state[\"momentum_buffer\"] holds b)")


class Adam(Optimizer):
    def __init__(self, params: Iterable[Parameter], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0) -> None:
        super().__init__(params, lr)
        self.betas, self.eps, self.weight_decay = betas, eps, weight_decay

    def step(self) -> None:
        beta1, beta2 = self.betas
        for p, state in zip(self.params, self.state):
            if p.grad is None:
                continue
            # Task 6.3: Adam.step (state holds "step", "m" and "v")
            raise NotImplementedError("Task 6.3: Adam.step (state holds \"step\", \"m\" and \"v\")")
