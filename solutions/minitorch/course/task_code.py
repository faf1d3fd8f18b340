"""A task's own functions in the learner's package: those that hold its "# Task X.Y:"
label, or the lines the release gave it (``regions.json``) where the learner typed over the
label. The repair search edits them (``repair.py``) and the dtype and value traces read them."""

from __future__ import annotations

import ast
import contextlib
import io
import pathlib
import re
import sys
import types
import warnings
from typing import Any, Callable

from . import mutants


def functions(task: str, package: pathlib.Path) -> list[tuple[str, Callable]]:
    """The package's functions that hold a "# Task {task}:" label, as (where, function)."""
    found = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not name.startswith("minitorch.") or not file or ".course" in name:
            continue
        path = pathlib.Path(file).resolve()
        if not path.is_relative_to(package):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        typed_over = {k.partition(":")[2] for k, v in mutants.regions().items()  # a learner typed over the label
                      if v["task"] == task and k.partition(":")[0] == name.partition(".")[2]}
        if f"# Task {task}:" not in text and not typed_over:
            continue
        labels = [n for n, line in enumerate(text.splitlines(), 1) if re.match(rf"\s*# Task {re.escape(task)}:", line)]
        for qualname, node in _defs(ast.parse(text), ""):
            if any(node.lineno <= n <= (node.end_lineno or 0) for n in labels) or qualname in typed_over:
                obj: Any = module
                for part in qualname.split("."):
                    obj = getattr(obj, part, None)
                if isinstance(obj, types.FunctionType):
                    found.append((f"{path.relative_to(package.parent).as_posix()} ({qualname})", obj))
    return found


def _defs(node: ast.AST, prefix: str):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            yield from _defs(child, f"{prefix}{child.name}.")
        elif isinstance(child, ast.FunctionDef):
            yield f"{prefix}{child.name}", child


def failure(run: Callable[[], Any]) -> Exception | None:
    """What ``run`` raises, with its output and warnings kept quiet (None when it passes)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an edit's overflow or 0/0 is not the learner's to read
            run()
    except Exception as error:  # noqa: BLE001 - an edit that fails in any way is simply not a repair
        return error
    return None


def elsewhere(later: Exception | None, owner: str, function: Callable) -> bool:
    """Whether ``later``, the cell's failure under an edit of ``function`` (a method of ``owner``, the Function whose
    case failed), is a check's failure of another Function's call, which the edited method never runs: a second
    mistake of the same task, further down the cell (Sin's rule and Cos's both wrong)."""
    call = re.split(r" with |: | raised ", str(later).partition("\n")[0], maxsplit=1)[0]
    return isinstance(later, AssertionError) and bool(owner) and function.__qualname__.startswith(f"{owner}.") and \
        re.fullmatch(r"\w+\.(backward|forward)", call) is not None and not call.startswith(f"{owner}.")
