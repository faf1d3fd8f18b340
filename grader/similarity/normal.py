"""A function's code as the copying check compares it: a stream of tokens, each with its
line, from a canonical form of the function's syntax tree (parsed, never run).

The canonical form undoes what a copier does without changing what the code does:
docstrings, comments and layout go (they are not in the tree); every name the function
binds is written ``v``; code after a ``return``, ``raise``, ``break`` or ``continue`` is
dropped, and so is an ``if False:`` and a local that is assigned and never read; a list
built by a loop of appends is written as the comprehension it is (``x = []`` + ``for``
+ ``x.append(e)`` as ``x = [e for ...]``); a local assigned only to be returned is
returned directly. The tokens are the tree's node kinds, operators, attribute names and the
names of what the function reads from outside (``np``, ``unbroadcast``); constants are
written by their kind, so changed numbers or messages do not hide a copy either.
"""

from __future__ import annotations

import ast
import copy

TERMINAL = (ast.Return, ast.Raise, ast.Continue, ast.Break)
BLOCKS = ("body", "orelse", "finalbody")


def canonical(node: ast.FunctionDef | ast.AsyncFunctionDef, fresh: bool = False) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The function ``node`` in its canonical form: a copy, or ``node`` itself rewritten when it is ``fresh``."""
    if not fresh:
        node = copy.deepcopy(node)
    _blocks(node)
    read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    _drop_unread(node, read)
    return node


def _statements(node: ast.AST) -> list[ast.AST]:
    """The statements (and handlers) directly inside ``node``'s blocks."""
    inner: list[ast.AST] = []
    for name in (*BLOCKS, "handlers"):
        body = getattr(node, name, None)
        if isinstance(body, list):
            inner += body
    return inner


def _blocks(node: ast.AST) -> None:
    for child in _statements(node):
        _blocks(child)
    for name in BLOCKS:
        body = getattr(node, name, None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            setattr(node, name, _block(body) or ([ast.Pass()] if name == "body" else []))
    for handler in getattr(node, "handlers", []):
        handler.body = _block(handler.body) or [ast.Pass()]


def _block(body: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) or isinstance(stmt, ast.Pass):
            continue   # a docstring, a string as a comment, a pass
        if isinstance(stmt, ast.AnnAssign):
            if stmt.value is None:
                continue
            stmt = _like(ast.Assign([stmt.target], stmt.value), stmt)
        if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Constant):
            out += stmt.body if stmt.test.value else stmt.orelse
            continue
        if isinstance(stmt, ast.While) and isinstance(stmt.test, ast.Constant) and not stmt.test.value:
            out += stmt.orelse
            continue
        out.append(stmt)
        if isinstance(stmt, TERMINAL):
            break      # nothing after it runs
    out = _comprehensions(out)
    return _returned(out)


def _like(new: ast.stmt, old: ast.stmt) -> ast.stmt:
    new.lineno = old.lineno
    if hasattr(old, "_file"):
        new._file = old._file    # type: ignore[attr-defined]
    return new


def _comprehensions(body: list[ast.stmt]) -> list[ast.stmt]:
    """``x = []`` followed by a loop whose only work is ``x.append(e)`` (under ``if``\\ s) -> ``x = [e for ...]``."""
    out: list[ast.stmt] = []
    i = 0
    while i < len(body):
        stmt = body[i]
        nxt = body[i + 1] if i + 1 < len(body) else None
        target = _empty_list(stmt)
        if target and isinstance(nxt, ast.For) and not nxt.orelse and (found := _appends(nxt, target)):
            element, conditions = found
            comp = ast.ListComp(element, [ast.comprehension(nxt.target, nxt.iter, conditions, 0)])
            out.append(_like(ast.Assign([ast.Name(target, ast.Store())], comp), stmt))
            i += 2
            continue
        out.append(stmt)
        i += 1
    return out


def _empty_list(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and isinstance(stmt.value, ast.List) and not stmt.value.elts:
        return stmt.targets[0].id
    return None


def _appends(loop: ast.For, target: str) -> tuple[ast.expr, list[ast.expr]] | None:
    body, conditions = loop.body, []
    while len(body) == 1 and isinstance(body[0], ast.If) and not body[0].orelse:
        conditions.append(body[0].test)
        body = body[0].body
    if len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(call := body[0].value, ast.Call) \
            and isinstance(call.func, ast.Attribute) and call.func.attr == "append" and len(call.args) == 1 \
            and isinstance(call.func.value, ast.Name) and call.func.value.id == target and not call.keywords:
        return call.args[0], conditions
    return None


def _returned(body: list[ast.stmt]) -> list[ast.stmt]:
    """``x = e`` then ``return x`` -> ``return e``."""
    if len(body) >= 2 and isinstance(last := body[-1], ast.Return) and isinstance(last.value, ast.Name):
        before = body[-2]
        if isinstance(before, ast.Assign) and len(before.targets) == 1 and isinstance(before.targets[0], ast.Name) \
                and before.targets[0].id == last.value.id:
            return body[:-2] + [_like(ast.Return(before.value), before)]
    return body


def _drop_unread(node: ast.AST, read: set[str]) -> None:
    """Assignments to locals that nothing reads (and whose value calls nothing) go."""
    for name in BLOCKS:
        body = getattr(node, name, None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            kept = [s for s in body if not _unread(s, read)]
            setattr(node, name, kept or ([ast.Pass()] if name == "body" else []))
    for child in _statements(node):
        _drop_unread(child, read)


def _unread(stmt: ast.stmt, read: set[str]) -> bool:
    return isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) and t.id not in read for t in stmt.targets) \
        and not any(isinstance(n, (ast.Call, ast.Yield, ast.Await, ast.NamedExpr)) for n in ast.walk(stmt.value))


def bound_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Every name the function (and what it nests) binds: arguments and stores."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not node:
            names.add(n.name)
    return names


SKIP = (ast.expr_context, ast.Load, ast.Store, ast.Del)


def tokens(node: ast.AST, bound: set[str], line: int, file: str, out: list[tuple[str, str, int]]) -> None:
    """``node``'s tokens appended to ``out`` in source order, each with its file and line
    (a node inlined from another file says which, as ``_file``)."""
    line = getattr(node, "lineno", line) or line
    file = getattr(node, "_file", None) or file
    if isinstance(node, ast.Name):
        out.append(("v" if node.id in bound else node.id, file, line))
        return
    if isinstance(node, ast.Constant):
        out.append((f"C{type(node.value).__name__}", file, line))
        return
    if isinstance(node, ast.arg):
        out.append(("v", file, line))
        return
    if isinstance(node, SKIP):
        return
    if isinstance(node, ast.JoinedStr):
        out.append(("fstr", file, line))
        return
    if isinstance(node, ast.Attribute):
        tokens(node.value, bound, line, file, out)
        out.append(("." + node.attr, file, line))
        return
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        out.append(("def", file, line))
        for stmt in node.body:
            tokens(stmt, bound, line, file, out)
        out.append(("end", file, line))
        return
    out.append((type(node).__name__, file, line))
    if isinstance(node, ast.keyword) and node.arg:
        out.append(("=" + node.arg, file, line))
    for child in ast.iter_child_nodes(node):
        tokens(child, bound, line, file, out)
    if isinstance(node, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
        out.append(("end", file, line))
