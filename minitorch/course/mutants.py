"""Small edits of a learner's function, drawn from an error model of the mistakes learners
make (after Singh, Gulwani and Solar-Lezama, PLDI 2013; the kinds are ``edit_kinds.py``'s):
flip a sign, swap two operands, change an axis, keepdims or a transpose, change a constant,
group a product or quotient the other way, use another variable or attribute in scope,
drop a term or a factor, multiply by a variable, unwrap or wrap a call, swap two items of
a subscript, index a value by the loop's variable.

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
import textwrap
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .edit_kinds import KINDS, ORDER, changes, scope
from .own_lines import LABEL, first_other_dtype, key, names_at, own_from, own_line, regions, where_made  # noqa: F401

LIMIT = 400  # edits of one function at most: a longer function is not searched


@dataclass(frozen=True)
class Edit:
    line: int            # the edited line, in the function's file
    kind: str            # a key of KINDS
    code: types.CodeType

    def words(self) -> str:
        return KINDS[self.kind]


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
