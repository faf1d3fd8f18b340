"""Small edits of a learner's function, drawn from an error model of the mistakes learners
make (after Singh, Gulwani and Solar-Lezama, PLDI 2013; the kinds are ``edit_kinds.py``'s):
flip a sign, swap two operands, change an axis, keepdims or a transpose, change a constant,
group a product or quotient the other way, use another variable or attribute in scope,
drop a term or a factor, multiply by a variable, unwrap or wrap a call.

Only the lines below the function's "# Task X.Y:" label are edited (the learner's own); a
learner who typed over the label (issue 45: learner 3 replaced label and stub alike) keeps
the lines the release gave above it, which ``regions.json`` (written by ``make release``)
lists for each task's function: the lines below those are the learner's.
Each edit is a new code object for the same function, its lines where they were, to be
put in place for a moment (``patched``) while a check runs again. ``KINDS`` says each
kind of edit in words for a message: a message names the line and the kind, never the
edited code. Standard library only: the grader's learner process holds a copy of this
file and of ``edit_kinds.py`` (``grader/learner/``, written by ``make release``).
"""

from __future__ import annotations

import ast
import contextlib
import copy
import inspect
import json
import linecache
import pathlib
import re
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .edit_kinds import KINDS, ORDER, changes, scope

LIMIT = 400  # edits of one function at most: a longer function is not searched
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


@dataclass(frozen=True)
class Edit:
    line: int            # the edited line, in the function's file
    kind: str            # a key of KINDS
    code: types.CodeType

    def words(self) -> str:
        return KINDS[self.kind]


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


def _tree(fn: Callable) -> tuple[ast.FunctionDef, int] | None:
    """The function's tree, numbered as its file, and its label's line; None when it has
    no label, closes over names, or its file no longer holds it as it was compiled."""
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType) or code.co_freevars:
        return None
    try:
        lines, first = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef) or node.name != code.co_name or first != code.co_firstlineno:
        return None
    ast.increment_lineno(tree, first - 1)
    label = own_from(getattr(fn, "__module__", "") or "", code.co_qualname, first, lines)
    if label is None or any(isinstance(n, (ast.While, ast.Yield, ast.YieldFrom, ast.Await)) for n in ast.walk(node)):
        return None  # no learner's region; or a loop an edit could make endless
    node.decorator_list = []
    return node, label


def _slots(node: ast.AST) -> Iterator[tuple[ast.AST, str, int | None, ast.AST]]:
    """Every (parent, field, index, child) under ``node``, depth first, in a fixed order."""
    for field, value in ast.iter_fields(node):
        if isinstance(value, list):
            for i, child in enumerate(value):
                if isinstance(child, ast.AST):
                    yield node, field, i, child
                    yield from _slots(child)
        elif isinstance(value, ast.AST):
            yield node, field, None, value
            yield from _slots(value)


def edits(fn: Callable, limit: int = LIMIT) -> list[Edit] | None:
    """Every edit of ``fn``'s own lines the error model holds (none for a function with no
    "# Task" label); None when there would be more than ``limit`` (too long to search)."""
    found = _tree(fn)
    if found is None:
        return []
    node, label = found
    where = scope(node, fn.__globals__, _forward(fn))
    plans = [(slot, kind, change) for slot in _slots(node) if getattr(slot[3], "lineno", label + 1) > label
             for kind, change in changes(slot[0], slot[3], where)]
    plans.sort(key=lambda plan: ORDER.index(plan[1]))  # the common kinds first
    if len(plans) > limit:
        return None
    made: list[Edit] = []
    for (parent, field, index, child), kind, change in plans:  # each edit made in place, compiled, then undone
        new = change(copy.copy(child))
        if hasattr(child, "lineno") and not hasattr(new, "lineno"):  # a node of the tree keeps its own place
            new = ast.copy_location(new, child)
        new = ast.fix_missing_locations(new)
        _put(parent, field, index, new)
        try:
            module = compile(ast.Module([node], []), fn.__code__.co_filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, TypeError):
            continue
        finally:
            _put(parent, field, index, child)
        code = next(c for c in module.co_consts if isinstance(c, types.CodeType) and c.co_name == node.name)
        if not code.co_freevars:
            made.append(Edit(getattr(child, "lineno", label + 1), kind, code))
    return made


def _forward(fn: Callable) -> ast.FunctionDef | None:
    """The tree of the forward beside ``fn`` (a Function's backward), or None."""
    owner = fn.__globals__.get(fn.__qualname__.split(".")[0]) if fn.__qualname__.count(".") == 1 else None
    forward = getattr(owner, "forward", None)
    if fn.__name__ != "backward" or not isinstance(forward, types.FunctionType):
        return None
    try:
        node = ast.parse(textwrap.dedent(inspect.getsource(forward))).body[0]
    except (OSError, TypeError, SyntaxError, IndentationError, IndexError):
        return None
    return node if isinstance(node, ast.FunctionDef) else None


def _put(parent: ast.AST, field: str, index: int | None, child: ast.AST) -> None:
    if index is None:
        setattr(parent, field, child)
    else:
        getattr(parent, field)[index] = child


@contextlib.contextmanager
def patched(fn: Any, code: types.CodeType) -> Iterator[None]:
    """``fn`` runs ``code`` inside the block, wherever it is called from."""
    kept = fn.__code__
    fn.__code__ = code
    try:
        yield
    finally:
        fn.__code__ = kept


def located(accepted: list[Edit]) -> tuple[int, list[str]] | None:
    """The one line every accepted edit changes, and their kinds; None unless there is one."""
    lines = {e.line for e in accepted}
    return (lines.pop(), list(dict.fromkeys(e.kind for e in accepted))) if len(lines) == 1 else None


def first_other_dtype(run: Callable[[], Any], functions: list[Callable], dtype: str) -> tuple[Callable, int, str, str] | None:
    """Where a dtype drift begins: ``run`` once under a tracer, the first line of the
    learner's own code in ``functions`` (or functions made in them) after which a local holds
    a NumPy array or number of a numeric dtype other than ``dtype`` (an integer count, a
    float64 constant; bool masks are left out), or which returns one: (the function, the
    line, the local's name or "", that dtype's name); None when no line does. ``run``'s
    exception, if any, is left to the caller's ``run``."""
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
    found: list[tuple[Callable, int, str, str]] = []

    def other(value: Any) -> bool:
        kind = getattr(getattr(value, "dtype", None), "kind", "")
        return type(value).__module__ == "numpy" and kind in "fiuc" and str(value.dtype) != dtype

    def called(frame: types.FrameType, event: str, _: Any) -> Any:
        if frame.f_code not in owners or found:
            return None
        function, below = owners[frame.f_code]
        seen = {name: id(value) for name, value in frame.f_locals.items()}  # the arguments, as given
        last = [0]

        def step(frame: types.FrameType, event: str, arg: Any) -> Any:
            if found:
                return None
            if last[0] > below:
                for name, value in frame.f_locals.items():
                    if seen.get(name) != id(value):
                        seen[name] = id(value)
                        if other(value):
                            found.append((function, last[0], name, str(value.dtype)))
                            return None
                if event == "return" and other(arg):
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
