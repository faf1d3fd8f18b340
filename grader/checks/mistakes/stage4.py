"""Known mistakes of stage 4: the shape ops' backward (Task 4.1), indexing (4.2), cat and stack (4.3)."""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks.mistakes import Mistake


def _reused(x, g, axes=None):
    """Transpose's backward applying the forward's permutation again (right only when it is its own inverse)."""
    forward = tuple(a % x[0].ndim for a in axes) if axes is not None else tuple(reversed(range(x[0].ndim)))
    back = tuple(int(i) for i in np.argsort(forward))
    return None if forward == back else np.transpose(g, forward)


def _all_reversed(x, g, axes=None):
    """Transpose's backward reversing every axis (grad.T): right only where that is the inverse permutation."""
    forward = tuple(a % x[0].ndim for a in axes) if axes is not None else tuple(reversed(range(x[0].ndim)))
    back = tuple(int(i) for i in np.argsort(forward))
    return None if back == tuple(reversed(range(x[0].ndim))) else np.transpose(g)


def _reversed_order(x, g, axes=None):
    """Transpose's backward with the forward's permutation read backwards (axes[::-1]): not its inverse."""
    forward = tuple(a % x[0].ndim for a in axes) if axes is not None else tuple(reversed(range(x[0].ndim)))
    back = tuple(int(i) for i in np.argsort(forward))
    return None if forward[::-1] in (back, forward) or axes is None else np.transpose(g, forward[::-1])


def _put_back_at(position):
    """Squeeze's backward putting one size-1 axis back at a fixed ``position`` (np.expand_dims(grad, position))."""
    def wrong(x, g, axis=None):
        if not -g.ndim - 1 <= position <= g.ndim:
            return None
        put = np.expand_dims(g, position)
        return None if put.shape == x[0].shape else put
    return wrong


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


def _index(spec):
    """An index as the hidden checks send it (``common.index_spec``: slices, None and
    Ellipsis as lists), or as the notebooks give it."""
    def one(item):
        if isinstance(item, list) and item[:1] == ["slice"]:
            return slice(*item[1:])
        return {"...": Ellipsis, "none": None}[item[0]] if isinstance(item, list) and item in (["..."], ["none"]) else item
    return tuple(one(i) for i in spec) if isinstance(spec, tuple) else one(spec)


def _add_at_fits(a, index, b):
    """Raise as np.add.at(a, index, b) does where the index does not fit a or b does not fit a[index]. (NumPy 2.4
    crashes on some such calls, (..., 1) among them, rather than raise: they are never made here.)"""
    place = np.shape(a[index])
    try:
        fits = np.broadcast_shapes(np.shape(b), place) == place
    except ValueError:
        fits = False
    if not fits:
        raise ValueError("array is not broadcastable to correct shape")


def _getitem(kind):
    """GetItem's backward with one mistake: ``kind`` names it."""
    def wrong(x, g, index=()):
        index, full = _index(index), np.zeros(x[0].shape)
        if kind == "repeats kept once":  # full[index] += grad and full[index] = grad alike: the last repeat wins
            full[index] = g
        elif kind == "counted, not the gradient":
            np.add.at(full, index, 1.0)
        elif kind == "zeros came back untouched":  # np.add.at(grad, index, full): the zeros added into grad
            _add_at_fits(g, index, full)  # raises where the index or the zeros do not fit grad
        elif kind == "zeros of the output's shape":
            full = np.zeros(g.shape)
            _add_at_fits(full, index, g)  # raises where the index does not fit the output's shape
            np.add.at(full, index, g)
        else:  # "gradient in the output's shape": grad as it came (wrong even where the shapes agree)
            return g
        return full
    return wrong


GETITEM = [("repeats kept once", "an element picked more than once got one of its gradients, not their sum: "
            "full[index] += grad (or = grad) writes each repeated place once, the last write winning",
            "add with NumPy's unbuffered add (np.add.at), which adds every repeat"),
           ("gradient in the output's shape", "the gradient comes back as it came, in the output's shape and "
            "order; the input's gradient has the input's shape, each value where its element was picked from, zero "
            "where nothing was",
            "start from zeros of ctx.shape and add grad at ctx.index"),
           ("zeros of the output's shape", "the zeros the gradient is added into have the output's shape "
            "(zeros_like(grad)); the index points into the input, so they need the input's shape",
            "start from zeros of ctx.shape and ctx.dtype"),
           ("zeros came back untouched", "the zeros come back as they were made: nothing was added into them. "
            "np.add.at(a, index, b) adds b into a at index, in place (and returns None): with its arguments "
            "swapped, np.add.at(grad, ctx.index, zeros), it adds into grad instead (where the index and the zeros "
            "fit grad at all); a sum added into a copy, or a result not kept, is lost the same way",
            "np.add.at(zeros, ctx.index, grad): the zeros of ctx.shape first, the upstream gradient last; then "
            "return the zeros"),
           ("counted, not the gradient", "each picked place got 1 for each time it was picked (how often it was "
            "used), not the upstream gradient", "add grad itself at ctx.index, not ones")]


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
    Mistake("4.1", "ops_shape.Transpose", 0, "all axes reversed",
            "the backward reverses all the axes (grad.T, or np.transpose without axes): that undoes a transpose of two "
            "axes, or a permutation that is its own reverse, but not this one",
            "apply the inverse permutation, np.argsort(axes): input axis i went to position axes.index(i)", _all_reversed),
    Mistake("4.1", "ops_shape.Transpose", 0, "reversed permutation",
            "the backward applies the forward's permutation read backwards (axes[::-1]); that is not its inverse",
            "apply the inverse permutation, np.argsort(axes), not the reversed one: input axis i went to position "
            "axes.index(i)", _reversed_order),
    *[Mistake("4.1", "ops_shape.Squeeze", 0, f"size-1 axis put back at {where}",
              f"a size-1 axis went back at position {position} (np.expand_dims(grad, {position})), whatever axis the "
              "forward squeezed", "put back exactly the axes the forward removed: reshape grad to the input's shape, "
              "ctx.shape", _put_back_at(position)) for position, where in ((0, "0"), (1, "1"), (-1, "the end"))],
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
    *[Mistake("4.2", "ops_index.GetItem", 0, name, words, fix, _getitem(name)) for name, words, fix in GETITEM],
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
