"""What a wrong answer most likely is, from what came back and what was expected.

One diagnosis for every check: the notebooks' visible checks (``minitorch.course.visible``) and
the grader's hidden ones use the same words. The grader cannot import a learner's
package, so ``make release`` writes its copy of this file (``grader/checks/diagnose.py``,
marked generated), and a test fails while the two differ. Pure NumPy; nothing of the package.

    shape_pattern((2, 4, 3), (4, 1))   # -> a Finding: it still needs a sum over axes (0, 2)
    value_pattern(got, expected)       # -> a Finding: the sign is flipped, at index (0, 1) ...

A ``Finding`` holds ``text`` (the pattern in words, "" when none fits), ``mistake`` (its
short name, for a class report) and ``where`` (the largest difference and its index).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np


class Finding(NamedTuple):
    text: str
    mistake: str
    where: str = ""


def _squeezed(shape: tuple) -> tuple:
    return tuple(n for n in shape if n != 1)


def stretches(shape: tuple, target: tuple) -> bool:
    """Whether ``shape`` broadcasts to ``target`` (aligned from the right)."""
    return len(shape) <= len(target) and all(n in (t, 1) for n, t in zip(shape, target[len(target) - len(shape):]))


def shape_pattern(got: tuple, expected: tuple, got_values: Any = None, expected_values: Any = None, *,
                  rtol: float = 1e-5, atol: float = 1e-8, full: tuple | None = None) -> Finding:
    """The likely mistake when an array came back with shape ``got`` instead of ``expected``.
    Given both arrays, a pattern is named only when the values bear it out (summed over the
    broadcast axes, reshaped or transposed, the answer is the expected one); otherwise
    nothing is guessed: a Cat split in the wrong places is not a missing sum. ``full``, the
    shape before any sum (the upstream gradient's, the forward output's), when known: an answer
    of that shape was not summed at all, or never put back into its input's shape."""
    got, expected = tuple(got), tuple(expected)
    if got == expected:  # the same shape: no pattern of shapes to name
        return Finding("", "wrong shape")
    if full is not None and got == tuple(full) and not (np.prod(got) > np.prod(expected) and stretches(expected, got)):
        return _output_shaped(got, expected, got_values, expected_values, rtol, atol)
    found = _by_shape(got, expected, None if full is None else tuple(full))
    if got_values is None or expected_values is None or not found.text:
        return found
    g, e = np.asarray(got_values, np.float64), np.asarray(expected_values, np.float64)

    def close(candidate: np.ndarray) -> bool:
        return candidate.shape == e.shape and bool(np.allclose(candidate, e, rtol=rtol, atol=atol, equal_nan=True))
    if found.mistake == "lost keepdims":
        right = close(g.reshape(e.shape))
    elif found.mistake == "missing unbroadcast":
        lead = len(got) - len(expected)
        right = close(g.sum(axis=tuple(range(lead))).sum(
            axis=tuple(i for i, n in enumerate(expected) if n == 1), keepdims=True).reshape(e.shape))
    elif found.mistake == "transposed":
        right = close(np.swapaxes(g, -1, -2))
    elif found.mistake == "axes in the wrong order" and g.ndim <= 5:
        right = any(close(np.transpose(g, order)) for order in itertools.permutations(range(g.ndim)))
    else:
        right = False
    return found if right else Finding("", "wrong shape")


OUTPUT = "The gradient has the output's shape (that of grad, the upstream gradient); each input's gradient has that input's shape"


def _output_shaped(got: tuple, expected: tuple, g: Any, e: Any, rtol: float, atol: float) -> Finding:
    """A gradient that came back in the forward output's shape (``full``, the upstream gradient's), not its
    input's, with the way back to the input's shape that the values ``g`` and ``e`` bear out (when given)."""
    fix, (g, e) = "", (None, None) if g is None or e is None else (np.asarray(g, np.float64), np.asarray(e, np.float64))
    if int(np.prod(got)) == int(np.prod(expected)):  # a reshape back, or its axes moved back: which, the values say
        moves = [o for o in itertools.permutations(range(len(got) if len(got) <= 6 else 0)) if tuple(got[i] for i in o) == expected]
        if g is None or np.allclose(g.reshape(e.shape), e, rtol=rtol, atol=atol, equal_nan=True):
            fix = ": the numbers are right, in order; reshape it back to the input's shape" if g is not None else \
                ": reshape it back to the input's shape, or move its axes back (the inverse of the forward's permutation)"
        elif any(np.allclose(np.transpose(g, o), e, rtol=rtol, atol=atol, equal_nan=True) for o in moves):
            fix = ": the numbers are right, its axes moved; move them back (the inverse of the forward's permutation)"
    return Finding(f"{OUTPUT}{fix}.", "gradient in the output's shape")


def _by_shape(got: tuple, expected: tuple, full: tuple | None = None) -> Finding:
    """The pattern the two shapes alone suggest. What was summed on the way, they do not
    say: "Not summed" is said only when ``got`` is ``full``, the shape before any sum."""
    if int(np.prod(got)) == int(np.prod(expected)) and _squeezed(got) == _squeezed(expected):
        if len(got) < len(expected):
            return Finding("The numbers may be right but a size-1 axis is missing: keep it (keepdims=True, or "
                           "np.expand_dims).", "lost keepdims")
        if len(got) > len(expected):
            return Finding("The numbers may be right but it has a size-1 axis too many: drop it (reshape to the "
                           "expected shape, or sum without keepdims).", "lost keepdims")
        return Finding("The numbers may be right but a size-1 axis is in the wrong place: reshape to the expected "
                       "shape.", "lost keepdims")
    if int(np.prod(got)) > int(np.prod(expected)) and stretches(expected, got):
        axes = [i for i, n in enumerate(got) if i < len(got) - len(expected)
                or expected[i - (len(got) - len(expected))] != n]
        if got == full:
            return Finding(f"Not summed over the broadcast axes: {OUTPUT[0].lower()}{OUTPUT[1:]}: sum it over axes "
                           f"{tuple(axes)} (the ones the input was stretched along, as unbroadcast does).",
                           "missing unbroadcast")
        return Finding(f"It still needs a sum over axes {tuple(axes)} (the ones the input was stretched along, as "
                       "unbroadcast does) to get the input's shape.", "missing unbroadcast")
    if len(got) >= 2 and got[:-2] == expected[:-2] and got[-2:] == expected[-1:-3:-1]:
        return Finding("It is transposed: check which value is transposed (or the order of a product's operands).",
                       "transposed")
    if len(got) == len(expected) and sorted(got) == sorted(expected):
        return Finding("Its axes are in the wrong order.", "axes in the wrong order")
    if int(np.prod(got)) < int(np.prod(expected)) and stretches(got, expected):
        return Finding("Summed over axes that should stay: sum only over the axes that were stretched.",
                       "summed over the wrong axes")
    return Finding("", "wrong shape")


def made_words(error: str, read: list[tuple]) -> str:
    """``own_lines.where_made``'s finding in words, for each local of the shape the exception names first (the value
    a given call refused: "a gradient of shape (1,) cannot come from ... (3,)"), or of a size it names (a reshape's):
    read holds (its name, its shape, the line, the file, the function, that line's code). "" when none is."""
    own = re.search(r" raised \w+: (.*?)(?: at minitorch/|\n|$)", error)  # the exception's words, not the case's
    words = own.group(1) if own else error
    first = "".join(re.findall(r"\(\d+(?:,|(?:, ?\d+)+)\)", words)[:1]).replace(" ", "")
    sizes = {int(n) for n in re.findall(r"array of size (\d+)", words)}
    shown = [f"{name}, of shape {shape}, which that line passes on, was made at line {line} of {file} ({function}): {code}"
             for name, shape, line, file, function, code in read
             if shape and (str(shape).replace(" ", "") == first or int(np.prod(shape)) in sizes)]
    return ("; ".join(shown) + ". Look there first: the call that raised only refused it.") if shown else ""


def digits(got: float, expected: float) -> tuple[str, str]:
    """Both numbers to as many significant digits as it takes to tell them apart (6 at least)."""
    for places in range(6, 18):
        a, b = f"{got:.{places}g}", f"{expected:.{places}g}"
        if a != b:
            break
    return a, b


def precision(got: np.ndarray, expected: np.ndarray, least: int = 4) -> int:
    """The digits after the point at which two arrays of one shape print apart (``least`` at
    least, 17 at most): [0.99, -1.99] and [0.99000001, -1.99] are not shown alike."""
    g, e = np.asarray(got, np.float64), np.asarray(expected, np.float64)
    if g.shape != e.shape or np.array_equal(g, e, equal_nan=True):
        return least
    for places in range(least, 18):
        if not np.array_equal(np.round(g, places), np.round(e, places), equal_nan=True):
            return places
    return 17


def same_exception(kind: str, message: str, predicted_kind: str, predicted_message: str) -> bool:
    """Whether an exception is the one a known mistake predicts: the same type, and the same
    message, or one naming the same shapes (NumPy words a broadcast error by the order of
    its operands: grad * e and e * grad name the same two shapes; a 0-d operand, (), which
    broadcasts with anything, as in np.where(hit, g, 0), is left out). A reshape's error names the
    size it got, which tells one wrong sum from another: only the same message matches."""
    if kind != predicted_kind:
        return False
    if "cannot reshape" in message or "cannot reshape" in predicted_message:
        return message.strip() == predicted_message.strip()
    shapes = sorted(s for s in re.findall(r"\([\d, ]*\)", message) if s != "()")
    return message.strip() == predicted_message.strip() or \
        bool(shapes) and shapes == sorted(s for s in re.findall(r"\([\d, ]*\)", predicted_message) if s != "()")


def _simple(ratio: float) -> bool:
    """A factor a person writes by mistake: 2, 3, 4, 1/2, 1/3, a size, ... (to 1e-6)."""
    return any(np.isclose(abs(ratio), n, rtol=1e-6) or np.isclose(abs(ratio), 1 / n, rtol=1e-6) for n in range(2, 65))


def value_pattern(got: np.ndarray, expected: np.ndarray, *, rtol: float = 1e-5, atol: float = 1e-8,
                  swapped: np.ndarray | None = None, inputs: Sequence[np.ndarray] = ()) -> Finding:
    """The likely mistake when ``got`` has ``expected``'s shape but other values.

    ``swapped``: what would come back if the two inputs' gradients were swapped (the other
    input's expected gradient), when it has this shape. ``inputs``: arrays that broadcast
    to this shape whose signs may matter (a rule right only where they are positive)."""
    g, e = np.asarray(got, np.float64), np.asarray(expected, np.float64)
    close = np.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
    broken = ~np.isfinite(g) & np.isfinite(e)
    gaps = np.where(np.isfinite(g), np.abs(np.nan_to_num(g - e, nan=0.0, posinf=0.0, neginf=0.0)), np.inf)
    worst = int(np.argmax(np.where(close, -1.0, gaps))) if g.size else 0
    index = tuple(int(i) for i in np.unravel_index(worst, e.shape)) if e.shape else ()
    wrong = int((~close).sum())
    shown = digits(float(g.flat[worst]), float(e.flat[worst])) if g.size else ("", "")
    where = (f"at index {index} it is {shown[0]}, expected {shown[1]}"
             f"{f' ({wrong} of {g.size} values differ)' if g.size > 1 else ''}")

    def fits(candidate: np.ndarray) -> bool:
        return bool(np.allclose(g, candidate, rtol=rtol, atol=atol))

    if np.asarray(got).dtype == bool or np.asarray(expected).dtype == bool:  # yes/no answers bear no pattern
        return Finding("", "wrong values", where)
    if broken.any():
        return Finding(f"It holds NaN or inf where the answer is finite ({int(broken.sum())} of {g.size} values): "
                       "an exp overflowed, a 0/0, a 0 ** -1, or the square root or log of a negative number (compute "
                       "it another way, or guard that case).", "overflow or nan", where)
    scale = np.abs(e).max(initial=0.0)
    if scale > 0 and not np.abs(g).max(initial=0.0) > atol:
        return Finding("It is zero everywhere: is it ever computed, or multiplied by a zero?", "all zeros",
                       where)
    if scale > 0 and fits(-e):
        return Finding("It has the wrong sign: the sign is flipped (a lost minus sign?).", "wrong sign", where)
    nonzero = np.abs(e) > max(atol, 1e-12)
    if nonzero.any():
        ratio = g[nonzero] / e[nonzero]
        factor = float(ratio.flat[0])
        if not np.isclose(factor, 1) and fits(factor * e) and (nonzero.sum() >= 2 or _simple(factor)):
            return Finding(f"It is off by a constant factor of {factor:.4g} (every value is {factor:.4g} times the "
                           "right one).", "constant factor", where)
    if e.ndim >= 2 and e.shape[-1] == e.shape[-2] and fits(np.swapaxes(e, -1, -2)):
        return Finding("It is the transpose of the right answer: check which value is transposed (or the order of a "
                       "product's operands).", "transposed", where)
    if swapped is not None and np.shape(swapped) == e.shape and not np.allclose(swapped, e) and fits(swapped):
        return Finding("It is the other input's gradient: the two inputs' gradients are swapped.",
                       "gradients swapped", where)
    zeroed = ~close & (np.abs(g) <= atol) & nonzero
    for x in inputs if zeroed.any() and zeroed.sum() == wrong else []:  # zero just where an input is negative
        x = np.asarray(x)
        if x.dtype.kind in "fi" and stretches(x.shape, e.shape) and \
                np.array_equal(zeroed, np.broadcast_to(x < 0, e.shape) & nonzero) and (x > 0).any():
            return Finding(f"It is zero wherever the input is negative ({wrong} of {g.size} values), and right where it "
                           "is positive: the case x < 0 needs its own formula (a mask such as x > 0 keeps only the "
                           "positive side).", "zero where the input is negative", where)
    if zeroed.any() and zeroed.sum() == wrong:
        return Finding(f"It is zero where it should not be ({wrong} of {g.size} values), and right elsewhere.",
                       "zero where it should not be", where)
    leaked = ~close & (np.abs(e) <= atol)
    if leaked.any() and leaked.sum() == wrong:
        return Finding(f"It is nonzero where it should be 0 ({wrong} of {g.size} values), and right elsewhere: a mask "
                       "or a condition not applied?", "nonzero where it should be zero", where)
    for x in inputs:
        x = np.asarray(x)
        if x.dtype.kind not in "fiu" or not stretches(x.shape, e.shape):
            continue
        positive = np.broadcast_to(x > 0, e.shape)
        if positive.any() and (~positive).any() and close[positive].all() and not close[~positive].all():
            return Finding("It is right only where the input is positive: the case x <= 0 needs its own formula.",
                           "right only where inputs are positive", where)
    return Finding("", "wrong values", where)
