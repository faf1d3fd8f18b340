"""Every name of the API contract (docs/API.md) exists with the documented signature."""

import inspect

import numpy as np
import pytest

import minitorch as mt

FUNCTIONS = {
    "central_difference": ["f", "values", "arg", "eps"],
    "broadcast_shapes": ["shapes"], "unbroadcast": ["grad", "shape"],
    "maximum": ["a", "b"], "minimum": ["a", "b"], "matmul": ["a", "b"],
    "exp": ["x"], "log": ["x"], "sqrt": ["x"], "abs": ["x"], "sin": ["x"], "cos": ["x"],
    "tanh": ["x"], "sigmoid": ["x"], "relu": ["x"],
    "sum": ["x", "axis", "keepdims"], "mean": ["x", "axis", "keepdims"],
    "max": ["x", "axis", "keepdims"], "min": ["x", "axis", "keepdims"],
    "cat": ["tensors", "axis"], "stack": ["tensors", "axis"],
    "gelu": ["x", "approximate"], "softmax": ["x", "axis"], "log_softmax": ["x", "axis"],
    "logsumexp": ["x", "axis", "keepdims"], "cross_entropy": ["logits", "target", "reduction"],
    "mse_loss": ["pred", "target", "reduction"],
    "gradcheck": ["fn", "inputs", "eps", "atol", "rtol"],
    "numerical_grads": ["fn", "arrays", "upstream", "eps"],
    "where": ["condition", "a", "b"], "layer_norm": ["x", "weight", "bias", "eps"],
}
TENSOR_MEMBERS = ["data", "shape", "ndim", "size", "dtype", "requires_grad", "grad", "grad_fn",
                  "item", "numpy", "detach", "zero_grad", "backward", "exp", "log", "sqrt", "abs",
                  "sin", "cos", "tanh", "sigmoid", "relu", "sum", "mean", "max", "min", "reshape",
                  "transpose", "T", "broadcast_to", "squeeze", "unsqueeze", "flatten",
                  "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                  "__truediv__", "__rtruediv__", "__pow__", "__matmul__", "__neg__", "__getitem__"]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_function_exists_with_its_parameters(name):
    parameters = list(inspect.signature(getattr(mt, name)).parameters)
    assert parameters[:len(FUNCTIONS[name])] == FUNCTIONS[name]


def test_defaults_match_the_contract():
    def defaults(fn):
        return {k: v.default for k, v in inspect.signature(fn).parameters.items()
                if v.default is not inspect.Parameter.empty}
    assert defaults(mt.central_difference) == {"arg": 0, "eps": 1e-6}
    assert defaults(mt.gradcheck)["eps"] == 1e-6 and defaults(mt.gradcheck)["atol"] == 1e-5
    assert defaults(mt.gradcheck)["rtol"] == 1e-3
    assert defaults(mt.logsumexp) == {"axis": None, "keepdims": False}
    assert defaults(mt.softmax) == {"axis": -1} and defaults(mt.log_softmax) == {"axis": -1}
    assert defaults(mt.cross_entropy) == {"reduction": "mean"} and defaults(mt.gelu) == {"approximate": "none"}
    assert defaults(mt.optim.Adam) == {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0}
    assert defaults(mt.optim.SGD) == {"momentum": 0.0, "weight_decay": 0.0}
    assert defaults(mt.nn.Linear)["bias"] is True and defaults(mt.nn.MLP)["activation"] == "relu"
    assert defaults(mt.Tensor) == {"requires_grad": False, "dtype": None}
    assert defaults(mt.Scalar)["name"] == ""


def test_classes_and_members_exist():
    t = mt.Tensor(np.ones((2, 1)))
    for member in TENSOR_MEMBERS:
        assert hasattr(t, member), member
    s = mt.Scalar(1.0)
    for member in ["data", "grad", "backward", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu",
                   "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                   "__truediv__", "__rtruediv__", "__pow__", "__neg__"]:
        assert hasattr(s, member), member
    assert issubclass(mt.nn.Parameter, mt.Tensor) and mt.nn.Parameter([1.0]).requires_grad
    for name in ["Module", "Linear", "MLP"]:
        assert isinstance(getattr(mt.nn, name), type)
    for name in ["SGD", "Adam"]:
        assert hasattr(getattr(mt.optim, name), "step") and hasattr(getattr(mt.optim, name), "zero_grad")
    with mt.no_grad():
        pass


def test_stage_7_names_and_signatures():
    for name, params in {"Embedding": ["num_embeddings", "embedding_dim"], "LayerNorm": ["dim", "eps"],
                         "CausalSelfAttention": ["dim", "heads"], "Block": ["dim", "heads"],
                         "GPT": ["vocab_size", "block_size", "dim", "heads", "layers"]}.items():
        cls = getattr(mt.nn, name)
        assert list(inspect.signature(cls.__init__).parameters)[1:] == params, name
    assert list(inspect.signature(mt.nn.GPT.generate).parameters)[1:] == ["idx", "steps", "temperature", "rng"]
    gpt = mt.nn.GPT(5, 4)
    assert (gpt.block_size, len(gpt.blocks)) == (4, 2) and mt.nn.LayerNorm(3).eps == 1e-5
    assert isinstance(mt.datasets.names(), list)


def test_the_course_rooms_two_public_names_are_the_rooms_own():
    """``mt.hint`` and ``mt.plotting`` live in the course's room (minitorch/course/) and stay
    reachable from the top, as before the room existed."""
    import minitorch.course.hints
    import minitorch.course.plotting
    assert mt.plotting is minitorch.course.plotting and mt.hint is minitorch.course.hints.hint
    assert {"hint", "plotting"} <= set(mt.__all__) and callable(mt.plotting.draw_graph)
