"""Neural-network modules, as in ``torch.nn``: each a Python object holding its Parameters,
called on Tensors.

==================  ==================================================  =======
file                defines                                             stage
==================  ==================================================  =======
``modules.py``      ``Module``, ``Parameter``, ``Linear``, ``MLP``      6
``transformer.py``  ``Embedding``, ``LayerNorm``, ``CausalSelfAttention``,  7
                    ``Block``, ``GPT``
==================  ==================================================  =======
"""

from .modules import ACTIVATIONS, MLP, Linear, Module, Parameter, manual_seed
from .transformer import GPT, Block, CausalSelfAttention, Embedding, LayerNorm

__all__ = ["Module", "Parameter", "Linear", "MLP", "ACTIVATIONS", "manual_seed",
           "Embedding", "LayerNorm", "CausalSelfAttention", "Block", "GPT"]
