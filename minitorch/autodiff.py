"""The backpropagation engine, shared by Scalars (stage 1) and Tensors (stages 2 to 6).

The engine knows nothing about what a value holds. It sees a graph of *nodes*, and asks
each node three things:

=====================  =======================================================
``node.parents``       the nodes this one was computed from (empty for a leaf)
``node.chain_rule(g)`` given d(output)/d(node) = ``g``, the pairs
                       ``(parent, d(output)/d(parent) through this node)``
``node.accumulate(g)`` store the finished gradient ``g`` where the user can read it
=====================  =======================================================

Everything here is iterative, never recursive, so a chain of 10,000 operations works.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence


class Node(Protocol):
    @property
    def parents(self) -> Sequence["Node"]: ...

    def chain_rule(self, grad: Any) -> Sequence[tuple["Node", Any]]: ...

    def accumulate(self, grad: Any) -> None: ...


def topological_order(root: Node) -> list[Node]:
    """Every node that ``root`` depends on, ``root`` first, each node before its parents.

    "Before its parents" is what backpropagation needs: by the time a node is visited,
    every node that used it has already passed its contribution back, so its gradient is
    complete. Each node appears once, however many paths lead to it.

    Must not recurse (Python's recursion limit is about 1,000; graphs can be much deeper).
    """
    # Task 1.3: topological_order
    raise NotImplementedError("Task 1.3: topological_order")


def backpropagate(root: Node, grad: Any) -> None:
    """Send ``grad`` = d(output)/d(root) back through the graph to every node.

    Visit the nodes in topological order. Each node's gradient is the *sum* of what every
    node that used it sent back (a value used twice gets both contributions). When a
    node's gradient is complete, call ``node.accumulate`` with it, then pass it on to its
    parents with ``node.chain_rule``.

    Gradients are added into fresh objects (``a + b``, never ``a += b``): the arrays that
    flow through the graph may be shared, and the caller's ``grad`` must not change.
    """
    # Task 1.4: backpropagate
    raise NotImplementedError("Task 1.4: backpropagate")
