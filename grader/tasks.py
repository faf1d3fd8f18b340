"""The course's task ids: the one list the release builder, the grader and the tests share."""

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
}


def marker(task: str) -> str:
    """The pytest marker of a task id: "2.3" -> "task2_3"."""
    return "task" + task.replace(".", "_")


# Points of each task's graded cell (visible checks and hidden tests together). A cell
# scores all of its points or none; each stage is worth 11 to 16 points, 76 in all.
POINTS: dict[str, int] = {
    "1.1": 2, "1.2": 4, "1.3": 3, "1.4": 4,
    "2.1": 2, "2.2": 4, "2.3": 6,
    "3.1": 4, "3.2": 4, "3.3": 3,
    "4.1": 4, "4.2": 4, "4.3": 3,
    "5.1": 5, "5.2": 3, "5.3": 4, "5.4": 4,
    "6.1": 4, "6.2": 3, "6.3": 3, "6.4": 3,
}

def cell_points(task: str) -> dict[str, int]:
    """The graded cells of a task and their points: 1 for the visible checks, the rest hidden."""
    return {f"{marker(task)}_visible": 1, marker(task): POINTS[task] - 1}


# Which notebook (nbgrader assignment) introduces each stage's tasks.
STAGES: dict[str, str] = {
    "1": "01_chain_rule", "2": "02_broadcasting", "3": "03_reductions",
    "4": "04_indexing", "5": "05_matmul_softmax", "6": "06_training",
}
