"""Known mistakes of the engine: topological_order (Task 1.3) and backpropagate (Task 1.4).

A graph is given by ``parents``: node ``i``'s parents by index, every parent listed before
the node that uses it and the root last (a parent used twice is listed twice). Sites and
the names of their cases:

* ``"topological order"``: ``parents``. A mistake gives the list of node indices in the order
  the mistake returns them (compared item by item: the checks use graphs whose right order
  is the only one, so that each mistake gives one order).
* ``"topological nodes"``: ``parents``. The same list sorted: which nodes are listed, and
  how often, whatever their order.
* ``"backpropagate"``: ``parents``, ``local`` (node ``i``'s local derivative with respect
  to each of its parents, in the same order) and ``seed`` (the root's gradient). A mistake
  gives the array of the gradient each node is left with (0 for one never given any),
  walking the nodes in descending index, as the checks' topological orders do.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from grader.checks.mistakes import ValueMistake


def _reachable(parents) -> set[int]:
    seen, stack = set(), [len(parents) - 1]
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack.extend(parents[n])
    return seen


def _right(parents) -> list[int]:
    """A right order: every node before its parents, root first."""
    return sorted(_reachable(parents), reverse=True)


def _marked_when_pushed(parents) -> list[int]:
    """A depth-first walk with a stack that marks a node seen when it is pushed, not when it
    is expanded: a parent already waiting on the stack is skipped by a later user, which then
    finishes before it."""
    root = len(parents) - 1
    finished, seen, stack = [], {root}, [(root, False)]
    while stack:
        n, done = stack.pop()
        if done:
            finished.append(n)
            continue
        stack.append((n, True))
        for p in parents[n]:
            if p not in seen:
                seen.add(p)
                stack.append((p, False))
    return finished[::-1]


def _pushed_at_the_bottom(parents) -> list[int]:
    """The depth-first walk of the reference with each parent put at the bottom of the stack
    (``stack.insert(0, ...)``), where it is taken last, not on top."""
    root = len(parents) - 1
    finished, seen, stack = [], set(), [(root, False)]
    while stack:
        n, done = stack.pop()
        if done:
            finished.append(n)
            continue
        if n in seen:
            continue
        seen.add(n)
        stack.append((n, True))
        for p in parents[n]:
            if p not in seen:
                stack.insert(0, (p, False))
    return finished[::-1]


def _listed_when_reached(parents, reverse=True) -> list[int]:
    """A depth-first walk that lists a node when it first pops (pre-order), before its parents
    are done, each node's parents pushed in their order; the list reversed at the end (or not)."""
    listed, seen, stack = [], set(), [len(parents) - 1]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        listed.append(n)
        stack.extend(p for p in parents[n] if p not in seen)
    return listed[::-1] if reverse else listed


def _breadth_first(parents) -> list[int]:
    root = len(parents) - 1
    order, seen, queue = [], {root}, deque([root])
    while queue:
        n = queue.popleft()
        order.append(n)
        for p in parents[n]:
            if p not in seen:
                seen.add(p)
                queue.append(p)
    return order


def _every_path(parents) -> list[int] | None:
    """Each node once per path from the root to it (a walk without a visited set)."""
    paths = [0] * len(parents)
    paths[-1] = 1
    for n in range(len(parents) - 1, -1, -1):
        for p in parents[n]:
            paths[p] += paths[n]
    if sum(paths) > 10_000:
        return None
    return sorted(n for n, count in enumerate(paths) for _ in range(count))


TOPOLOGICAL = [
    ValueMistake("1.3", "topological order", "reversed",
                 "the order is reversed: the leaves come first and the root last, but every node must come before its parents",
                 "the root first: reverse the finished list of the depth-first walk (a node is finished after its parents)",
                 lambda parents: _right(parents)[::-1]),
    ValueMistake("1.3", "topological order", "breadth-first",
                 "it is a breadth-first order: a node shared by two branches is listed as soon as the first one reaches it, "
                 "ahead of the other branch's nodes that use it, but every node must come before its parents",
                 "walk depth-first and list a node only once all its parents are finished, then reverse that list",
                 _breadth_first),
    ValueMistake("1.3", "topological order", "marked when pushed",
                 "a node is marked as seen when it is pushed on the stack, not when it is expanded: a parent still waiting on "
                 "the stack is skipped by a later node that uses it, so that node finishes first and the parent ends up "
                 "listed before it", "mark a node as seen when you pop it to expand it (skip it then if it was already seen)",
                 _marked_when_pushed),
    ValueMistake("1.3", "topological order", "listed when first reached",
                 "each node was listed when the walk first reached it (when it first popped), before its parents were done, "
                 "so reversing the list does not put every node before its parents: the reverse needs the order in which the "
                 "nodes finish, not the order in which they are reached",
                 "list a node only once its parents are finished: when it first pops, push it back marked done, then its "
                 "parents, and append it when it pops the second time (keep the final reverse)", _listed_when_reached),
    ValueMistake("1.3", "topological order", "listed when first reached, never reversed",
                 "each node was listed when the walk first reached it (when it first popped), root first, before its parents "
                 "were done: a node reached early along one branch comes before a node of another branch that uses it",
                 "list a node only once its parents are finished (when it first pops, push it back marked done, then its "
                 "parents, and append it when it pops the second time), then reverse the list",
                 lambda parents: _listed_when_reached(parents, reverse=False)),
    ValueMistake("1.3", "topological order", "parents pushed at the bottom",
                 "the parents went in at the bottom of the stack (insert(0, ...)), so the walk takes them last, after "
                 "everything pushed before them, and a node is finished before nodes that use it",
                 "push each parent on top of the stack (append), the end pop takes from", _pushed_at_the_bottom),
    ValueMistake("1.3", "topological nodes", "nothing listed",
                 "no node was listed, not even the root: the walk's loop never ran (a loop while len(stack) > 1 stops at once, "
                 "with the root alone on the stack), or nothing was added to the list it returns",
                 "loop as long as anything is left on the stack, and append each finished node to the list you return",
                 lambda parents: []),
    ValueMistake("1.3", "topological nodes", "no visited set",
                 "a shared node is listed once per path that leads to it (twice or more): the walk keeps no set of the nodes "
                 "it has visited",
                 "keep a set of ids you have seen, and skip a node already in it", _every_path),
    ValueMistake("1.3", "topological nodes", "leaves left out",
                 "the leaves (nodes without parents, the values you made) are missing: they need their gradients too",
                 "list every node the root depends on, leaves included", lambda parents: sorted(
             n for n in _reachable(parents) if parents[n] or n == len(parents) - 1)),
    ValueMistake("1.3", "topological nodes", "root left out",
                 "the root itself is missing: the walk started from its parents", "start the walk at the root; it is listed first",
                 lambda parents: sorted(_reachable(parents) - {len(parents) - 1})),
]


def _flow(parents, local, seed, *, overwrite=False, order=None, shares_from_seed=False, store=lambda n: True):
    """The gradients backpropagation leaves on each node (the right ones with the defaults)."""
    grads = [0.0] * len(parents)
    pending = {len(parents) - 1: float(seed)}
    for n in order if order is not None else _right(parents):
        if n not in pending:
            continue
        g = pending.pop(n)
        if store(n):
            grads[n] += g
        for p, d in zip(parents[n], local[n]):
            share = (float(seed) if shares_from_seed else g) * d
            pending[p] = share if overwrite or p not in pending else pending[p] + share
    return np.array(grads)


BACKPROPAGATE = [
    ValueMistake("1.4", "backpropagate", "overwrites instead of summing",
                 "a later contribution replaced an earlier one: a node used more than once must receive the sum of its "
                 "contributions", "add each parent's share to the total it has so far; never assign over it",
                 lambda parents, local, seed: _flow(parents, local, seed, overwrite=True)),
    ValueMistake("1.4", "backpropagate", "seed ignored",
                 "they are the gradients for a root gradient of 1, not for the one passed in",
                 "start from the gradient you are given, not from 1",
                 lambda parents, local, seed: _flow(parents, local, 1.0) if seed != 1 else None),
    ValueMistake("1.4", "backpropagate", "the seed passed on everywhere",
                 "each node passed the root's gradient to its parents, not its own: the gradient a node hands on is its own "
                 "total times the local derivative", "call node.chain_rule with the node's own complete gradient",
                 lambda parents, local, seed: _flow(parents, local, seed, shares_from_seed=True)),
    ValueMistake("1.4", "backpropagate", "walked leaves first",
                 "only the root got its gradient: the nodes were walked leaves first, so every parent was visited before its "
                 "share arrived", "walk the topological order as it is, root first",
                 lambda parents, local, seed: _flow(parents, local, seed, order=_right(parents)[::-1])),
    ValueMistake("1.4", "backpropagate", "only leaves accumulated",
                 "only the leaves kept their gradients: every node's gradient is stored, the computed ones too",
                 "call node.accumulate on every node, once, with its complete gradient",
                 lambda parents, local, seed: _flow(parents, local, seed, store=lambda n: not parents[n])),
    ValueMistake("1.4", "backpropagate", "root never accumulated",
                 "every node got its gradient but the root, whose own gradient (the one passed in) was never accumulated: "
                 "accumulate was called on each parent as its share arrived (which hands a node used twice two pieces, not "
                 "their sum), or the root was skipped",
                 "call node.accumulate on the node the walk has reached, once, with its complete gradient: the root first",
                 lambda parents, local, seed: _flow(parents, local, seed, store=lambda n: n != len(parents) - 1)),
    ValueMistake("1.4", "backpropagate", "never accumulated",
                 "no node received a gradient: node.accumulate was never called", "call node.accumulate once per node with its "
                 "complete gradient", lambda parents, local, seed: np.zeros(len(parents))),
]

VALUE_MISTAKES = TOPOLOGICAL + BACKPROPAGATE
