"""Stage 1: central differences, the scalar ops' local derivatives, the engine."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.boundary.runner import Raised
from grader.checks import part
from grader.checks.common import CheckFailure, call_learner, explain, learner_raised


@part("1.1", "values")
def central_difference_values(w, rng):
    for x in rng.uniform(-2, 2, 4):
        got = call_learner(w, "central_difference", f"central_difference(sin, {x:.3g})", f="sin", values=[float(x)], kwargs={})
        explain(f"central_difference(sin, {x:.3g})", np.float64(got), np.float64(math.cos(x)), atol=1e-6)
    got = call_learner(w, "central_difference", "central_difference(f, 1.5, -2.0, 3.0, arg=1)", f="poly",
                values=[1.5, -2.0, 3.0], kwargs={"arg": 1})
    explain("central_difference(lambda a, b, c: a*b*b + c, 1.5, -2.0, 3.0, arg=1)", np.float64(got),
            np.float64(-6.0), atol=1e-5)


@part("1.1", "two-sided difference")
def central_difference_is_two_sided(w, rng):
    got = call_learner(w, "central_difference", "central_difference(x*x, 1.0, eps=0.01)", f="square", values=[1.0],
                kwargs={"eps": 1e-2})
    if not isinstance(got, (int, float, np.floating)):
        raise CheckFailure(f"central_difference(x*x, 1.0, eps=0.01) gave {got!r}, expected the number 2", "wrong type")
    got = float(got)
    if abs(got - 2.0) > 1e-9:
        if min(abs(got - 2.01), abs(got - 1.99)) < 1e-9:  # (f(x ± eps) - f(x)) / eps
            hint, pitfall = ("that is a one-sided difference: use (f(x + eps) - f(x - eps)) / (2 eps)",
                             "one-sided difference")
        elif abs(got - 4.0) < 1e-9 or abs(got - 1.0) < 1e-9:
            hint, pitfall = (f"off by a factor of {got / 2:g}: the two points are 2 eps apart, divide by 2 eps",
                             "constant factor")
        else:
            hint, pitfall = "it should be (f(x + eps) - f(x - eps)) / (2 eps)", "wrong values"
        raise CheckFailure(f"central_difference(x*x, 1.0, eps=0.01) gave {got:.6g}, expected exactly 2 (for x*x the "
                           f"central difference has no error): {hint}", pitfall)


SCALAR_PARTS: dict[str, list[Any]] = {  # part: [(op name, float version, sample range)]
    "add, sub, neg": [("a + b", lambda a, b: a + b, (-2, 2)), ("a - b", lambda a, b: a - b, (-2, 2)),
                      ("a + 2", lambda a: a + 2, (-2, 2)), ("2 - a", lambda a: 2 - a, (-2, 2)),
                      ("-a", lambda a: -a, (-2, 2))],
    "mul": [("a * b", lambda a, b: a * b, (-2, 2)), ("3 * a", lambda a: 3 * a, (-2, 2))],
    "div": [("a / b", lambda a, b: a / b, (0.5, 2)), ("2 / a", lambda a: 2 / a, (0.5, 2))],
    "pow": [("a ** 3", lambda a: a ** 3, (-2, 2)), ("a ** -0.5", lambda a: a ** -0.5, (0.5, 2)),
            ("a ** 0", lambda a: a ** 0, (0.5, 2))],
    "exp, log": [("a.exp()", math.exp, (-2, 2)), ("a.log()", math.log, (0.5, 3))],
    "sin, cos": [("a.sin()", math.sin, (-3, 3)), ("a.cos()", math.cos, (-3, 3))],
    "tanh, sigmoid": [("a.tanh()", math.tanh, (-2, 2)), ("a.sigmoid()", lambda a: 1 / (1 + math.exp(-a)), (-3, 3))],
    "relu": [("a.relu()", lambda a: max(a, 0.0), (0.2, 2)), ("a.relu()", lambda a: max(a, 0.0), (-2, -0.2))],
}
KINKS = {  # part: [(op name, the input, its derivative there, why)], where the notebook fixes the answer
    "pow": [("a ** 0", 0.0, 0.0, "a ** 0 is the constant 1, so its derivative is 0, even at a = 0"),
            ("a ** 3", 0.0, 0.0, "3 a ** 2 is 0 at a = 0")],
    "relu": [("a.relu()", 0.0, 0.0, "at exactly 0 relu's derivative is taken to be 0, as in PyTorch")],
}


def _scalar_part(name: str):
    def check(w, rng):
        for op, ref, (lo, hi) in SCALAR_PARTS[name]:
            values = [float(v) for v in rng.uniform(lo, hi, ref.__code__.co_argcount if hasattr(ref, "__code__") else 1)]
            g = float(rng.uniform(0.5, 2))
            value, grads = call_learner(w, "scalar_op", f"the backward of {op} at {values}", name=op, values=values,
                                 upstream=g)
            explain(f"{op} at {values}", np.float64(value), np.float64(ref(*values)), rtol=1e-9)
            for i in range(len(values)):
                up, down = list(values), list(values)
                up[i] += 1e-6
                down[i] -= 1e-6
                expected = g * (ref(*up) - ref(*down)) / 2e-6
                explain(f"the backward of {op} at {values}, input {i}, upstream {g:.3g}", np.float64(grads[i]),
                        np.float64(expected), rtol=1e-5, atol=1e-8)
        for op, value, derivative, why in KINKS.get(name, []):
            _, grads = call_learner(w, "scalar_op", f"the backward of {op} at [{value}]", name=op, values=[value], upstream=2.0)
            explain(f"the backward of {op} at [{value}], upstream 2 ({why})", np.float64(grads[0]),
                    np.float64(2.0 * derivative))
    return check


for _name in SCALAR_PARTS:
    part("1.2", _name)(_scalar_part(_name))


def random_graph(rng, size: int = 40) -> list[list[int]]:
    return [[]] + [sorted(int(i) for i in rng.integers(0, k, int(rng.integers(1, 3)))) for k in range(1, size)]


def trusted_reachable(parents: list[list[int]]) -> set[int]:
    seen, stack = set(), [len(parents) - 1]
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack.extend(parents[n])
    return seen


@part("1.3", "a valid order")
def topological_order_is_valid(w, rng):
    for _ in range(5):
        parents = random_graph(rng)
        order = call_learner(w, "topological", "topological_order on a graph of 40 nodes", parents=parents)
        if len(set(order)) != len(order):
            raise CheckFailure("topological_order lists a node twice: keep a set of visited nodes", "repeated nodes")
        if set(order) != trusted_reachable(parents):
            raise CheckFailure("topological_order must list exactly the nodes the root depends on", "missing nodes")
        position = {n: i for i, n in enumerate(order)}
        for n in order:
            for p in parents[n]:
                if position[n] > position[p]:
                    raise CheckFailure(f"topological_order puts node {p} before node {n}, which uses it: every node "
                                       "must come before its parents (root first)", "wrong order")


@part("1.3", "deep graphs")
def topological_order_handles_deep_graphs(w, rng):
    try:
        count = w.call("chain", doing="running topological_order on a chain of 5,000 nodes", length=5001)
    except Raised as error:
        if error.type == "RecursionError":
            raise CheckFailure("topological_order hit Python's recursion limit on a chain of 5,000 nodes: use an "
                               "explicit stack instead of recursion", "recursion limit") from None
        raise learner_raised(error, "topological_order on a chain of 5,000 nodes") from None
    if count != 5001:
        raise CheckFailure(f"topological_order returned {count} nodes for a chain of 5,001", "missing nodes")


DIAMOND = {  # node: (parents, local derivatives); node 4 uses node 1 twice
    "parents": [[], [0], [0], [1, 1], [3, 2, 1]],
    "local": [[], [3.0], [5.0], [2.0, 7.0], [1.5, -2.0, 0.5]],
}


CHAIN = {  # each node used once: overwriting a gradient instead of adding changes nothing here
    "parents": [[], [0], [1], [2]],
    "local": [[], [3.0], [-2.0], [0.5]],
}


def diamond_gradients(seed: float, overwrite: bool = False, graph: dict = DIAMOND) -> list[float]:
    count = len(graph["parents"])
    grads = [0.0] * count
    grads[-1] = seed
    for n in range(count - 1, 0, -1):
        for p, d in zip(graph["parents"][n], graph["local"][n]):
            grads[p] = grads[n] * d + (0.0 if overwrite else grads[p])
    return grads


def _engine_mistake(got: list[float], seed: float) -> tuple[str, str]:
    """What the learner's gradients on the diamond match, said only when they match it."""
    def matches(other):
        return np.allclose(got, other, rtol=1e-9, atol=1e-12)
    if matches(diamond_gradients(1.0)) and seed != 1.0:
        return "they are the gradients for a seed of 1: start from the seed that was passed in", "seed ignored"
    if matches(diamond_gradients(seed, overwrite=True)):
        return ("a later contribution replaced an earlier one: a node used more than once must receive the sum of "
                "its contributions (add, do not overwrite)", "overwrites instead of summing")
    if matches([0.0] * 5):
        return "no node received a gradient: call node.accumulate with each node's finished gradient", "no gradient"
    return ("each node's gradient is the sum over its users of (the user's gradient times the local derivative), "
            "starting from the seed at the root", "wrong values")


@part("1.4", "sums contributions")
def backpropagate_sums(w, rng):
    seed = float(rng.uniform(0.5, 3))
    seen = call_learner(w, "backpropagate", f"backpropagate(root, {seed:.3g}) on a graph where a node is used three times",
                 seeds=[seed], **DIAMOND)[0]
    expected = diamond_gradients(seed)
    for n, (grad, calls) in enumerate(seen):
        if calls > 1:
            raise CheckFailure("backpropagate must call accumulate once per node, after all its contributions are "
                               "summed", "accumulate called repeatedly")
        if abs(grad - expected[n]) > 1e-9 * max(1, abs(expected[n])):
            hint, pitfall = _engine_mistake([g for g, _ in seen], seed)
            raise CheckFailure(f"backpropagate gave node {n} the gradient {grad:.6g}, expected {expected[n]:.6g} "
                               f"(seed {seed:.3g}, on a graph where node 1 is used three times): {hint}", pitfall)


@part("1.4", "accumulates across calls")
def backpropagate_accumulates(w, rng):
    # A chain, so that this part judges only what a second call does (the diamond above
    # judges a node used several times within one call).
    seen = call_learner(w, "backpropagate", "backpropagate twice on a chain of 4 nodes", seeds=[1.0, 2.0], **CHAIN)
    once, twice = diamond_gradients(1.0, graph=CHAIN), diamond_gradients(2.0, graph=CHAIN)
    got = [[grad for grad, _ in call] for call in seen]
    if not np.allclose(got[0], once, rtol=1e-9):
        raise CheckFailure(f"backpropagate (seed 1) on a chain of 4 nodes, each used once, gave the leaf the gradient "
                           f"{got[0][0]:.6g}, expected {once[0]:.6g}: multiply each node's gradient by its local "
                           "derivative on the way to its parent", "wrong gradients")
    expected = [a + b for a, b in zip(once, twice)]
    if not np.allclose(got[1], expected, rtol=1e-9):
        raise CheckFailure(f"after a second backpropagate (seed 2) on the same chain the leaf's gradient is "
                           f"{got[1][0]:.6g}, expected {once[0]:.6g} + {twice[0]:.6g} = {expected[0]:.6g}: a second "
                           "call must add to the gradients the first left", "no accumulation")


@part("1.4", "tensor graphs")
def tensor_backward(w, rng):
    x, b, g = rng.standard_normal((2, 3)), rng.standard_normal(3), rng.standard_normal((2, 3))
    doing = "out = (x + b) + x on Tensors (x of shape (2, 3) used twice, b of shape (3,)), out.backward(grad)"
    seen = call_learner(w, "tensor_graph", f"{doing} with a (2, 3) gradient", x=x, b=b, upstream=g, calls=2)
    if not np.array_equal(seen["upstream"], g):
        raise CheckFailure(f"{doing} changed the gradient it was given: the engine added into an array it did not "
                           "create (+= on a gradient a rule passed on); add into fresh arrays (a + b)",
                           "in-place upstream")
    for k, (gx, gb) in enumerate(seen["grads"], start=1):
        explain(f"x.grad after {k} call(s) of {doing}", gx, k * 2 * g, rtol=1e-9)
        explain(f"b.grad after {k} call(s) of {doing}", gb, k * g.sum(axis=0), rtol=1e-9)
