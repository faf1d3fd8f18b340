"""Known mistakes of broadcast_shapes (Task 2.1): a value, site "broadcast shapes", with the
case's ``shapes``, the list of shapes it is given. A mistake gives the shape it returns (a tuple,
or a list for "list, not a tuple"), or raises where it would raise."""

from __future__ import annotations

from grader.checks.mistakes import ValueMistake


def _clash(shapes):
    raise ValueError(f"shapes {', '.join(str(tuple(s)) for s in shapes)} cannot be broadcast together")


def _lined_up(shapes, *, left=False, ones_clash=False, clash=True, shortest=False, pick=max):
    """broadcast_shapes with the shapes lined up from the right (from the left, padded with
    1s), raising on a clash (with ``ones_clash``, also where a 1 meets another size); without
    ``clash``, ``pick`` chooses among the sizes (a set's pop gives the smallest small int)."""
    shapes = [tuple(int(n) for n in s) for s in shapes]
    ndim = (min if shortest else max)((len(s) for s in shapes), default=0)
    padded = [(s + (1,) * (ndim - len(s)) if left else (None,) * (ndim - len(s)) + s[max(len(s) - ndim, 0):]) for s in shapes]
    result = []
    for sizes in zip(*padded):
        present = {n for n in sizes if n is not None} - (set() if ones_clash else {1})
        if len(present) > 1 and (clash or ones_clash):
            _clash(shapes)
        result.append(pick(present, default=1))
    return tuple(result)


def _where_right(shapes, **how):
    """What ``_lined_up(shapes, **how)`` gives, or raises, where the right answer is a shape (where it raises, an error
    is no evidence). Where several mistakes raise on one case, the check lists them all and names none."""
    return None if _or_none(shapes=shapes) is None else _lined_up(shapes, **how)


def _one_size(shapes, choose):
    """broadcast_shapes taking, in each position, the size ``choose`` picks from every shape's (a missing axis as 1)
    and raising where another size is neither that one nor 1; None where the right answer raises (no evidence)."""
    if _or_none(shapes=shapes) is None:
        return None
    shapes = [tuple(int(n) for n in s) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(-ndim, 0):
        sizes = [s[axis] if len(s) >= -axis else 1 for s in shapes]
        big = choose(sizes)
        if any(n not in (1, big) for n in sizes):
            _clash(shapes)
        result.append(big)
    return tuple(result)


def _or_none(**how):
    """What ``_lined_up(**how)`` gives where it gives a shape (where it raises, so does the right answer)."""
    try:
        return _lined_up(**how)
    except ValueError:
        return None


def _first_missed(shapes):
    """The sizes of every position but the first (the leftmost of the longest shape), where that
    position alone cannot change whether the shapes clash (else None: its clash is not evidence)."""
    right = _or_none(shapes=shapes)
    if not shapes or right is None or not right:
        return None
    return right[1:]


BROADCAST = [
    ValueMistake("2.1", "broadcast shapes", "aligned from the left",
                 "the shapes were lined up from the left (padded with 1s at the end): they line up from the right, so a "
                 "shorter shape lacks leading axes", "line the shapes up from the right: axis -1 of each, then -2, ...",
                 lambda shapes: _where_right(shapes, left=True)),
    ValueMistake("2.1", "broadcast shapes", "size 1 treated as a clash",
                 "a size-1 axis was taken for a clash: a size of 1 stretches to match any other size",
                 "in each position leave the 1s out of the set of sizes; only two different sizes other than 1 clash",
                 lambda shapes: _where_right(shapes, ones_clash=True)),
    *[ValueMistake("2.1", "broadcast shapes", "no clash error",
                   "where the shapes clash it gave a shape: it took one of the sizes in each position without checking that "
                   "the others are equal or 1", "it must raise ValueError when a position holds two different sizes other than 1",
                   lambda shapes, pick=pick: _lined_up(shapes, clash=False, pick=pick)) for pick in (max, min)],
    ValueMistake("2.1", "broadcast shapes", "shortest shape only",
                 "the result is only as long as the shortest shape: zip stops at the end of the shortest one",
                 "run over the positions of the longest shape; a shorter shape has no axis there (it counts as 1)",
                 lambda shapes: _or_none(shapes=shapes, shortest=True) if shapes else None),
    ValueMistake("2.1", "broadcast shapes", "built from the right, never reversed",
                 "the sizes are in reverse order: the positions were visited from the last axis (-1, -2, ...) and each "
                 "size appended, so the last axis came first", "reverse the sizes before giving them back (or visit the "
                 "positions from the first axis to the last)",
                 lambda shapes: None if _or_none(shapes=shapes) is None else _lined_up(shapes)[::-1]),
    ValueMistake("2.1", "broadcast shapes", "list, not a tuple",
                 "it is a list: shapes are tuples, as np.broadcast_shapes gives, and a list never equals one "
                 "([4, 3] == (4, 3) is False)", "turn the sizes into a tuple before giving them back: the API gives a tuple",
                 lambda shapes: None if _or_none(shapes=shapes) is None else list(_lined_up(shapes)), typed=True),
    ValueMistake("2.1", "broadcast shapes", "first axis missed",
                 "the result is missing its first axis (the leftmost position of the longest shape): the loop over the "
                 "positions ran one short at that end", "visit every position of the longest shape, -1 down to minus its "
                 "length, that last one included", lambda shapes: _first_missed(shapes)),
    *[ValueMistake("2.1", "broadcast shapes", f"{which} shape's size taken",
                   f"each position took the {which} shape's size for the result's (a missing axis as 1): where the {which} "
                   "shape has a 1, or lacks the axis, and another shape does not, that looked like a clash",
                   "in each position take the one size other than 1 (1 if every shape has 1 there), whichever shape has "
                   "it; only two different sizes other than 1 clash", lambda shapes, at=at: _one_size(shapes, lambda s: s[at]))
      for which, at in (("first", 0), ("last", -1))],
    ValueMistake("2.1", "broadcast shapes", "largest size taken",
                 "each position took the largest size (max) for the result's, so a size 0 met by a 1 looked like a clash: "
                 "a 1 stretches to any size, 0 too (np.broadcast_shapes((0,), (1,)) is (0,))",
                 "take the one size other than 1 (1 if every shape has 1 there), not the largest: leave the 1s out "
                 "before choosing", lambda shapes: _one_size(shapes, max)),
]

VALUE_MISTAKES = BROADCAST
