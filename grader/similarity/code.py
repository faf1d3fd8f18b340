"""Where a task's code is in a package, and what is read of a file that does not parse.

A task's own functions are the ones its solution regions fill (``units``: found once in
the reference, where each region sits in its innermost function); package.py reads them in
a hand-in by name, with every helper they call, and the rest of the learner's code too.
A file that does not parse is read as text (``text_lines``): a function's lines less
comments, found by its ``def`` lines, so it is still compared, less robustly.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.release.regions import find_regions

Token = tuple[str, str, int]     # (token, file, line number in that file)
OTHER = "other"                  # the learner's code that no task's function calls


@dataclass(frozen=True)
class Unit:
    task: str
    file: str        # relative to minitorch/, e.g. "nn/modules.py"
    qualname: str    # "Scalar.__add__.backward"


@dataclass
class TaskCode:
    tokens: list[Token] = field(default_factory=list)
    shown: dict[str, list[tuple[int, str]]] = field(default_factory=dict)   # "file: qualname" -> numbered source


def units(package: Path) -> list[Unit]:
    """The functions each region of the reference package ``package`` sits in, in order."""
    found: list[Unit] = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        regions = find_regions(text, str(path))
        if not regions:
            continue
        functions = [(name, node) for name, node, _ in functions_of(ast.parse(text))]
        for region in regions:
            inside = [(name, node) for name, node in functions if node.lineno <= region.begin + 1 <= (node.end_lineno or 0)]
            name = max(inside, key=lambda item: item[1].lineno)[0]
            unit = Unit(region.task, path.relative_to(package).as_posix(), name)
            if unit not in found:
                found.append(unit)
    return found


def functions_of(tree: ast.AST, prefix: str = "", in_function: bool = False):
    """Every function defined by a statement of ``tree``: (qualified name, node, whether it is
    defined inside another function). Statements only are walked: a def is always one."""
    for body in ("body", "orelse", "finalbody", "handlers"):
        for node in getattr(tree, body, None) or ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + node.name
                function = not isinstance(node, ast.ClassDef)
                if function:
                    yield name, node, in_function
                yield from functions_of(node, name + ".", in_function or function)
            elif isinstance(node, (ast.stmt, ast.excepthandler)):
                yield from functions_of(node, prefix, in_function)


def source_of(node: ast.stmt, source: list[str]) -> str:
    """A function's source text, its decorators included."""
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return "\n".join(source[start - 1:node.end_lineno or node.lineno])


def numbered(node: ast.stmt, source: list[str]) -> list[tuple[int, str]]:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return [(n, source[n - 1]) for n in range(start, (node.end_lineno or node.lineno) + 1) if n <= len(source)]


WORD = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")


def text_lines(source: list[str], qualname: str, file: str) -> tuple[list[Token], list[tuple[int, str]]] | None:
    """The function ``qualname`` of a file that does not parse, found by its ``def`` lines: the
    tokens of its lines less comments, and its numbered lines; None when it is not there."""
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
    found = [(word, file, i + 1) for i in range(at, end) for word in WORD.findall(source[i].split("#")[0])]
    return found, [(i + 1, source[i]) for i in range(at - 1, end)]
