"""The course's tasks and how their points are shared: the one list that the grader, the
course, the reports and the tests use.

Each task's points are split into *parts* (one rule, one case, one property), each
checked on its own, so that a one-op slip costs that op's share, not the whole task.
"""

TASKS: dict[str, str] = {
    "1.1": "central_difference",
    "1.2": "local derivatives of the scalar ops",
    "1.3": "topological order",
    "1.4": "backpropagation with accumulation",
    "2.1": "broadcast_shapes",
    "2.2": "unbroadcast",
    "2.3": "backward of the binary elementwise ops",
    "3.1": "backward of the unary ops",
    "3.2": "sum and mean",
    "3.3": "max and min",
    "4.1": "reshape, transpose, broadcast_to, squeeze, unsqueeze",
    "4.2": "__getitem__",
    "4.3": "cat and stack",
    "5.1": "matmul",
    "5.2": "GELU",
    "5.3": "logsumexp, log_softmax, softmax",
    "5.4": "cross-entropy",
    "6.1": "Module, Linear, MLP",
    "6.2": "SGD",
    "6.3": "Adam",
    "6.4": "the training loop",
    "7.1": "layer_norm's fused backward",
    "7.2": "causal multi-head self-attention",
    "7.3": "the Block and GPT modules",
    "7.4": "the training step and sampling",
}

# task -> {part: points}. A part earns all of its points, half of them (the maths is right
# but float32 inputs get float64 gradients), or none.
PARTS: dict[str, dict[str, float]] = {
    "1.1": {"values": 1, "two-sided difference": 1},
    "1.2": {"add, sub, neg": 0.5, "mul": 0.5, "div": 0.5, "pow": 0.5, "exp, log": 0.5, "sin, cos": 0.5,
            "tanh, sigmoid": 0.5, "relu": 0.5},
    "1.3": {"a valid order": 2, "deep graphs": 1},
    "1.4": {"sums contributions": 2, "accumulates across calls": 1, "tensor graphs": 1},
    "2.1": {"matches NumPy": 1, "raises on a clash": 1},
    "2.2": {"missing leading axes": 1, "stretched size-1 axes": 1, "both at once": 1, "float32, no side effects": 1},
    "2.3": {"Sub": 1, "Mul": 1, "Div": 1, "Pow": 1, "Maximum": 1, "Minimum": 1},
    "3.1": {"Exp": 0.5, "Log": 0.5, "Sqrt": 0.5, "Abs": 0.5, "Sin": 0.5, "Cos": 0.5, "Tanh": 0.5,
            "Sigmoid": 0.5, "Relu": 0.5},
    "3.2": {"Sum": 2, "Mean": 2},
    "3.3": {"without ties": 1.5, "ties": 1.5},
    "4.1": {"Reshape": 1, "Transpose": 1, "BroadcastTo": 1, "Squeeze": 0.5, "Unsqueeze": 0.5},
    "4.2": {"ints, slices, None, Ellipsis": 2, "repeated integer indices": 1, "boolean masks": 1},
    "4.3": {"Cat": 1.5, "Stack": 1.5},
    "5.1": {"2-D": 1, "1-D operands": 1, "batched": 2, "non-contiguous operands": 1},
    "5.2": {"exact": 1.5, "tanh": 1.5},
    "5.3": {"stable_logsumexp": 1, "LogSumExp": 1, "LogSoftmax": 1, "Softmax": 1},
    "5.4": {"class indices": 2, "probabilities": 2},
    "6.1": {"parameters": 1.5, "Linear": 1.5, "MLP": 1},
    "6.2": {"plain": 1, "momentum": 1, "weight decay": 1},
    "6.3": {"bias correction": 2, "weight decay": 1},
    "6.4": {"order of calls": 2, "batches and the mean": 1},
    "7.1": {"gradient for x": 2, "gradients for weight and bias": 1},
    "7.2": {"one head": 1, "several heads": 1, "causal": 1},
    "7.3": {"Block": 1.5, "GPT": 1.5},
    "7.4": {"training step": 1, "greedy sampling": 1, "temperature": 1},
}

POINTS: dict[str, float] = {t: sum(parts.values()) for t, parts in PARTS.items()}

# Which notebook (and nbgrader assignment) introduces each stage's tasks.
STAGES: dict[str, str] = {
    "1": "01_chain_rule", "2": "02_broadcasting", "3": "03_reductions",
    "4": "04_indexing", "5": "05_matmul_softmax", "6": "06_training", "7": "07_gpt",
}


def stage_of(task: str) -> str:
    return task.split(".")[0]


def tasks_of(stage: str) -> list[str]:
    return [t for t in TASKS if stage_of(t) == stage]


def marker(task: str) -> str:
    """The pytest marker and nbgrader grade id of a task: "2.3" -> "task2_3"."""
    return "task" + task.replace(".", "_")
