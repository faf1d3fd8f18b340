"""A visible check's failure: ``CheckFailed``, shown in a notebook as its message alone,
first and in full (IPython's ``_render_traceback_`` hook, no traceback through the checks'
machinery), and ``checking``, the block of every check cell, which turns an exception of
the learner's own code into a CheckFailed naming the check's line, its case, the learner's
line and the task's first hint.
"""

from __future__ import annotations

import ast
import contextlib
import linecache
import pathlib
import traceback
import types
from typing import Iterator

import numpy as np

PACKAGE = pathlib.Path(__file__).resolve().parent
_task: list[str] = []  # the task whose check cell runs (checking)


class CheckFailed(AssertionError):
    """A visible check that failed; the message says what to fix."""

    def _render_traceback_(self) -> list[str]:  # IPython shows these lines instead of a traceback
        first, _, more = str(self).partition("\n")
        return [f"\x1b[0;31mCheckFailed\x1b[0m: \x1b[1m{first}\x1b[0m", *more.splitlines()]


def stuck() -> str:
    return f"Stuck? mt.hint(\"{_task[-1]}\") gives a hint, one step at a time." if _task else ""


def _yours(error: BaseException) -> list[traceback.FrameSummary]:
    """The frames of ``error`` in the package's own files (not the checks' machinery)."""
    mine = {PACKAGE / name for name in ("visible.py", "failures.py", "diagnose.py", "heatmaps.py")}
    return [f for f in traceback.extract_tb(error.__traceback__)
            if pathlib.Path(f.filename).resolve().is_relative_to(PACKAGE) and pathlib.Path(f.filename).resolve() not in mine]


def _names(line: str, frame: types.FrameType | None) -> str:
    """The values of the short variables a check's line uses: the case it was running."""
    try:
        tree = ast.parse(line.strip().rstrip(":").removeprefix("with ").removeprefix("for ") or "None")
    except SyntaxError:
        return ""
    seen: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and frame is not None and node.id in frame.f_locals and node.id not in seen:
            value = frame.f_locals[node.id]
            if not isinstance(value, (types.ModuleType, types.FunctionType, type)) and len(repr(value)) <= 70:
                seen[node.id] = repr(value) if not isinstance(value, np.ndarray) else f"an array of shape {value.shape}"
    return ", ".join(f"{k} = {v}" for k, v in seen.items())


def raised(error: Exception, call: str, case: str, hint: str = "") -> CheckFailed:
    """Your exception as a check failure: the call and case, your line, and a hint."""
    frames = _yours(error)
    text = f"{call}{f' with {case}' if case else ''} raised {type(error).__name__}: {error}"
    for frame in frames[-2:]:
        shown = pathlib.Path(frame.filename).resolve().relative_to(PACKAGE.parent).as_posix()
        text += f"\n  in {shown}, line {frame.lineno}, in {frame.name}: {(frame.line or '').strip()}"
    for line in (hint, stuck()):
        text += f"\n  {line}" if line else ""
    return CheckFailed(text)


@contextlib.contextmanager
def checking(task: str) -> Iterator[None]:
    """A check cell's body: an exception of your code (not a stub's NotImplementedError)
    comes back as a CheckFailed naming the check's line, its case and your line."""
    __tracebackhide__ = True
    _task.append(task)
    try:
        yield
    except (CheckFailed, NotImplementedError, KeyboardInterrupt):
        raise
    except Exception as error:
        frames = [(f, n) for f, n in traceback.walk_tb(error.__traceback__)]
        cell = [(f, n) for f, n in frames if not pathlib.Path(f.f_code.co_filename).resolve().is_relative_to(PACKAGE)]
        frame, number = cell[0] if cell else (None, 0)  # the check's own line
        line = linecache.getline(frame.f_code.co_filename, number).strip() if frame is not None else ""
        from .hints import hint_text
        raise raised(error, f"Task {task}'s check, at the line `{line}`" if line else f"Task {task}'s check",
                      _names(line, frame), hint_text(task, 1)) from None
    finally:
        _task.pop()


