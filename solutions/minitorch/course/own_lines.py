"""Which lines of the package are the learner's own: those below a function's "# Task X.Y:"
label, or, when the learner typed their code over the label (issue 45: learner 3 replaced
label and stub alike), those below the lines the release gave above it, which
``regions.json`` (written by ``make release`` beside this file, and beside the grader's
copy) lists for each task's function. Also where a dtype drift begins in those lines
(``first_other_dtype``), and where a value that a call of the learner's refused was made
(``where_made``). Standard library only: the grader's learner process holds a copy
(``grader/learner/own_lines.py``, written by ``make release``).
"""

from __future__ import annotations

import dis
import inspect
import json
import linecache
import os
import pathlib
import re
import sys
import types
from collections.abc import Callable
from typing import Any

LABEL = re.compile(r"\s*# Task \d+\.\d+:")
REGIONS = pathlib.Path(__file__).with_name("regions.json")  # the release's: each task function's given lines


def _read_regions() -> dict[str, dict]:
    try:
        found = json.loads(REGIONS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


_REGIONS = _read_regions()  # read on import: the grader's learner process confines itself after its imports


def regions() -> dict[str, dict]:
    """"module:qualname" (the module without the package's name, the function's outermost
    qualname) -> {"task", "given": the stripped lines above its label, comments and blank
    lines left out}; empty without the release's file (the reference holds its labels)."""
    return _REGIONS


def key(module: str, qualname: str) -> str:
    return f"{module.partition('.')[2]}:{qualname.split('.<locals>.')[0]}"


def own_from(module: str, qualname: str, first: int, lines: list[str]) -> int | None:
    """The line below which a function's lines are the learner's: its "# Task" label, else
    the last of the lines the release gave above the label (when they are all still there,
    in order); None for a function that is no task's. ``lines`` are its source, from ``first``."""
    label = next((first + i for i, line in enumerate(lines) if LABEL.match(line)), None)
    entry = regions().get(key(module, qualname))
    if label is not None or not entry:
        return label
    given = list(entry["given"])
    for i, line in enumerate(lines):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if not given or text != given[0]:
            return None
        given.pop(0)
        if not given:
            return first + i
    return None


def own_line(frame: types.FrameType, number: int) -> bool:
    """Whether line ``number`` of ``frame`` is a learner's: below a "# Task" label, or, where
    the learner typed over the label, below the lines the release gave (``own_from``)."""
    code = frame.f_code
    first = code.co_firstlineno
    lines = [linecache.getline(code.co_filename, n) for n in range(first, number + 1)]
    if any("# Task " in line for line in lines):
        return True
    module = str(frame.f_globals.get("__name__", ""))
    outer = code.co_qualname.split(".<locals>.")[0]
    if outer != code.co_qualname:  # a closure (Task 1.2's backward): its lines are counted from its outer function
        function = frame.f_globals.get(outer.split(".")[0])
        for part in outer.split(".")[1:]:
            function = getattr(function, part, None)
        outer_code = getattr(function, "__code__", None)
        if not isinstance(outer_code, types.CodeType):
            return False
        first = outer_code.co_firstlineno
        lines = [linecache.getline(outer_code.co_filename, n) for n in range(first, number + 1)]
    below = own_from(module, outer, first, lines)
    return below is not None and number > below


def first_other_dtype(run: Callable[[], Any], functions: list[Callable], dtype: str,
                      only: str = "") -> tuple[Callable, int, str, str] | None:
    """Where a dtype drift begins: ``run`` once under a tracer, the first line of the
    learner's own code in ``functions`` (or functions made in them) after which a local holds
    a NumPy array or number of a numeric dtype other than ``dtype`` (an integer count, a
    float64 constant; bool masks are left out), or sets an attribute of ``self`` to one (a
    Parameter's data, "self.weight"), or which returns one: (the function, the
    line, the local's name or "", that dtype's name); None when no line does. ``only``: the
    one name to watch (a check of ``self.weight``'s dtype), if given. ``run``'s
    exception, if any, is left to the caller's ``run``. A call given a float of another dtype is not traced (a check
    that runs float64 cases before its float32 one)."""
    owners = _owners(functions)
    found: list[tuple[Callable, int, str, str]] = []

    def other(value: Any) -> bool:
        kind = getattr(getattr(value, "dtype", None), "kind", "")
        return type(value).__module__ == "numpy" and kind in "fiuc" and str(value.dtype) != dtype

    def called(frame: types.FrameType, event: str, _: Any) -> Any:  # a call given floats of another dtype: no drift
        if frame.f_code not in owners or found or any(other(v) and v.dtype.kind == "f" for v in frame.f_locals.values()):
            return None
        function, below = owners[frame.f_code]
        seen = {name: id(value) for name, value in frame.f_locals.items()}  # the arguments, as given
        seen.update({f"self.{k}": id(v) for k, v in _attributes(frame.f_locals.get("self"))})
        last = [0]

        def step(frame: types.FrameType, event: str, arg: Any) -> Any:
            if found:
                return None
            if last[0] > below:
                made = {**frame.f_locals, **{f"self.{k}": v for k, v in _attributes(frame.f_locals.get("self"))}}
                for name, value in made.items():
                    if seen.get(name) != id(value):
                        seen[name] = id(value)
                        value = getattr(value, "data", value) if name.startswith("self.") else value  # a Parameter
                        if other(value) and only in ("", name):
                            found.append((function, last[0], name, str(value.dtype)))
                            return None
                if event == "return" and other(arg) and not only:
                    found.append((function, last[0], "", str(arg.dtype)))
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
    return found[0] if found else None


def own_caller(frame: types.FrameType | None, root: str) -> tuple[str, int, str] | None:
    """The innermost of ``frame`` and its callers that runs a learner's own line in a file
    under ``root`` (the package's folder): (its file from there, its line, its function)."""
    while frame is not None:
        path = os.path.realpath(frame.f_code.co_filename)
        if path.startswith(root + os.sep) and own_line(frame, frame.f_lineno):
            return os.path.relpath(path, root).replace(os.sep, "/"), frame.f_lineno, frame.f_code.co_qualname
        frame = frame.f_back
    return None


def _attributes(owner: Any) -> list[tuple[str, Any]]:
    """The attributes ``owner`` (a method's self) holds, as a dtype drift's tracer reads them."""
    held = getattr(owner, "__dict__", None)
    return list(held.items()) if isinstance(held, dict) else []


def names_at(code: types.CodeType, line: int, stored: bool) -> set[str]:
    """The local names line ``line`` of ``code`` stores (``stored``) or reads."""
    ops = ("STORE_FAST", "STORE_NAME", "STORE_DEREF") if stored else ("LOAD_FAST", "LOAD_NAME", "LOAD_DEREF",
                                                                       "LOAD_FAST_CHECK", "LOAD_FAST_LOAD_FAST")
    found: set[str] = set()
    for i in dis.get_instructions(code):
        if i.positions and i.positions.lineno == line and i.opname in ops:
            found.update(i.argval if isinstance(i.argval, tuple) else (i.argval,))
    return found


def _owners(functions: list[Callable]) -> dict[types.CodeType, tuple[Callable, int]]:
    """Each code object of ``functions`` (and of functions made in them), with its function and the line below
    which the lines are the learner's own; a function that is no task's is left out."""
    owners: dict[types.CodeType, tuple[Callable, int]] = {}
    for function in functions:
        try:
            lines, first = inspect.getsourcelines(function)
        except (OSError, TypeError):
            continue
        below = own_from(getattr(function, "__module__", "") or "", function.__qualname__, first, lines)
        if below is None:
            continue
        codes = [function.__code__]
        while codes:
            code = codes.pop()
            owners[code] = (function, below)
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return owners


def _read_on(code: types.CodeType, line: int) -> list[str]:
    """The local names line ``line`` of ``code`` reads, in order."""
    names: list[str] = []
    for i in dis.get_instructions(code):
        loads = i.opname.startswith("LOAD_FAST") or i.opname == "LOAD_DEREF"
        if loads and i.positions and i.positions.lineno == line:
            names += list(i.argval) if isinstance(i.argval, tuple) else [i.argval]
    return list(dict.fromkeys(names))


def where_made(run: Callable[[], Any], functions: list[Callable]) -> tuple[Callable, int, list] | None:
    """Where the values were made that a line of the learner's own passed to a call that refused them: ``run``
    once under a tracer; at the last exception that reached that code in ``functions``, when it came from a deeper
    frame (a given helper such as ``unbroadcast``, or a library's Python code: not an operator of the line itself),
    the locals the line reads that were last given a value on another line of the learner's own, each as (its name,
    that line, its shape, or None). (The function, the line, that list), or None when no such exception came."""
    owners = _owners(functions)
    found: list = []  # (the exception, what it found): an exception reaches each frame it leaves, the deepest first

    def called(frame: types.FrameType, event: str, _: Any) -> Any:
        if frame.f_code not in owners:
            return None
        function, below = owners[frame.f_code]
        held = dict(frame.f_locals)  # each local's value (kept, so that no id is reused) and where it was made
        made: dict[str, int] = {}
        last = [0]

        def step(frame: types.FrameType, event: str, arg: Any) -> Any:
            for name, value in frame.f_locals.items():
                if name not in held or held[name] is not value:
                    held[name] = value
                    made[name] = last[0]
            if event == "exception" and not (found and found[-1][0] is arg[1]):
                line, deeper = frame.f_lineno, arg[2] is not None and arg[2].tb_next is not None
                read = [(name, made[name], _shape(held[name])) for name in _read_on(frame.f_code, line)
                        if name in made and below < made[name] != line]
                found.append((arg[1], (function, line, read) if deeper else None))
            last[0] = frame.f_lineno
            return step
        return step
    kept = sys.gettrace()
    sys.settrace(called)
    try:
        run()
    finally:
        sys.settrace(kept)
    return found[-1][1] if found else None


def _shape(value: Any) -> tuple | None:
    shape = getattr(value, "shape", None)
    return tuple(int(n) for n in shape) if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape) else None

