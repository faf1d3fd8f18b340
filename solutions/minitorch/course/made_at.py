"""Where a value of the learner's went wrong before anything refused it, in words: the first
line of the learner's own code that makes a NaN or an inf (``first_not_finite``: the failing
case once more under a tracer, whatever ``np.errstate`` the code sets), and what NumPy's
words mean for an error whose cause is a value made a line or more above (``explained``:
"Probabilities do not sum to 1" raised in ``rng.choice``, for a ``p`` normalised over the
whole array). The grader's learner process holds a copy (``grader/learner/made_at.py``,
written by ``make release``).
"""

from __future__ import annotations

import ast
import linecache
import os
import re
import sys
import time
import types
from collections.abc import Callable
from typing import Any

from .own_lines import _owners, _read_on, names_at

P_GIVEN = re.compile(r"\bp\s*=\s*([A-Za-z_]\w*)")   # the probabilities handed to rng.choice, p=probs[b]
MEANT = [  # NumPy's words, what they mean for the value the learner's line passed on, and whether the line that made
    # it is the one to look at (a NaN may come from any line above it: it is not named)
    (re.compile(r"[Pp]robabilities do not sum to 1"), "the probabilities of one draw (one row) must sum to 1: "
     "normalise each row by its own sum (axis=-1, keepdims=True)", True),
    (re.compile(r"[Pp]robabilities contain NaN"), "a probability is NaN: an exp overflowed (subtract each row's "
     "max first), or a division by 0 or a 0/0 came before", False),
    (re.compile(r"probabilities are not non-negative"), "a probability is negative: probabilities come from exp "
     "(a softmax), never from the logits themselves", True),
    (re.compile(r"'a' and 'p' must have same size"), "p must hold one probability per choice: one row, as long as "
     "the number of choices, per draw", True),
]


def explained(error: BaseException, own: Callable[[types.FrameType, int], bool], shown: Callable[[str], str]) -> str:
    """What NumPy's words mean, for an error of ``MEANT``, and the line of the learner's own
    (``own(frame, line)``) that last stored a value the raising line reads (``shown(path)``:
    the file as the message names it); "" for any other error."""
    meant, line = next(((words, line) for pattern, words, line in MEANT if pattern.search(str(error))), ("", False))
    if not meant:
        return shapes_made(error, own, shown)
    frames = [(f, n) for f, n in _walk(error.__traceback__) if own(f, n)] if line else []
    for frame, number in reversed(frames):  # the innermost of yours first, then those it was called from
        code = frame.f_code
        read = names_at(code, number, stored=False)
        given = P_GIVEN.search(linecache.getline(code.co_filename, number))
        names = [given.group(1)] if given and given.group(1) in read else \
            [n for n in read if getattr(getattr(frame.f_locals.get(n), "dtype", None), "kind", "") == "f"]
        stores = [(n, name) for name in names for n in range(number - 1, code.co_firstlineno, -1)
                  if name in names_at(code, n, stored=True) and own(frame, n)]
        if stores:   # the nearest line above that made one of them (the probabilities, p=, when named)
            made, name = max(stores)
            text = linecache.getline(code.co_filename, made).strip()
            return (f"NumPy's words mean: {meant}. {name} was made at line {made} of "
                    f"{shown(code.co_filename)} ({code.co_qualname}): {text}")
    return f"NumPy's words mean: {meant}."


SHAPE = re.compile(r"\(\d*(?:, ?\d+)*,?\)")   # a shape as NumPy writes it: (3,2) (4,) (1,)
SHAPE_MEANT = [  # NumPy's words for two shapes that do not fit, and what they mean
    (re.compile(r"non-broadcastable output operand"), "an update in place (-=, +=, *=, /=) of an array of shape {0} by "
     "a value of shape {1}: the value must fit the array's own shape (an update in place never changes its shape)"),
    (re.compile(r"could not be broadcast together"), "values of shapes {all} were combined elementwise: NumPy lines "
     "their axes up from the right, and each pair of sizes must be equal, or one of them 1"),
    (re.compile(r"shapes \(.*\) and \(.*\) not aligned|mismatch in its core dimension"), "a matrix product whose "
     "inner sizes differ{inner}: the first's last size must equal the second's second-to-last"),
]


def shapes_made(error: BaseException, own: Callable[[types.FrameType, int], bool], shown: Callable[[str], str]) -> str:
    """For NumPy's error of two shapes that do not fit, raised at a line of the learner's own (by its operators or a
    NumPy function it calls): what the words mean, each value that line reads of a shape the error names, and the
    line of the learner's above that made it (and the values of that shape it was made from); a value held in the
    state of another parameter (an optimizer's ``self.state[j]``) is said to be. "" for any other error."""
    meant = next((words for pattern, words in SHAPE_MEANT if pattern.search(str(error))), "")
    walked = _walk(error.__traceback__)
    mine = [i for i, (f, n) in enumerate(walked) if own(f, n)]
    if not meant or not mine or any(f"{os.sep}numpy{os.sep}" not in f.f_code.co_filename for f, _ in walked[mine[-1] + 1:]):
        return ""   # raised below in the package's own code (the given unbroadcast): the repair's tracer says where
    shapes = [s.replace(" ", "") for s in SHAPE.findall(str(error)) if s != "()"]
    joined = " and ".join(shapes)
    meant = meant.format(*(shapes + ["", ""])[:2], all=joined, inner=f" ({joined})" if shapes else "")
    frame, number = walked[mine[-1]]
    code, said, seen = frame.f_code, list[str](), set[str]()

    def shape(name: str) -> str:
        found = getattr(frame.f_locals.get(name), "shape", None)
        return str(tuple(found)).replace(" ", "") if isinstance(found, tuple) else ""

    todo = [(n, number) for n in _read_on(code, number) if shape(n) in shapes]
    while todo and len(said) < 4:
        name, below = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        made = next((n for n in range(below - 1, code.co_firstlineno, -1)
                     if name in names_at(code, n, stored=True) and own(frame, n)), 0)
        if not made:
            said.append(f"{name} has shape {shape(name)}")
            continue
        came = [n for n in _read_on(code, made) if n != name and n not in seen and shape(n) == shape(name)]
        text = linecache.getline(code.co_filename, made).strip()
        said.append(f"{name} has shape {shape(name)}, made at line {made} of {shown(code.co_filename)} "
                    f"({code.co_qualname}){' from ' + ' and '.join(came) if came else ''}: {text}")
        todo += [(n, made) for n in came]
    other = next((words for name in seen if (words := _other_state(frame, name))), "")
    return f"NumPy's words mean: {meant}.{other}" + (f" Of the values your line reads: {'; '.join(said)}." if said else "")


def _other_state(frame: types.FrameType, name: str) -> str:
    """Words for a value ``name`` of ``frame`` that the state of another parameter holds (``self.state[j]``, one
    dict per parameter, in ``self.params``' order), not that of the parameter the frame steps; "" otherwise."""
    owner, value = frame.f_locals.get("self"), frame.f_locals.get(name)
    params, states = list(getattr(owner, "params", None) or []), getattr(owner, "state", None)
    if value is None or not isinstance(states, list) or len(states) != len(params):
        return ""
    mine = next((i for v in frame.f_locals.values() for i, p in enumerate(params) if p is v), None)
    other = next((j for j, entry in enumerate(states) if j != mine and isinstance(entry, dict)
                  and any(v is value for v in entry.values())), None)
    if mine is None or other is None:
        return ""
    return (f" {name} is held in the state of another parameter (self.state[{other}], of a parameter of shape "
            f"{tuple(getattr(params[other], 'shape', ()))}), not in this one's (of shape "
            f"{tuple(getattr(params[mine], 'shape', ()))}): read and keep each parameter's values in its own state.")


def _walk(tb: types.TracebackType | None) -> list[tuple[types.FrameType, int]]:
    found = []
    while tb is not None:
        found.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return found


def first_not_finite(run: Callable[[], Any], functions: list[Callable],
                     seconds: float = 2.0) -> tuple[Callable, int, str, str, list] | None:
    """``run`` once under a tracer: the first line of the learner's own code in ``functions``
    (or functions made in them) after which a local holds a float array or number with a NaN
    or an inf, or which returns one, where the arguments held none: (the function, the line,
    the local's name or "", how that line makes it, the names it reads that hold a 0 or less);
    None when no line does, or none within ``seconds`` of tracing."""
    owners = _owners(functions)
    found: list = []
    until = time.monotonic() + seconds   # then the run goes on untraced: it costs what it costs without

    def bad(value: Any) -> bool:
        kind = getattr(getattr(value, "dtype", None), "kind", "")
        return type(value).__module__ == "numpy" and kind in "fc" and not bool((value == value).all() and
                                                                               (abs(value) != float("inf")).all())

    def called(frame: types.FrameType, event: str, _: Any) -> Any:
        if frame.f_code not in owners or found or time.monotonic() > until \
                or any(bad(v) for v in frame.f_locals.values()):
            return None
        function, below = owners[frame.f_code]
        seen = {name: id(value) for name, value in frame.f_locals.items()}
        last = [0]

        def step(frame: types.FrameType, event: str, arg: Any) -> Any:
            if found or time.monotonic() > until:
                return None
            held = dict(frame.f_locals)   # a new value with one, or one made in place (g /= a keeps g's id)
            made = [n for n, v in held.items() if (seen.get(n) != id(v) or type(v).__module__ == "numpy") and bad(v)]
            seen.update({n: id(v) for n, v in held.items()})
            if last[0] > below and (made or event == "return" and bad(arg)):
                found.append((function, frame.f_code, last[0], made[0] if made else "", held,
                              held[made[0]] if made else arg))
                return None
            last[0] = frame.f_lineno
            return step
        return step
    kept = sys.gettrace()
    sys.settrace(called)
    try:
        run()
    finally:
        sys.settrace(kept)
    if not found:
        return None
    function, code, line, name, held, value = found[0]
    how, below, suspects = _how(linecache.getline(code.co_filename, line))
    if how == "divides" and not (abs(value) == float("inf")).any():   # a NaN, no inf: 0 divided by 0
        how = "zero by zero"
    small = [n for n in suspects if n in held and _low(held[n], below)]
    return function, line, name, how, small


def words(line: int, file: str, function: str, name: str, how: str, small: list[str]) -> str:
    """``first_not_finite``'s finding in words (the grader's ``repair.not_finite_words`` says it alike)."""
    value = f": {name} holds one there" if name else ": it returns one there"
    zero = " or ".join(f"{n} is 0" for n in small)
    cause = {"divides": f"; that line divides by zero ({zero} on this case)" if small else "; that line divides",
             "zero by zero": f"; that line divides 0 by 0 ({zero} on this case)" if small else "; that line divides 0 by 0",
             "log": f"; that line takes a log or a square root of 0 or less ({zero} or less on this case)" if small
             else "; that line takes a log or a square root", "power": "; that line raises to a power (0 to a "
             f"negative power?{f' {zero} on this case' if small else ''})", "exp": "; that line takes an exp (of a "
             "large number: it overflows)"}.get(how, "")
    return (f"The first NaN or inf of your code on this case is made at line {line} of {file} ({function}){value}"
            f"{cause}. Guard that case (np.where) or compute it another way.")


def _how(text: str) -> tuple[str, bool, list[str]]:
    """What a line does that can make a NaN or an inf, whether a value of 0 or less (True)
    or of 0 (False) is the one to look for, and the names in that place (a divisor...)."""
    try:
        tree = ast.parse(text.strip().removeprefix("return ").removesuffix(":") or "0")
    except SyntaxError:
        return "", False, []
    nodes = list(ast.walk(tree))
    names = lambda places: list(dict.fromkeys(n.id for p in places for n in ast.walk(p)  # noqa: E731
                                              if isinstance(n, ast.Name)))
    divisors = [n.right if isinstance(n, ast.BinOp) else n.value for n in nodes  # x / a, and x /= a in place
                if isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, (ast.Div, ast.FloorDiv))]
    if divisors:
        return "divides", False, names(divisors)
    logs = [a for n in nodes if isinstance(n, ast.Call) and getattr(n.func, "attr", "") in ("log", "log2", "sqrt")
            for a in n.args]
    if logs:
        return "log", True, names(logs)
    powers = [n.left if isinstance(n, ast.BinOp) else n.target for n in nodes
              if isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, ast.Pow)]
    if powers:
        return "power", False, names(powers)
    if any(isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "exp" for n in nodes):
        return "exp", False, []
    return "", False, []


def _low(value: Any, below: bool) -> bool:
    kind = getattr(getattr(value, "dtype", None), "kind", "")
    if type(value).__module__ != "numpy" or kind not in "fiu":
        return isinstance(value, (int, float)) and (value <= 0 if below else value == 0)
    return bool((value <= 0).any() if below else (value == 0).any())
