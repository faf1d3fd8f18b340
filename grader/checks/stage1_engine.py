"""Stage 1: the engine, topological_order (Task 1.3) and backpropagate (Task 1.4), on
stand-in nodes with known local derivatives (the probes' ``Node``)."""

from __future__ import annotations

import numpy as np

from grader.boundary.runner import Raised
from grader.checks import part
from grader.checks.common import CheckFailure, call_learner, explain, learner_raised
from grader.checks.naming import name_value_mistake


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


def chain_backed_graph(rng, size: int = 8) -> list[list[int]]:
    """A graph where each node also uses the one just before it: its only right order is root
    first, then every node in descending index, so each known mistake gives one order."""
    return [[]] + [sorted({k - 1} | {int(i) for i in rng.integers(0, k, int(rng.integers(0, 2)))}) for k in range(1, size)]


@part("1.3", "a valid order")
def topological_order_is_valid(w, rng):
    # first a graph where every known mistake of the order gives an order of its own (a name needs a case that tells
    # them apart): node 3 lists its parents latest first, so a walk that lists a node when it first reaches it (then
    # reverses the list) is not the reverse of a right order; then a long branch and a short one that meet, where a
    # breadth-first walk and a depth-first walk that marks nodes seen when it pushes them give different orders
    graphs = [[[], [0], [1], [2, 1], [1, 3]], [[], [0], [1], [2], [3], [1, 4]], chain_backed_graph(rng),
              chain_backed_graph(rng)] + \
        [random_graph(rng) for _ in range(5)]
    for parents in graphs:
        doing = f"topological_order on a graph of {len(parents)} nodes"
        order = call_learner(w, "topological", doing, parents=parents)
        reachable = trusted_reachable(parents)
        right = sorted(reachable, reverse=True)  # a right order: each node's parents have lower indices
        if len(set(order)) != len(order) or set(order) != reachable:
            name_value_mistake("topological nodes", {"parents": parents}, f"{doing} (the nodes it lists, sorted)", sorted(order),
                      sorted(reachable))
        if len(set(order)) != len(order):
            twice = ", ".join(str(n) for n in sorted({n for n in order if order.count(n) > 1}))
            raise CheckFailure(f"{doing} lists node(s) {twice} more than once: a node reached along two paths was handled "
                               "each time; keep a set of the ids of the nodes expanded, and skip a node already in it when "
                               "it pops", "repeated nodes")
        if set(order) != reachable:
            raise CheckFailure("topological_order must list exactly the nodes the root depends on", "missing nodes")
        position = {n: i for i, n in enumerate(order)}
        for n in order:
            for p in parents[n]:
                if position[n] > position[p]:
                    name_value_mistake("topological order", {"parents": parents}, doing, order, right)
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


def diamond_gradients(seed: float, graph: dict = DIAMOND) -> list[float]:
    count = len(graph["parents"])
    grads = [0.0] * count
    grads[-1] = seed
    for n in range(count - 1, 0, -1):
        for p, d in zip(graph["parents"][n], graph["local"][n]):
            grads[p] = grads[n] * d + grads[p]
    return grads


@part("1.4", "sums contributions")
def backpropagate_sums(w, rng):
    seed = float(rng.uniform(0.5, 3))
    seen = call_learner(w, "backpropagate", f"backpropagate(root, {seed:.3g}) on a graph where a node is used three times",
                 seeds=[seed], **DIAMOND)[0]
    expected = diamond_gradients(seed)
    got = np.array([grad for grad, _ in seen], np.float64)
    for n, grad in enumerate(got):  # wrong values first: a known mistake that also calls accumulate often is named
        if abs(grad - expected[n]) > 1e-9 * max(1, abs(expected[n])):
            name_value_mistake("backpropagate", dict(DIAMOND, seed=seed), f"backpropagate(root, {seed:.3g}) on a graph where "
                      "node 1 is used three times", got, np.array(expected), rtol=1e-9, atol=1e-12)
            raise CheckFailure(f"backpropagate gave node {n} the gradient {grad:.6g}, expected {expected[n]:.6g} "
                               f"(seed {seed:.3g}, on a graph where node 1 is used three times): each node's gradient "
                               "is the sum over its users of (the user's gradient times the local derivative), "
                               "starting from the seed at the root", "wrong values")
    if any(calls > 1 for _, calls in seen):
        raise CheckFailure("backpropagate must call accumulate once per node, after all its contributions are summed",
                           "accumulate called repeatedly")


@part("1.4", "accumulates across calls")
def backpropagate_accumulates(w, rng):
    # A chain, so that this part judges only what a second call does (the diamond above
    # judges a node used several times within one call).
    seen = call_learner(w, "backpropagate", "backpropagate twice on a chain of 4 nodes", seeds=[1.0, 2.0], **CHAIN)
    once, twice = diamond_gradients(1.0, graph=CHAIN), diamond_gradients(2.0, graph=CHAIN)
    got = [[grad for grad, _ in call] for call in seen]
    if not np.allclose(got[0], once, rtol=1e-9):
        doing = "backpropagate (seed 1) on a chain of 4 nodes, each used once"
        name_value_mistake("backpropagate", dict(CHAIN, seed=1.0), doing, np.array(got[0]), np.array(once), rtol=1e-9,
                           atol=1e-12)
        n = next(n for n in range(len(once)) if not np.isclose(got[0][n], once[n], rtol=1e-9))
        raise CheckFailure(f"{doing} gave node {n} the gradient {got[0][n]:.6g}, expected {once[n]:.6g}: each node's "
                           "gradient is its user's gradient times the local derivative, starting from the seed at the "
                           "root (node 3)", "wrong gradients")
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
