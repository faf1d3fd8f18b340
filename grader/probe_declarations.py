"""Every probe the learner's process serves, declared as data: the package names it reaches
and the given helpers it swaps in. Both sides read this table and nothing else about a probe:

* the grader's side (``boundary/runner.py``) checks each call against the manifest's
  declaration for the task being checked, and answers a stand-in's request for a given
  helper only when the call in progress swaps that helper in (here, or in its ``swaps``
  argument);
* the learner's process (``learner/probes*.py``) registers one function for each name
  here (a test holds the two sets equal) and swaps in exactly the helpers listed.

``{name}`` in a used name is filled from the call's string argument ``name``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

LINEAR = {"nn.Linear.__init__": "linear_init", "nn.Linear.forward": "linear_forward"}
# stage 7's modules are built and run with a given Linear (Task 6.1) and a given stable
# logsumexp under softmax (Task 5.3); a Block with a given attention (Task 7.2), a GPT with
# a given Block: each earlier bug is charged once.
EARLIER = {**LINEAR, "ops_softmax.stable_logsumexp": "stable_logsumexp"}
WITH_ATTENTION = {**EARLIER, "nn.CausalSelfAttention.forward": "attention"}
WITH_BLOCK = {**WITH_ATTENTION, "nn.Block.forward": "block"}


@dataclass(frozen=True)
class Probe:
    uses: tuple[str, ...] = ()
    swaps: Mapping[str, str] = field(default_factory=dict)  # package name -> given helper

    def __post_init__(self) -> None:
        object.__setattr__(self, "swaps", MappingProxyType(dict(self.swaps)))


PROBES: dict[str, Probe] = {
    # probes.py: one rule, one call, stage 1's engine
    "rule": Probe(("{function}",)),
    "call": Probe(("{function}",)),
    # probes_repair.py: the repair search's edits of one rule
    "rule_edits": Probe(("{function}",)),
    "call_edits": Probe(("{function}",)),
    "dtype_origin": Probe(("{function}",)),
    "call_dtype_origin": Probe(("{function}",)),
    "value_origin": Probe(("{function}",)),
    "nan_origin": Probe(("{function}",)),
    "unbroadcast_effects": Probe(("unbroadcast",)),
    "central_difference": Probe(("central_difference",)),
    "scalar_op": Probe(("Scalar",)),
    "topological": Probe(("topological_order",)),
    "chain": Probe(("topological_order",)),
    "backpropagate": Probe(("backpropagate",), {"autodiff.topological_order": "topological_order"}),
    "tensor_graph": Probe(("Tensor",), {"ops_binary.unbroadcast": "unbroadcast",
                                        "autodiff.topological_order": "topological_order"}),
    # probes_modules.py: modules, optimizers, the training loop
    "parameters": Probe(("nn.Module", "nn.Parameter")),
    "linear": Probe(("manual_seed", "nn.Linear", "nn.Parameter")),
    "linear_seeded": Probe(("manual_seed", "nn.Linear")),
    "mlp": Probe(("nn.MLP",), LINEAR),
    "optimizer": Probe(("nn.Parameter", "optim.{name}")),
    "optimizer_decay_folded": Probe(("nn.Parameter", "optim.{name}")),
    "train_epoch": Probe(("training.train_epoch",)),
    # probes_gpt.py: stage 7
    "attention": Probe(("nn.CausalSelfAttention",), EARLIER),
    "block": Probe(("nn.Block",), WITH_ATTENTION),
    "gpt": Probe(("nn.GPT",), WITH_BLOCK),
    "sample": Probe(("nn.GPT.generate",)),
    "sample_next": Probe(("language.sample_next",)),
    "train_steps": Probe(("language.train", "nn.Module", "nn.Parameter")),
    # process.py: files of the package that no import reached
    "unused_files": Probe(),
}
