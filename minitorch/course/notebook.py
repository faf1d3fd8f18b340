"""What the first cell of every notebook turns on: ``%load_ext minitorch.course.notebook``.

* Edits reach the running kernel: before each cell, every file of the package you changed
  and saved is loaded again, in place (``minitorch.course.reloader``), so the next cell runs the
  new code wherever it is used, with tracebacks at the right lines, without a restart.
* One short line instead of a long traceback when a package file cannot be loaded (a
  syntax error, a bad indentation, an error at the file's top level). A cell run while
  that is so stops at once and says where, for example::

      minitorch/numerical.py, line 34: SyntaxError: '(' was never closed
          return (f(*up) - f(*down) / (2 * eps)
      Fix that line and save the file, then run this cell again (until then the package
      keeps its last version that loaded).

* Where an edit cannot be brought in safely (a class whose base classes changed, while
  objects made from the old class exist), the cell's output says which names hold such
  objects and which cells made them, to run again (or to restart the kernel).
"""

from __future__ import annotations

import ast
import pathlib
import traceback
from typing import Any

from .reloader import PACKAGE, Notice, Reloader


class PackageError(Exception):
    """A file of the package that cannot be loaded; the message names the file and line."""


def _shown(path: pathlib.Path) -> str:
    return f"{PACKAGE.name}/{path.relative_to(PACKAGE).as_posix()}"


def describe(path: pathlib.Path, error: BaseException) -> str:
    """One short message: the file, the line, the error and that line's code."""
    if isinstance(error, SyntaxError):  # IndentationError and TabError too
        line, code, what = error.lineno, error.text or "", error.msg
    else:
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(path)]
        line, code, what = (frames[-1].lineno, frames[-1].line or "", str(error)) if frames else (None, "", str(error))
    where = f"{_shown(path)}, line {line}" if line else _shown(path)
    text = f"{where}: {type(error).__name__}: {what}"
    if code.strip():
        text += f"\n    {code.strip()}"
    return text + ("\nFix that line and save the file, then run this cell again (until then the package keeps "
                   "its last version that loaded).")


def _made_in(name: str, cells: list[str]) -> int | None:
    """The number of the last cell that assigned ``name``."""
    for number in range(len(cells) - 1, 0, -1):
        try:
            tree = ast.parse(cells[number])
        except SyntaxError:
            continue
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(tree)):
            return number
    return None


def explain(notice: Notice, namespace: dict[str, Any]) -> str:
    """What to run again after an edit that replaced a class instead of updating it."""
    cells = [str(c) for c in namespace.get("In", [])]
    held = sorted(k for k, v in namespace.items() if not k.startswith("_") and isinstance(v, notice.old))
    text = (f"{_shown(notice.path)}: the class {notice.name} was replaced, not updated ({notice.why}): objects made "
            "before this edit keep the old class.")
    if held:
        made = [f"{k} (cell [{_made_in(k, cells)}])" if _made_in(k, cells) else k for k in held]
        text += f" In this notebook: {', '.join(made)}. Run the cells that make them again."
    return text + " If anything still behaves as before the edit, restart the kernel (Kernel > Restart Kernel) and " \
                  "run the notebook from the top."


class Watcher:
    """Before each cell: load what changed. If a file does not load, the cell's code is
    replaced by raising ``PackageError`` (shown as its message alone)."""

    def __init__(self, shell) -> None:
        self.shell = shell
        self.reloader = Reloader()
        self.problem: str | None = None

    def pre_run_cell(self, info=None) -> None:
        try:
            outcome = self.reloader.reload(self.shell.user_ns)
        except Exception as error:  # noqa: BLE001 - never a stale function in silence
            print(f"Your saved edits could not all be loaded ({type(error).__name__}: {error}): restart the kernel "
                  "(Kernel > Restart Kernel) and run the notebook from the top to be sure they are.", flush=True)
            return
        self.problem = describe(*outcome.problem) if outcome.problem else None
        for notice in outcome.notices:
            print(explain(notice, self.shell.user_ns), flush=True)

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
    if "autoreload" in shell.magics_manager.magics["line"]:
        shell.run_line_magic("autoreload", "off")  # IPython's own would load the package a second time
    for watcher in [t for t in shell.ast_transformers if type(t).__name__ == "Watcher"]:  # loaded again
        shell.ast_transformers.remove(watcher)
        shell.events.unregister("pre_run_cell", watcher.pre_run_cell)
    watcher = Watcher(shell)
    shell.events.register("pre_run_cell", watcher.pre_run_cell)
    shell.ast_transformers.append(watcher)
    shell.set_custom_exc((PackageError,), _show)
