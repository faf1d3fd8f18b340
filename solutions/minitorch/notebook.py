"""What the first cell of every notebook turns on: ``%load_ext minitorch.notebook``.

* IPython's ``autoreload``: a file of the package you edit and save reaches the running
  kernel at the next cell, without a restart.
* One short line instead of autoreload's long tracebacks when a package file cannot be
  loaded (a syntax error, a bad indentation, an error at the file's top level). A cell
  run while that is so stops at once and says where, for example::

      minitorch/numerical.py, line 34: SyntaxError: '(' was never closed
          return (f(*up) - f(*down) / (2 * eps)
      Fix that line and save the file, then run this cell again (until then the package
      keeps its last version that loaded).
"""

from __future__ import annotations

import ast
import pathlib
import sys
import traceback
import types

PACKAGE = pathlib.Path(__file__).resolve().parent


class PackageError(Exception):
    """A file of the package that cannot be loaded; the message names the file and line."""


def _shown(path: pathlib.Path) -> str:
    return f"{PACKAGE.name}/{path.relative_to(PACKAGE).as_posix()}"


def _message(path: pathlib.Path, line: int | None, error: BaseException, code: str = "") -> str:
    what = error.msg if isinstance(error, SyntaxError) else str(error)
    where = f"{_shown(path)}, line {line}" if line else _shown(path)
    text = f"{where}: {type(error).__name__}: {what}"
    if code.strip():
        text += f"\n    {code.strip()}"
    return text + ("\nFix that line and save the file, then run this cell again (until then the package keeps "
                   "its last version that loaded).")


def check_file(path: pathlib.Path) -> str | None:
    """None when ``path`` compiles and its top level runs; otherwise one short message."""
    source = path.read_text(encoding="utf-8")
    try:
        code = compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as error:  # IndentationError and TabError too
        return _message(path, error.lineno, error, error.text or "")
    parts = (PACKAGE.name, *path.relative_to(PACKAGE).with_suffix("").parts)
    name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    module = types.ModuleType(name)
    module.__file__ = str(path)
    module.__package__ = name if parts[-1] == "__init__" else ".".join(parts[:-1])
    try:
        exec(code, module.__dict__)  # a trial run in a scratch module: the package itself is untouched
    except Exception as error:
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(path)]
        line = frames[-1].lineno if frames else None
        return _message(path, line, error, frames[-1].line if frames else "")
    return None


class Watcher:
    """Before each cell: does every package file still load? If one does not, the cell's
    code is replaced by raising ``PackageError`` (shown as its message alone)."""

    def __init__(self) -> None:
        self.seen: dict[pathlib.Path, tuple[float, str | None]] = {}  # file -> (mtime, problem)
        self.problem: str | None = None
        for path in self._files():
            self.seen[path] = (path.stat().st_mtime, None)  # the package imported: every file loaded

    def _files(self) -> list[pathlib.Path]:
        return sorted(p for p in PACKAGE.rglob("*.py")
                      if not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(PACKAGE).parts))

    def find(self) -> str | None:
        for path in self._files():
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue
            known = self.seen.get(path)
            if known is None or known[0] != mtime:
                known = (mtime, check_file(path))
                self.seen[path] = known
            if known[1]:
                return known[1]
        return None

    def pre_run_cell(self, info=None) -> None:
        self.problem = self.find()

    def visit(self, tree: ast.Module) -> ast.Module:
        """IPython's hook for a cell's syntax tree: the cell itself, or a raise."""
        if not self.problem:
            return tree
        replacement = ast.parse(f"raise __import__({__name__!r}, fromlist=['PackageError']).PackageError("
                                f"{self.problem!r})")
        return ast.fix_missing_locations(replacement)


def _show(shell, etype, value, tb, tb_offset=None) -> list[str]:
    """Show ``value``'s message as the cell's error, alone (no traceback of this module)."""
    shell._showtraceback(etype, value, [str(value)])  # the kernel's way to send an error output
    return [str(value)]


def load_ipython_extension(shell) -> None:
    shell.run_line_magic("load_ext", "autoreload")
    shell.run_line_magic("autoreload", "2 --hide-errors")  # this module says what went wrong, in one line
    shell.run_line_magic("aimport", f"-{__name__}")
    for watcher in [t for t in shell.ast_transformers if type(t).__name__ == "Watcher"]:  # loaded again
        shell.ast_transformers.remove(watcher)
        shell.events.unregister("pre_run_cell", watcher.pre_run_cell)
    watcher = Watcher()
    shell.events.register("pre_run_cell", watcher.pre_run_cell)
    shell.ast_transformers.append(watcher)
    shell.set_custom_exc((PackageError,), _show)
