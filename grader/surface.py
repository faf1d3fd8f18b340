"""The graded surface: the names of the learner's package that each task's checks call
(``CALLS``) or swap for given versions while checking a later task (``SWAPS``).

This is a contract with the package: a test resolves every name in the reference and in
the learner's release, and checks that each swap really reaches the code that uses it
(that the module looks the name up when it runs). Moving an import so that a swap no
longer takes effect would quietly charge an earlier task's bug to a later one; the test
stops that.
"""

CALLS: dict[str, list[str]] = {
    "1.1": ["central_difference"],
    "1.2": ["Scalar"],
    "1.3": ["topological_order"],
    "1.4": ["backpropagate", "Tensor"],
    "2.1": ["broadcast_shapes"],
    "2.2": ["unbroadcast"],
    "2.3": [f"ops_binary.{op}" for op in ("Sub", "Mul", "Div", "Pow", "Maximum", "Minimum")],
    "3.1": [f"ops_unary.{op}" for op in ("Exp", "Log", "Sqrt", "Abs", "Sin", "Cos", "Tanh", "Sigmoid", "Relu")],
    "3.2": ["ops_reduce.Sum", "ops_reduce.Mean"],
    "3.3": ["ops_reduce.Max", "ops_reduce.Min"],
    "4.1": [f"ops_shape.{op}" for op in ("Reshape", "Transpose", "BroadcastTo", "Squeeze", "Unsqueeze")],
    "4.2": ["ops_index.GetItem"],
    "4.3": ["ops_index.Cat", "ops_index.Stack"],
    "5.1": ["ops_linalg.MatMul"],
    "5.2": ["ops_activation.Gelu"],
    "5.3": ["ops_softmax.stable_logsumexp", "ops_softmax.LogSumExp", "ops_softmax.LogSoftmax", "ops_softmax.Softmax"],
    "5.4": ["losses.CrossEntropy"],
    "6.1": ["nn.Module", "nn.Parameter", "nn.Linear", "nn.MLP", "manual_seed"],
    "6.2": ["optim.SGD"],
    "6.3": ["optim.Adam"],
    "6.4": ["training.train_epoch"],
    "7.1": ["ops_norm.LayerNorm"],
    "7.2": ["nn.CausalSelfAttention"],
    "7.3": ["nn.Block", "nn.GPT"],
    "7.4": ["language.train", "nn.GPT.generate", "nn.Module", "nn.Parameter"],
}
ALWAYS = ["function.Context"]  # every rule is called with one

# name swapped -> (the given helper in probes.GIVEN, a call whose result depends on it)
SWAPS: dict[str, str] = {
    "autodiff.topological_order": "topological_order",
    "ops_binary.unbroadcast": "unbroadcast",
    "ops_shape.unbroadcast": "unbroadcast",
    "ops_linalg.unbroadcast": "unbroadcast",
    "ops_softmax.stable_logsumexp": "stable_logsumexp",
    "nn.Linear.__init__": "linear_init",
    "nn.Linear.forward": "linear_forward",
    "nn.CausalSelfAttention.forward": "attention",
    "nn.Block.forward": "block",
}
