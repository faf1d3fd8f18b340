"""Small edits of a learner's function, drawn from an error model of the mistakes learners
make (after Singh, Gulwani and Solar-Lezama, PLDI 2013): flip a sign, swap two operands,
change an axis, keepdims or a transpose, change a constant, group a product or quotient
the other way, use another variable in scope, drop one term of a sum.

Only the lines below the function's "# Task X.Y:" label are edited (the learner's own).
Each edit is a new code object for the same function, its lines where they were, to be
put in place for a moment (``patched``) while a check runs again. ``KINDS`` says each
kind of edit in words for a message: a message names the line and the kind, never the
edited code. Standard library only: the grader's learner process holds a copy of this
file (``grader/learner/mutants.py``, written by ``make release``).
"""

from __future__ import annotations

import ast
import contextlib
import copy
import inspect
import re
import textwrap
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

KINDS = {"sign": "the sign of one term", "swap": "the order of two operands",
         "axis": "an axis, keepdims or a transpose", "constant": "a constant (a number or a power)",
         "group": "which operations group first (parentheses around a product or quotient)",
         "variable": "which variable is used", "term": "one term of a sum (one too many)"}
LIMIT = 300  # edits of one function at most: a longer function is not searched
LABEL = re.compile(r"\s*# Task \d+\.\d+:")
AXIS_CALLS = {"swapaxes", "moveaxis", "expand_dims", "squeeze", "transpose", "flip", "roll", "concatenate", "stack",
              "split", "take_along_axis", "argmax", "argmin", "cumsum"}
REDUCE = {"sum", "mean", "max", "min", "prod", "amax", "amin", "std", "var", "all", "any", "logsumexp"}
TRANSPOSE = {"swapaxes", "transpose", "moveaxis"}
UNNAMED = {"self", "ctx", "cls", "np", "math"}  # never swapped for another variable


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
    label = next((first + i for i, line in enumerate(lines) if LABEL.match(line)), None)
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


def _locals(node: ast.FunctionDef) -> dict[str, str]:
    """The function's variables, each with its kind: a loop's variable, an object (its
    attributes or items are read) or a value; a variable is swapped only for one of its kind."""
    names = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
    names += [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    loops = {n.id for f in ast.walk(node) if isinstance(f, (ast.For, ast.comprehension))
             for n in ast.walk(f.target) if isinstance(n, ast.Name)}
    objects = {n.value.id for n in ast.walk(node) if isinstance(n, (ast.Attribute, ast.Subscript))
               and isinstance(n.value, ast.Name)}
    return {n: "loop" if n in loops else "object" if n in objects else "value"
            for n in dict.fromkeys(names) if n not in UNNAMED}


def _swapaxes(value: ast.expr) -> ast.expr:
    args: list[ast.expr] = [ast.UnaryOp(ast.USub(), ast.Constant(1)), ast.UnaryOp(ast.USub(), ast.Constant(2))]
    return ast.Call(ast.Attribute(value, "swapaxes", ast.Load()), args, [])


def _numbers(value: Any, axis: bool) -> list:
    if axis:
        return [v for v in dict.fromkeys([value - 1, value + 1, -value, -1, 0]) if v != value]
    table: dict[float, list] = {1: [2, 0, -1], 2: [1, 3, 0.5], 0: [1], -1: [1, -2], 0.5: [2, 1, -0.5]}
    found = table.get(value)
    return found if found is not None else [v for v in dict.fromkeys([-value, 2 * value, value / 2, value + 1, value - 1])
                                              if v != value]


def _number(node: ast.AST) -> Any:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) in (int, float) else None


def _constants(parent: ast.AST, value: float) -> Iterator[tuple[str, Callable]]:
    """Another number in place of ``value``: an axis (a keyword such as axis=, an argument
    of swapaxes and the like) by one or to 0 or -1, any other number as ``_numbers`` says."""
    axis = (isinstance(parent, ast.keyword) and parent.arg in ("axis", "axes", "axis1", "axis2", "dim")) or \
        (isinstance(parent, ast.Call) and getattr(parent.func, "attr", getattr(parent.func, "id", "")) in AXIS_CALLS)
    for new in _numbers(value, axis and isinstance(value, int)):
        yield ("axis" if axis else "constant"), lambda c, v=new: ast.Constant(v) if v >= 0 else \
            ast.UnaryOp(ast.USub(), ast.Constant(-v))


def _changes(parent: ast.AST, field: str, child: ast.AST, names: dict[str, str]) -> Iterator[tuple[str, Callable]]:
    """The kinds of edit that apply to ``child`` (in ``parent``'s ``field``), each with a
    function making the edited node from a copy of it."""
    if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load) and child.id in names:
        for other, kind in names.items():
            if other != child.id and kind == names[child.id]:
                yield "variable", lambda c, o=other: ast.Name(o, ast.Load())
    if isinstance(child, ast.BinOp):
        if isinstance(child.op, (ast.Add, ast.Sub)):
            yield "sign", lambda c: ast.BinOp(c.left, ast.Sub() if isinstance(c.op, ast.Add) else ast.Add(), c.right)
            yield "term", lambda c: c.left
            yield "term", lambda c: c.right if isinstance(c.op, ast.Add) else ast.UnaryOp(ast.USub(), c.right)
        if isinstance(child.op, (ast.Sub, ast.Div, ast.Pow, ast.MatMult, ast.FloorDiv, ast.Mod)):
            yield "swap", lambda c: ast.BinOp(c.right, c.op, c.left)
        if isinstance(child.left, ast.BinOp):  # a op b op2 c -> a op (b op2 c)
            yield "group", lambda c: ast.BinOp(c.left.left, c.left.op, ast.BinOp(c.left.right, c.op, c.right))
        if isinstance(child.right, ast.BinOp):  # a op (b op2 c) -> (a op b) op2 c
            yield "group", lambda c: ast.BinOp(ast.BinOp(c.left, c.op, c.right.left), c.right.op, c.right.right)
        if isinstance(child.op, ast.MatMult):
            yield "axis", lambda c: ast.BinOp(_swapaxes(c.left), c.op, c.right)
            yield "axis", lambda c: ast.BinOp(c.left, c.op, _swapaxes(c.right))
    number = _number(child)
    if number is not None:  # a literal, -1 included: another number
        if not isinstance(parent, ast.UnaryOp):
            yield from _constants(parent, number)
        return
    if isinstance(child, ast.UnaryOp) and isinstance(child.op, ast.USub):
        yield "sign", lambda c: c.operand
    if field == "value" and isinstance(parent, (ast.Return, ast.Assign, ast.AugAssign)) and \
            isinstance(child, (ast.BinOp, ast.Call, ast.Name)):
        yield "sign", lambda c: ast.UnaryOp(ast.USub(), c)
    if isinstance(child, ast.keyword) and child.arg == "keepdims" and isinstance(child.value, ast.Constant):
        yield "axis", lambda c: ast.keyword("keepdims", ast.Constant(not c.value.value))
    if isinstance(child, ast.keyword) and child.arg == "axis" and isinstance(child.value, ast.Constant) \
            and child.value.value is None:
        for value in (0, -1):
            yield "axis", lambda c, v=value: ast.keyword("axis", ast.Constant(v))
    if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
        called = child.func.attr
        if called in REDUCE and not any(k.arg == "keepdims" for k in child.keywords) and \
                (child.args or any(k.arg == "axis" for k in child.keywords)):
            yield "axis", lambda c: ast.Call(c.func, c.args, c.keywords + [ast.keyword("keepdims", ast.Constant(True))])
        if called in TRANSPOSE:  # x.swapaxes(...) -> x; np.swapaxes(x, ...) -> x
            yield "axis", lambda c: c.args[0] if isinstance(c.func.value, ast.Name) and c.func.value.id in ("np", "numpy") \
                and c.args else c.func.value
        if len(child.args) >= 2 and not any(isinstance(a, ast.Starred) for a in child.args[:2]):
            yield "swap", lambda c: ast.Call(c.func, [c.args[1], c.args[0], *c.args[2:]], c.keywords)
    if isinstance(child, ast.Attribute) and child.attr == "T" and isinstance(child.ctx, ast.Load):
        yield "axis", lambda c: c.value


def edits(fn: Callable, limit: int = LIMIT) -> list[Edit] | None:
    """Every edit of ``fn``'s own lines the error model holds (none for a function with no
    "# Task" label); None when there would be more than ``limit`` (too long to search)."""
    found = _tree(fn)
    if found is None:
        return []
    node, label = found
    names = _locals(node)
    plans = [(slot, kind, change) for slot in _slots(node) if getattr(slot[3], "lineno", label + 1) > label
             for kind, change in _changes(slot[0], slot[1], slot[3], names)]
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
