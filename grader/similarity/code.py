"""Each task's code in a package, as the copying check compares it.

A task's code is the functions its solution regions fill (``units``: found once in the
reference, where each region sits in its innermost function). In a hand-in those functions
are found by name and read without running anything: parsed with ``ast``, their docstrings
and comments dropped, every name the function binds (its arguments, its locals) written
``v``, each statement on a line of its own in one layout (``lines``). The lines the
released stub already holds (its signature, the given code around the region) are taken
out, so that only what the learner wrote is compared. A file that does not parse is read
as text (``text_lines``): its lines less comments, so it is still compared, less robustly.
"""

from __future__ import annotations

import ast
import copy
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from grader.release.regions import find_regions

Line = tuple[str, str, int]     # (normalised text, file, line number in that file)


@dataclass(frozen=True)
class Unit:
    task: str
    file: str        # relative to minitorch/, e.g. "nn/modules.py"
    qualname: str    # "Scalar.__add__.backward"


@dataclass
class TaskCode:
    lines: list[Line] = field(default_factory=list)
    shown: dict[str, list[tuple[int, str]]] = field(default_factory=dict)   # "file: qualname" -> numbered source


def units(package: Path) -> list[Unit]:
    """The functions each region of the reference package ``package`` sits in, in order."""
    found: list[Unit] = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        regions = find_regions(text, str(path))
        if not regions:
            continue
        functions = list(_functions(ast.parse(text)))
        for region in regions:
            inside = [(name, node) for name, node in functions if node.lineno <= region.begin + 1 <= (node.end_lineno or 0)]
            name = max(inside, key=lambda item: item[1].lineno)[0]
            unit = Unit(region.task, path.relative_to(package).as_posix(), name)
            if unit not in found:
                found.append(unit)
    return found


def _functions(tree: ast.AST, prefix: str = ""):
    """Every function defined by a statement of ``tree``, by qualified name (statements only
    are walked: a def is always one)."""
    for body in ("body", "orelse", "finalbody", "handlers"):
        for node in getattr(tree, body, None) or ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + node.name
                if not isinstance(node, ast.ClassDef):
                    yield name, node
                yield from _functions(node, name + ".")
            elif isinstance(node, (ast.stmt, ast.excepthandler)):
                yield from _functions(node, prefix)


def read_tasks(package: Path, wanted: list[Unit], given: dict[str, Counter[str]]) -> tuple[dict[str, TaskCode], list[str]]:
    """Each task's code in ``package`` (the learner's lines only: ``given`` holds each task's
    lines of the released stub), and a note for each file that could not be parsed or read."""
    tasks: dict[str, TaskCode] = {}
    notes: list[str] = []
    trees: dict[str, tuple[dict[str, ast.AST] | None, list[str]]] = {}
    for unit in wanted:
        if unit.file not in trees:
            tree, text = _parse(package / unit.file, unit.file, notes)
            trees[unit.file] = (dict(_functions(tree)) if tree else None), text
        functions, source = trees[unit.file]
        try:
            found = function_lines(functions, source, unit.qualname, unit.file)
        except (RecursionError, ValueError):   # nested too deep to rewrite: its text, as a file that does not parse
            notes.append(f"minitorch/{unit.file}: {unit.qualname} is nested too deeply to parse: compared as text")
            found = text_lines(source, unit.qualname, unit.file)
        if found is None:
            continue
        lines, numbered = found
        code = tasks.setdefault(unit.task, TaskCode())
        code.lines += lines
        code.shown[f"{unit.file}: {unit.qualname}"] = numbered
    for task, code in tasks.items():
        left = Counter(given.get(task, Counter()))
        kept = []
        for line in code.lines:
            if left[line[0]] > 0:
                left[line[0]] -= 1
            else:
                kept.append(line)
        code.lines = kept
    return {task: code for task, code in tasks.items() if code.lines}, notes


def _parse(path: Path, name: str, notes: list[str]) -> tuple[ast.AST | None, list[str]]:
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return None, []
    try:
        return ast.parse(text), text.splitlines()
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        where = f" at line {error.lineno}" if isinstance(error, SyntaxError) and error.lineno else ""
        notes.append(f"minitorch/{name} does not parse{where}: its functions were compared as text")
        return None, text.splitlines()


def function_lines(functions: dict[str, ast.AST] | None, source: list[str], qualname: str,
                   file: str) -> tuple[list[Line], list[tuple[int, str]]] | None:
    """The normalised lines of the function ``qualname`` (of ``functions``, a parsed file's
    functions by qualified name; None for a file that does not parse) and its numbered
    source, or None when the file has no such function. Renames in place: each function is
    read once."""
    if functions is None:
        return text_lines(source, qualname, file)
    node = functions.get(qualname)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    bound = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    bound |= {a.arg for n in ast.walk(node) if isinstance(n, ast.Lambda) for a in ast.walk(n.args) if isinstance(a, ast.arg)}
    end = node.end_lineno or node.lineno
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    renamed = _Rename(bound).visit(node)
    lines: list[Line] = []
    _emit(renamed.body, lines, file)
    return lines, [(n, source[n - 1]) for n in range(start, end + 1) if n <= len(source)]


class _Rename(ast.NodeTransformer):
    """Every name the function binds becomes ``v``; names it reads from outside (``np``,
    ``unbroadcast``, ``math``) and attributes stay."""

    def __init__(self, bound: set[str]) -> None:
        self.bound = bound

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.bound:
            node.id = "v"
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg, node.annotation = "v", None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.generic_visit(node)
        node.name, node.returns = "v", None
        return node


BODIES = ("body", "orelse", "finalbody")


def _emit(body: list[ast.stmt], out: list[Line], file: str) -> None:
    for stmt in body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            continue   # a docstring, or a string used as a comment
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name):
            stmt = ast.Assign([stmt.target], stmt.value, lineno=stmt.lineno)
        if not any(isinstance(getattr(stmt, b, None), list) and getattr(stmt, b) for b in BODIES) \
                and not isinstance(stmt, ast.Try):
            out.append((_one_line(stmt), file, stmt.lineno))
            continue
        head = copy.copy(stmt)
        for name in (*BODIES, "handlers"):
            if hasattr(head, name):
                setattr(head, name, [ast.Pass()] if name == "body" else [])
        out.append((ast.unparse(head).splitlines()[0], file, stmt.lineno))
        _emit(stmt.body, out, file)   # type: ignore[attr-defined]
        for handler in getattr(stmt, "handlers", []):
            out.append((ast.unparse(handler).splitlines()[0], file, handler.lineno))
            _emit(handler.body, out, file)
        for name in ("orelse", "finalbody"):
            if getattr(stmt, name, None):
                out.append(("else:" if name == "orelse" else "finally:", file, getattr(stmt, name)[0].lineno))
                _emit(getattr(stmt, name), out, file)


def _one_line(stmt: ast.stmt) -> str:
    return " ".join(line.strip() for line in ast.unparse(stmt).splitlines())


def text_lines(source: list[str], qualname: str, file: str) -> tuple[list[Line], list[tuple[int, str]]] | None:
    """The function ``qualname`` of a file that does not parse, found by its ``def`` lines:
    its lines less comments and blank lines, as they are."""
    at, indent = 0, -1
    for name in qualname.split("."):
        pattern = re.compile(rf"^(\s*)(async\s+def|def|class)\s+{re.escape(name)}\b")
        hit = next((i for i in range(at, len(source)) if (m := pattern.match(source[i])) and len(m.group(1)) > indent), None)
        if hit is None:
            return None
        at, indent = hit + 1, len(source[hit]) - len(source[hit].lstrip())
    end = at
    while end < len(source) and (not source[end].strip() or len(source[end]) - len(source[end].lstrip()) > indent):
        end += 1
    lines = [(re.sub(r"\s+", " ", source[i].split("#")[0]).strip(), file, i + 1) for i in range(at, end)]
    return [line for line in lines if line[0]], [(i + 1, source[i]) for i in range(at - 1, end)]
