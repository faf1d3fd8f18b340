"""Neural-network modules, as in ``torch.nn``: each a Python object holding its Parameters,
called on Tensors. Every one is ``mt.nn.X``; they are defined in two files:

* ``nn/modules.py`` (stage 6): ``Module``, ``Parameter``, ``Linear``, ``MLP``;
* ``nn/transformer.py`` (stage 7): ``Embedding``, ``LayerNorm``, ``CausalSelfAttention``,
  ``Block``, ``GPT``.
"""

from .modules import ACTIVATIONS, MLP, Linear, Module, Parameter, manual_seed
from .transformer import GPT, Block, CausalSelfAttention, Embedding, LayerNorm

__all__ = ["Module", "Parameter", "Linear", "MLP", "ACTIVATIONS", "manual_seed",
           "Embedding", "LayerNorm", "CausalSelfAttention", "Block", "GPT"]
