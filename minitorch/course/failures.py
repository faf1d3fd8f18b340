"""A visible check's failure: ``CheckFailed``, shown in a notebook as its message alone,
first and in full (IPython's ``_render_traceback_`` hook, no traceback through the checks'
machinery), and ``checking``, the block of every check cell, which turns an exception of
the learner's own code into a CheckFailed naming the check's line, its case and the learner's
line (a hint only where the check gives one that addresses the exception); when the check
fails and an earlier task whose code it runs fails its own check, it says "Task X.Y first"
instead (``earlier.py``).
"""

from __future__ import annotations

import contextlib
import dis
import linecache
import pathlib
import re
import sys
import time
import traceback
import types
from typing import Callable, Iterator

import numpy as np

from . import diagnose, earlier, evidence, made_at, mutants, repair

ROOM = pathlib.Path(__file__).resolve().parent  # minitorch/course/: the checks' machinery
PACKAGE = ROOM.parent
_task: list[str] = []  # the task whose check cell runs (checking)


class CheckFailed(AssertionError):
    """A visible check that failed; the message says what to fix."""

    def _render_traceback_(self) -> list[str]:  # IPython shows these lines instead of a traceback
        first, _, more = str(self).partition("\n")
        return [f"\x1b[0;31mCheckFailed\x1b[0m: \x1b[1m{first}\x1b[0m", *more.splitlines()]


def stuck() -> str:
    return f"Stuck? mt.hint(\"{_task[-1]}\") gives a hint, one step at a time." if _task else ""


def _yours(error: BaseException) -> list[tuple[traceback.FrameSummary, bool]]:
    """The frames of ``error`` in the package's own files (not this room's), each with
    whether it is in a function holding a "# Task X.Y:" label (a learner's function)."""
    found = []
    for frame, number in traceback.walk_tb(error.__traceback__):
        path = pathlib.Path(frame.f_code.co_filename).resolve()
        if path.is_relative_to(PACKAGE) and not path.is_relative_to(ROOM):
            summary = traceback.FrameSummary(str(path), number, frame.f_code.co_name)
            found.append((summary, mutants.own_line(frame, number)))
    return found


def called_from() -> str:
    """Where your code called the caller (a check's recording model): "line 45 of
    minitorch/training.py (train_epoch)", the innermost line of a function of yours on the
    stack; "" when none is."""
    frame = sys._getframe(1)
    while frame is not None:
        path = pathlib.Path(frame.f_code.co_filename).resolve()
        if path.is_relative_to(PACKAGE) and not path.is_relative_to(ROOM) and mutants.own_line(frame, frame.f_lineno):
            return f"line {frame.f_lineno} of {path.relative_to(PACKAGE.parent).as_posix()} ({frame.f_code.co_qualname})"
        frame = frame.f_back
    return ""


def returned_at(run: Callable[[], object], function: Callable) -> str:
    """Where ``function`` (yours) returned when ``run`` ran: "line 85 of minitorch/losses.py
    (CrossEntropy.backward)"; "" when it did not, or not from a line of yours."""
    code, seen = getattr(function, "__code__", None), []

    def watch(frame: types.FrameType, event: str, _: object) -> None:
        if event == "return" and frame.f_code is code and mutants.own_line(frame, frame.f_lineno):
            path = pathlib.Path(code.co_filename).resolve()
            seen.append(f"line {frame.f_lineno} of {path.relative_to(PACKAGE.parent).as_posix()} ({code.co_qualname})")
    kept = sys.getprofile()
    sys.setprofile(watch)
    try:
        run()
    except Exception:  # noqa: BLE001 - only where it returned matters
        pass
    finally:
        sys.setprofile(kept)
    return seen[-1] if seen else ""


def _rule_returned(error: BaseException) -> list[traceback.FrameSummary]:
    """The learner's rule whose result the engine refused (raised in ``chain_rule``, or in a node's
    check of a gradient, after the rule had returned): its return line, or its first line when it
    has several returns. [] when the error was raised anywhere else."""
    frames = [frame for frame, _ in traceback.walk_tb(error.__traceback__)]
    if not frames or frames[-1].f_code.co_name not in ("chain_rule", "_checked"):
        return []
    node = frames[-1].f_locals.get("self")
    rule = getattr(node, "_backward", None) or getattr(getattr(node, "function", None), "backward", None)
    code = getattr(rule, "__code__", None)
    if code is None or not pathlib.Path(code.co_filename).resolve().is_relative_to(PACKAGE):
        return []
    returns = {line for i in dis.get_instructions(code) if i.opname.startswith("RETURN") and i.positions
               and (line := i.positions.lineno) is not None}
    number = returns.pop() if len(returns) == 1 else code.co_firstlineno
    path = str(pathlib.Path(code.co_filename).resolve())
    if not any("# Task " in linecache.getline(path, n) for n in range(code.co_firstlineno, max(number, code.co_firstlineno + 1) + 1)):
        return []
    return [traceback.FrameSummary(path, number, code.co_name)]


def _shape_hint(message: str, named: bool = False) -> str:
    """The pattern that fits the shapes a NumPy error names, if one does (of a size-1 axis,
    none when a known mistake is ``named``: its fix says whether to keep or drop one)."""
    reshape = re.search(r"cannot reshape array of size (\d+) into shape \(([\d, ]*)\)", message)
    if reshape:
        size, shape = int(reshape.group(1)), [int(n) for n in reshape.group(2).replace(" ", "").split(",") if n]
        whole = int(np.prod(shape))
        if whole and size > whole and size % whole == 0:
            return (f"It holds {size // whole} times the values of shape {tuple(shape)}: an axis of size {size // whole} "
                    "was not summed (a batch axis, or one the input was stretched along)?")
    shapes = [tuple(int(n) for n in found.split(",") if n.strip()) for found in re.findall(r"\((\d+(?:, ?\d+)*,?)\)", message)]
    if len(shapes) >= 2:
        found = diagnose.shape_pattern(shapes[0], shapes[1])
        if found.mistake == "lost keepdims" and not named:  # which of the two is the wrong one, the shapes do not say
            return (f"{shapes[0]} and {shapes[1]} differ only by a size-1 axis: one of them lost it, or has one too "
                    "many (keepdims=True or np.expand_dims keeps or puts one back; a reshape drops one).")
        if found.mistake in ("transposed", "missing unbroadcast"):
            return f"{shapes[0]} and {shapes[1]}: {found.text}"
    return ""


def _names(frame: types.FrameType | None, number: int) -> str:
    """The values of the short variables the check's line ``number`` uses: the case it was
    running (read from the compiled code, so it works without the cell's source)."""
    if frame is None:
        return ""
    used = [i.argval for i in dis.get_instructions(frame.f_code) if i.positions and i.positions.lineno == number
            and i.opname in ("LOAD_NAME", "LOAD_GLOBAL", "LOAD_FAST", "LOAD_DEREF")]
    seen: dict[str, str] = {}
    for name in dict.fromkeys(used):
        value = frame.f_locals.get(name, frame.f_globals.get(name))
        if value is None or isinstance(value, (types.ModuleType, types.FunctionType, type)) or callable(value):
            continue
        try:   # a learner's object may fail to print: the real error must still show
            text = f"an array of shape {value.shape}" if isinstance(value, np.ndarray) else repr(value)
        except Exception:  # noqa: BLE001
            continue
        if len(text) <= 70:
            seen[name] = text
    return ", ".join(f"{k} = {v}" for k, v in seen.items())


def raised(error: Exception, call: str, case: str, hint: str = "", named: str = "",
           wanted: type | None = None) -> CheckFailed:
    """Your exception as a check failure: the call and case (and the known mistake that
    predicts the exception, ``named``), your line, and ``hint``, only when the check gives
    one that addresses this exception (the task's own hints are a call away: ``stuck``).
    ``wanted``: the exception the call should raise, when yours is of another type."""
    frames = _yours(error)
    instead = f" where the task asks for a {wanted.__name__}" if wanted else ""
    text = f"{call}{f' with {case}' if case else ''} raised {type(error).__name__}{instead}: {error}" \
        + (f" (known mistake: {named})" if named else "")
    learner = [f for f, labelled in frames if labelled] or _rule_returned(error)
    for frame in learner[-1:] or [f for f, _ in frames[-1:]]:  # your own line; given code's only when none of yours ran
        shown = pathlib.Path(frame.filename).relative_to(PACKAGE.parent).as_posix()
        whose = "your line" if learner else "raised"
        text += f"\n  {whose}: {shown}, line {frame.lineno}, in {frame.name}: {(frame.line or '').strip()}"
    meant = made_at.explained(error, mutants.own_line, lambda p: pathlib.Path(p).resolve().relative_to(PACKAGE.parent)
                              .as_posix())  # what NumPy's words mean, and the line of yours that made the value
    text += f"\n  {meant}" if meant else ""
    # no hint of the task's own unless it addresses this error (the check passes one that does); no shape pattern
    # read from your own raise statement's words (the shapes it names are the case's, not arrays of yours)
    own = bool(learner) and (learner[-1].line or "").strip().startswith("raise")
    if wanted and own:
        hint = f"Fix: raise {wanted.__name__} there: a caller (this check too) catches a {wanted.__name__} by its name." \
            + (f" {hint}" if hint else "")
    shape = "" if own else _shape_hint(str(error), bool(named))
    for line in ((hint, shape) if named else (shape, hint)) + (stuck(),):  # a named mistake's words first
        text += f"\n  {line}" if line else ""
    return CheckFailed(text)


@contextlib.contextmanager
def checking(task: str) -> Iterator[None]:
    """A check cell's body: an exception of your code (not a stub's NotImplementedError)
    comes back as a CheckFailed naming the check's line, its case and your line."""
    __tracebackhide__ = True
    _task.append(task)
    began = time.perf_counter()
    repair.forget()
    try:
        with evidence.block():  # the cases this check judges are its evidence for naming a known mistake
            yield
    except (NotImplementedError, KeyboardInterrupt):
        raise
    except Exception as error:
        if repair.searching():   # an edit of the repair search, tried on this check: only its outcome matters
            raise
        earlier.record(task, error)
        waits = earlier.first(task)  # an earlier task whose code this check runs fails its own check: that first
        if waits:
            raise CheckFailed(waits) from None
        if isinstance(error, CheckFailed):
            raise _located(error, task, error, began) from None
        frames = [(f, n) for f, n in traceback.walk_tb(error.__traceback__)]
        cell = [(f, n) for f, n in frames if not pathlib.Path(f.f_code.co_filename).resolve().is_relative_to(PACKAGE)]
        frame, number = cell[0] if cell else (None, 0)  # the check's own line
        line = linecache.getline(frame.f_code.co_filename, number).strip() if frame is not None else ""
        where = f"at the line `{line}`" if line else f"at line {number} of the check"
        raise _located(raised(error, f"Task {task}'s check, {where}", _names(frame, number)), task, error, began) from None
    else:
        if not repair.searching():
            earlier.record(task, None)
    finally:
        _task.pop()


def _located(failure: CheckFailed, task: str, error: BaseException, began: float) -> CheckFailed:
    """``failure`` with the line a repair search of your code points at, second (``repair.py``)."""
    cell = next((f for f, _ in traceback.walk_tb(error.__traceback__)
                 if not pathlib.Path(f.f_code.co_filename).resolve().is_relative_to(PACKAGE)), None)
    found = " ".join(w for w in (repair.not_finite_line(task, error, PACKAGE),  # where your first NaN is made
                                 repair.found_line(task, error, cell, PACKAGE, began)) if w)
    if not found:
        return failure
    first, _, more = str(failure).partition("\n")
    return CheckFailed(f"{first}\n  {found}" + (f"\n{more}" if more else ""))
