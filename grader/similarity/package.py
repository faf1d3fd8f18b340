"""A hand-in's whole package as the copying check reads it (parsed, never run): every
function the learner wrote, attributed to tasks through the calls from each task's own
functions.

A task's code is its own functions (code.py's units) with every helper of the learner's
they call written in where it is called (inlined, helpers of helpers too), so a body moved
into a helper, named anything and put anywhere in the package, reads as the body it was.
A helper is the learner's when the released package has no function of that name in that
file (a new function, a new module); a given function that is called stays a call. The
learner's functions that no task's function reaches are compared as ``other`` code when
something in the package names them, and dropped when nothing does (unused code added to
pad a copy); so is a given function the learner changed.
"""

from __future__ import annotations

import ast
import copy
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from grader.similarity import normal
from grader.similarity.code import OTHER, TaskCode, Token, Unit, functions_of, numbered, source_of, text_lines

Function = ast.FunctionDef | ast.AsyncFunctionDef
DEPTH = 8          # helpers inlined within helpers, at most
MOST_FILES = 400   # a package's .py files read, at most
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Released:
    functions: dict[str, dict[str, str]]    # file -> qualified name -> source text, as released
    texts: dict[str, str]                   # file -> its text, as released


def released(package: Path) -> Released:
    found: dict[str, dict[str, str]] = {}
    texts: dict[str, str] = {}
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines, file = text.splitlines(), path.relative_to(package).as_posix()
        found[file] = {q: source_of(n, lines) for q, n, _ in functions_of(ast.parse(text))}
        texts[file] = text
    return Released(found, texts)


@dataclass
class _File:
    lines: list[str]
    functions: dict[str, Function] | None    # None: the file does not parse


class _Reader:
    def __init__(self, package: Path, given: Released, notes: list[str]) -> None:
        self.files: dict[str, _File] = {}
        self.helpers: dict[str, list[tuple[str, str]]] = {}    # simple name -> (file, qualname) of the learner's functions
        self.changed: list[tuple[str, str]] = []               # given functions the learner changed
        self.named: Counter[str] = Counter()                   # how often each name is written in the changed files
        for path in sorted(package.rglob("*.py"))[:MOST_FILES]:
            file = path.relative_to(package).as_posix()
            try:
                text = path.read_bytes().decode("utf-8", "replace")
            except OSError:
                continue
            lines = text.splitlines()
            if text == given.texts.get(file):   # as released: no code of the learner's
                self.files[file] = _File(lines, {})
                continue
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
                where = f" at line {error.lineno}" if isinstance(error, SyntaxError) and error.lineno else ""
                notes.append(f"minitorch/{file} does not parse{where}: its functions were compared as text")
                self.files[file] = _File(lines, None)
                continue
            functions = {}
            before = given.functions.get(file, {})
            for qualname, node, nested in functions_of(tree):
                functions[qualname] = node
                if qualname not in before:
                    if not nested:
                        self.helpers.setdefault(qualname.rsplit(".", 1)[-1], []).append((file, qualname))
                elif source_of(node, lines) != before[qualname]:
                    self.changed.append((file, qualname))
            self.named.update(IDENTIFIER.findall(text))
            self.files[file] = _File(lines, functions)
        self.used: set[tuple[str, str]] = set()
        self.taken: set[tuple[str, str]] = set()

    def helper(self, call: ast.Call, file: str) -> tuple[str, str] | None:
        func = call.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        found = self.helpers.get(name or "", [])
        return next((h for h in found if h[0] == file), found[0] if found else None)

    def function(self, file: str, qualname: str, code: TaskCode, seen: set, depth: int = 0) -> Function | None:
        """The function with its helpers inlined (each once per task), tagged with its file."""
        node = (self.files[file].functions or {}).get(qualname)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        seen.add((file, qualname))
        code.shown[f"{file}: {qualname}"] = numbered(node, self.files[file].lines)
        if (file, qualname) in self.taken:   # inlined in another task already: this one gets a copy
            node = copy.deepcopy(node)
        self.taken.add((file, qualname))
        for stmt in node.body:
            stmt._file = file    # type: ignore[attr-defined]
        if depth < DEPTH:
            node.body = self._block(node.body, file, code, seen, depth)
        return node

    def _block(self, body: list[ast.stmt], file: str, code: TaskCode, seen: set, depth: int) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            for name in normal.BLOCKS:
                inner = getattr(stmt, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    setattr(stmt, name, self._block(inner, file, code, seen, depth))
            value = getattr(stmt, "value", None) if isinstance(stmt, (ast.Return, ast.Expr, ast.Assign)) else None
            replaced = False
            for call in [n for part in _expressions(stmt) for n in ast.walk(part) if isinstance(n, ast.Call)]:
                key = self.helper(call, file)
                if key is None or key in seen:
                    continue
                inlined = self.function(*key, code, seen, depth + 1)
                if inlined is None:
                    continue
                self.used.add(key)
                if call is value:   # the statement is the call: the helper's body takes its place
                    out += _result(inlined.body, stmt)
                    replaced = True
                    break
                out += _result(inlined.body, None)
            if not replaced:
                out.append(stmt)
        return out

    def tokens(self, node: Function, file: str) -> list[Token]:
        canon = normal.canonical(node, fresh=True)
        bound = normal.bound_names(canon)
        out: list[Token] = []
        for stmt in canon.body:
            normal.tokens(stmt, bound, getattr(stmt, "lineno", node.lineno), file, out)
        return out


def _expressions(stmt: ast.stmt) -> list[ast.AST]:
    return [value for name, value in ast.iter_fields(stmt) if name not in normal.BLOCKS and name != "handlers"
            and isinstance(value, ast.AST)]


def _result(body: list[ast.stmt], site: ast.stmt | None) -> list[ast.stmt]:
    """A helper's body where its call stood: its final ``return e`` becomes what the call's
    statement did with the value (returned it, assigned it, or nothing)."""
    if not body or not isinstance(last := body[-1], ast.Return) or last.value is None:
        return body
    if isinstance(site, ast.Return):
        return body
    if isinstance(site, ast.Assign):
        end: ast.stmt = ast.Assign(site.targets, last.value, lineno=last.lineno)
    else:
        end = ast.Expr(last.value, lineno=last.lineno)
    end._file = getattr(last, "_file", None)    # type: ignore[attr-defined]
    return body[:-1] + [end]


def read_package(package: Path, wanted: list[Unit], given: Released, other: bool) -> tuple[dict[str, TaskCode], list[str]]:
    """Each task's code in ``package`` (tasks of ``wanted``), and ``other`` code when asked;
    a note for each file or function that could not be read as code."""
    notes: list[str] = []
    reader = _Reader(package, given, notes)
    tasks: dict[str, TaskCode] = {}
    for unit in wanted:
        if unit.file not in reader.files:
            continue
        code = tasks.setdefault(unit.task, TaskCode())
        found = reader.files[unit.file]
        if found.functions is None:
            text = text_lines(found.lines, unit.qualname, unit.file)
            if text:
                code.tokens += text[0]
                code.shown[f"{unit.file}: {unit.qualname}"] = text[1]
            continue
        try:
            node = reader.function(unit.file, unit.qualname, code, set())
            if node is not None:
                code.tokens += reader.tokens(node, unit.file)
        except RecursionError:
            notes.append(f"minitorch/{unit.file}: {unit.qualname} is nested too deeply to parse: compared as text")
            text = text_lines(found.lines, unit.qualname, unit.file)
            if text:
                code.tokens += text[0]
    if other:
        code = TaskCode()
        holders = {(u.file, u.qualname.rsplit(".", n)[0]) for u in wanted for n in range(u.qualname.count(".") + 1)}
        named = [h for hs in reader.helpers.values() for h in hs if h not in reader.used
                 and reader.named[h[1].rsplit(".", 1)[-1]] > 1]   # its def, and a use
        left = named + [c for c in reader.changed if c not in holders]
        for file, qualname in left:
            try:
                node = reader.function(file, qualname, code, set())
                if node is not None:
                    code.tokens += reader.tokens(node, file)
            except RecursionError:
                notes.append(f"minitorch/{file}: {qualname} is nested too deeply to parse: left out")
        tasks[OTHER] = code
    return {task: code for task, code in tasks.items() if code.tokens}, notes
