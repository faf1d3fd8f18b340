"""Hidden checks of stage 1: central differences, scalar derivatives, the engine."""

from __future__ import annotations

import math

import numpy as np

from .checks import CheckFailure, explain, patched
from .registry import task


# ---- stage 1 ---------------------------------------------------------------------------
@task("1.1")
def central_difference_values(mt, rng):
    for x in rng.uniform(-2, 2, 5):
        explain("central_difference(sin, x)", np.float64(mt.central_difference(math.sin, float(x))),
                np.float64(math.cos(x)), atol=1e-6)
    f = lambda a, b, c: a * b * b + c  # noqa: E731
    got = mt.central_difference(f, 1.5, -2.0, 3.0, arg=1)
    explain("central_difference(f, 1.5, -2.0, 3.0, arg=1)", np.float64(got), np.float64(-6.0), atol=1e-5)
    got = mt.central_difference(lambda x: x * x, 1.0, eps=1e-2)
    if abs(got - 2.0) > 1e-9:
        raise CheckFailure(f"central_difference(x*x, 1.0, eps=0.01) gave {got}, expected exactly 2: "
                           "use (f(x + eps) - f(x - eps)) / (2 eps), not a one-sided difference")


SCALAR_OPS = {  # name: (build from Scalars, the same in floats, sample)
    "a + b": (lambda a, b: a + b, lambda a, b: a + b, (-2, 2)),
    "a - b": (lambda a, b: a - b, lambda a, b: a - b, (-2, 2)),
    "a * b": (lambda a, b: a * b, lambda a, b: a * b, (-2, 2)),
    "a / b": (lambda a, b: a / b, lambda a, b: a / b, (0.5, 2)),
    "a ** 3": (lambda a: a ** 3, lambda a: a ** 3, (-2, 2)),
    "a ** -0.5": (lambda a: a ** -0.5, lambda a: a ** -0.5, (0.5, 2)),
    "-a": (lambda a: -a, lambda a: -a, (-2, 2)),
    "a.exp()": (lambda a: a.exp(), math.exp, (-2, 2)),
    "a.log()": (lambda a: a.log(), math.log, (0.5, 3)),
    "a.sin()": (lambda a: a.sin(), math.sin, (-3, 3)),
    "a.cos()": (lambda a: a.cos(), math.cos, (-3, 3)),
    "a.tanh()": (lambda a: a.tanh(), math.tanh, (-2, 2)),
    "a.sigmoid()": (lambda a: a.sigmoid(), lambda a: 1 / (1 + math.exp(-a)), (-3, 3)),
    "a.relu()": (lambda a: a.relu(), lambda a: max(a, 0.0), (0.2, 2)),
    "(-a).relu()": (lambda a: (-a).relu(), lambda a: max(-a, 0.0), (0.2, 2)),
}


@task("1.2")
def scalar_local_derivatives(mt, rng):
    for name, (op, ref, (lo, hi)) in SCALAR_OPS.items():
        arity = op.__code__.co_argcount
        values = [float(v) for v in rng.uniform(lo, hi, arity)]
        out = op(*[mt.Scalar(v) for v in values])
        if name == "(-a).relu()":  # the relu node's own rule, on its input -a
            values, ref = [-values[0]], (lambda a: max(a, 0.0))
        g = float(rng.uniform(0.5, 2))
        pairs = out.chain_rule(g)
        for i, (_, grad) in enumerate(pairs):
            eps = 1e-6
            up, down = list(values), list(values)
            up[i] += eps
            down[i] -= eps
            expected = g * (ref(*up) - ref(*down)) / (2 * eps)
            explain(f"the backward of {name} at {values}, input {i}, upstream {g:.3g}",
                    np.float64(grad), np.float64(expected), rtol=1e-5, atol=1e-6)


class Node:
    """A stand-in graph node with known local derivatives, for checking the engine alone."""

    def __init__(self, name, parents=(), local=()):
        self.name, self.parents, self.local, self.grad, self.calls = name, list(parents), list(local), 0.0, 0

    def chain_rule(self, g):
        return [(p, g * d) for p, d in zip(self.parents, self.local)]

    def accumulate(self, g):
        self.grad += g
        self.calls += 1


def trusted_order(root):
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        elif id(node) not in seen:
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((p, False) for p in node.parents if id(p) not in seen)
    return order[::-1]


@task("1.3")
def topological_order_is_valid(mt, rng):
    for _ in range(5):
        nodes = [Node("x0")]
        for k in range(1, 40):
            parents = [nodes[int(i)] for i in rng.integers(0, k, int(rng.integers(1, 3)))]
            nodes.append(Node(f"n{k}", parents))
        order = list(mt.topological_order(nodes[-1]))
        if len({id(n) for n in order}) != len(order):
            raise CheckFailure("topological_order lists a node twice: keep a set of visited nodes")
        reachable = {id(n) for n in trusted_order(nodes[-1])}
        if {id(n) for n in order} != reachable:
            raise CheckFailure("topological_order must list exactly the nodes the root depends on")
        position = {id(n): i for i, n in enumerate(order)}
        for n in order:
            for p in n.parents:
                if position[id(n)] > position[id(p)]:
                    raise CheckFailure(f"topological_order puts {p.name} before {n.name}, which uses it: "
                                       "every node must come before its parents (root first)")


@task("1.3")
def topological_order_handles_deep_graphs(mt, rng):
    node = Node("x")
    for k in range(5000):
        node = Node(f"n{k}", [node])
    try:
        order = mt.topological_order(node)
    except RecursionError:
        raise CheckFailure("topological_order hit Python's recursion limit on a chain of 5,000 "
                           "nodes: use an explicit stack instead of recursion") from None
    if len(order) != 5001:
        raise CheckFailure(f"topological_order returned {len(order)} nodes for a chain of 5,001")


@task("1.4")
def backpropagate_sums_and_accumulates(mt, rng):
    with patched(mt.autodiff, topological_order=trusted_order):
        x = Node("x")
        a, b = Node("a", [x], [3.0]), Node("b", [x], [5.0])
        y = Node("y", [a, b, a], [2.0, 7.0, 1.0])  # a used twice by y
        mt.backpropagate(y, 1.0)
        if x.calls != 1 or a.calls != 1:
            raise CheckFailure("backpropagate must call accumulate once per node, after all its "
                               "contributions are summed")
        expected = {"y": 1.0, "a": 3.0, "b": 7.0, "x": 3.0 * 3 + 7.0 * 5}
        for n in (y, a, b, x):
            if abs(n.grad - expected[n.name]) > 1e-12:
                raise CheckFailure(f"backpropagate gave node {n.name} the gradient {n.grad}, expected "
                                   f"{expected[n.name]}: a node used more than once must receive the "
                                   "sum of its contributions (add, do not overwrite)")
        mt.backpropagate(y, 1.0)
        if abs(x.grad - 2 * expected["x"]) > 1e-12:
            raise CheckFailure("a second backpropagate must add to the gradients again")
