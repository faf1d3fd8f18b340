"""Stand-ins: what a check swaps into the learner's package in place of an earlier task's
code (``probe_declarations.py``). A stand-in computes nothing: it sends its arguments to the
grader over the pipe and returns the grader's answer (``boundary/given.py``).

The grader answers only while a call that swapped that helper in is in progress; a
stand-in called at any other time (captured in one check and called in another, copied,
wrapped) gets a refusal, raised here as ``GraderVersionRefused``, and the grader charges the
call that made it whatever the learner's code then does.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from grader.boundary import wire

CHANNEL: list[int] = []  # the requests' and answers' file descriptors (process.main sets them)


class GraderVersionRefused(RuntimeError):
    """The grader refused to lend its own version of an earlier task here."""


def _ask(helper: str, args: dict, questions: Callable[[Any], Any] | None = None) -> Any:
    requests, answers = CHANNEL
    wire.send(answers, {"ask": helper, "args": args})
    while True:
        reply = wire.receive(requests)
        if "question" in reply and questions is not None:
            wire.send(answers, {"reply": questions(reply["question"])})
        elif "given" in reply:
            return reply["given"]
        elif "unusable" in reply:
            raise ValueError(str(reply["unusable"]))
        else:
            raise GraderVersionRefused(str(reply.get("refused", "the grader did not answer")))


def _data(value: Any) -> Any:
    return None if value is None else np.asarray(getattr(value, "data", value))


def _tensor(like: Any, array: np.ndarray) -> Any:
    """``array`` as a Tensor of the learner's package (of the input's own class if it is one)."""
    cls = type(like) if hasattr(like, "data") else sys.modules["minitorch"].Tensor
    return cls(array)


def unbroadcast(grad: Any, shape: Any) -> np.ndarray:
    grad = np.asarray(grad)
    answer = _ask("unbroadcast", {"grad": grad, "shape": [int(n) for n in shape]})
    return grad.reshape(answer["reshape"]) if isinstance(answer, dict) else answer  # nothing summed: a view


def stable_logsumexp(x: Any, axes: Any) -> np.ndarray:
    return _ask("stable_logsumexp", {"x": np.asarray(x), "axes": axes})


def topological_order(root: Any) -> list:
    """The grader walks the graph, asking for each node's parents by number."""
    nodes, numbers = [root], {id(root): 0}

    def parents_of(k: Any) -> list[int]:
        found = []
        for parent in getattr(nodes[int(k)], "parents", ()):
            if id(parent) not in numbers:
                numbers[id(parent)] = len(nodes)
                nodes.append(parent)
            found.append(numbers[id(parent)])
        return found

    return [nodes[i] for i in _ask("topological_order", {}, parents_of)]


def linear_init(self: Any, in_features: Any, out_features: Any, bias: bool = True, dtype: Any = None) -> None:
    made = _ask("linear_init", {"in_features": int(in_features), "out_features": int(out_features), "bias": bool(bias)})
    Parameter = sys.modules["minitorch"].nn.Parameter
    self.in_features, self.out_features = int(in_features), int(out_features)
    self.weight = Parameter(made["weight"])
    self.bias = None if made["bias"] is None else Parameter(made["bias"])


def _layer(layer: Any) -> list:
    return [_data(layer.weight), _data(getattr(layer, "bias", None))]


def linear_forward(self: Any, x: Any) -> Any:
    weight, bias = _layer(self)
    return _tensor(x, _ask("linear_forward", {"x": _data(x), "weight": weight, "bias": bias}))


def _attention_layers(attn: Any) -> dict:
    return {name: _layer(getattr(attn, name)) for name in ("query", "key", "value", "proj")}


def attention(self: Any, x: Any) -> Any:
    return _tensor(x, _ask("attention", {"x": _data(x), "heads": int(self.heads), "layers": _attention_layers(self)}))


def block(self: Any, x: Any) -> Any:
    norms = {name: [*_layer(getattr(self, name)), float(getattr(getattr(self, name), "eps", 1e-5))]
             for name in ("ln1", "ln2")}
    layers = {**norms, "attn": _attention_layers(self.attn), "up": _layer(self.up), "down": _layer(self.down)}
    return _tensor(x, _ask("block", {"x": _data(x), "heads": int(self.attn.heads), "layers": layers}))


STAND_INS: dict[str, Callable[..., Any]] = {
    "unbroadcast": unbroadcast, "stable_logsumexp": stable_logsumexp, "topological_order": topological_order,
    "linear_init": linear_init, "linear_forward": linear_forward, "attention": attention, "block": block,
}
