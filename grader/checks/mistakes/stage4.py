"""Known mistakes of stage 4: the shape ops' backward (Task 4.1), cat and stack (4.3)."""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks.mistakes import Mistake


def _reused(x, g, axes=None):
    """Transpose's backward applying the forward's permutation again (right only when it is its own inverse)."""
    forward = tuple(a % x[0].ndim for a in axes) if axes is not None else tuple(reversed(range(x[0].ndim)))
    back = tuple(int(i) for i in np.argsort(forward))
    return None if forward == back else np.transpose(g, forward)


def _cat_split(x, g, axis, i, at_sizes=False, along=None, equal=False):
    sizes = [a.shape[axis] for a in x]
    cuts = sizes[:-1] if at_sizes else list(np.cumsum(sizes)[:-1])
    if equal:
        pieces = np.array_split(g, len(x), axis=axis)
    else:
        pieces = np.split(g, [int(c) for c in cuts], axis=axis if along is None else along)
    return pieces[i] if i < len(pieces) else None


def _stack_index(x, g, axis, i):
    """grad[i]: the piece read along axis 0 whatever the stacking axis (right only for axis 0)."""
    return None if axis % g.ndim == 0 else g[i]


def _for(op, count, build):
    return [Mistake("4.3", op, i, *build(i)) for i in range(count)]


CAT: list[tuple[str, str, str, dict[str, Any]]] = [("split at the sizes",
        "the gradient was split at the pieces' sizes; np.split takes the positions where each piece ends, the "
        "running total of the sizes",
        "split where each piece ends: the running total of the sizes, without the last", dict(at_sizes=True)),
       ("split along the wrong axis", "the gradient was cut along axis 0, not along the axis the pieces were glued on",
        "split along the axis the forward glued on", dict(along=0)),
       ("split into equal parts", "the gradient was cut into equal parts (np.array_split); each piece must have its "
        "input's size along the axis", "split where each piece ends: the running total of the sizes, without the last",
        dict(equal=True))]

MISTAKES = [
    Mistake("4.1", "ops_shape.Transpose", 0, "forward permutation reused",
            "the backward applies the forward's permutation again; it must undo it",
            "apply the inverse permutation: input axis i is output axis axes.index(i)", _reused),
    Mistake("4.1", "ops_shape.BroadcastTo", 0, "not summed back",
            "the gradient comes back in the broadcast shape, not summed back to the input's",
            "sum it back to the input's shape, as your unbroadcast does",
            lambda x, g, shape=None: g if g.shape != x[0].shape else None),
    Mistake("4.1", "ops_shape.Unsqueeze", 0, "every size-1 axis squeezed",
            "np.squeeze(grad) drops every size-1 axis, also those the input had",
            "reshape the gradient to the input's shape",
            lambda x, g, axis=None: np.squeeze(g) if np.squeeze(g).shape != x[0].shape else None),
    Mistake("4.1", "ops_shape.Squeeze", 0, "axis not put back",
            "the gradient comes back as it came, without the size-1 axes the forward squeezed away",
            "reshape the gradient to the input's shape", lambda x, g, axis=None: g if g.shape != x[0].shape else None),
    *[Mistake("4.3", "ops_index.Cat", i, name, words, fix,
              (lambda i, options: lambda x, g, axis=0: _cat_split(x, g, axis, i, **options))(i, options))
      for i in range(4) for name, words, fix, options in CAT],
    *[Mistake("4.3", "ops_index.Stack", i, "read along axis 0",
               "each input's gradient was read as grad[i], along axis 0, not along the axis they were stacked on",
               "take piece i along the stacking axis",
               (lambda i: lambda x, g, axis=0: _stack_index(x, g, axis, i))(i)) for i in range(4)],
    *[Mistake("4.3", "ops_index.Stack", i, "stacked axis kept",
               "each input's gradient keeps the stacked axis as size 1 (np.split leaves it); the inputs did not have it",
               "drop that axis from each piece (or take piece i along it)",
               (lambda i: lambda x, g, axis=0: np.split(g, len(x), axis=axis)[i])(i)) for i in range(4)],
]
