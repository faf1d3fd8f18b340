"""Whether your package imports, and, when it does not, why, in one line with its file and line.

    import_error(course)   # "" or "SyntaxError: '(' was never closed (minitorch/ops_unary.py, line 40)"

The package is imported in a child process, so that a syntax error, a failing import or a
crash at import time never stops the tool asking (``make progress``, ``make handin``):
they say that one line instead of a traceback. Nothing of the package is imported here.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

# Runs in a child: imports the package and, when that fails, says where (the file and line in
# the package, from the folder holding it, as the learner sees it).
IMPORTS = r"""
import importlib.util, json, pathlib, traceback
try:
    spec = importlib.util.find_spec("minitorch")
    package = pathlib.Path(spec.submodule_search_locations[0]) if spec and spec.submodule_search_locations else None
except BaseException:
    package = None
try:
    import minitorch
except BaseException as error:
    def shown(name):
        path = pathlib.Path(name)
        return path.relative_to(package.parent).as_posix() if package and path.is_relative_to(package.parent) else name
    where = ""
    if isinstance(error, SyntaxError) and error.filename:
        where = f"{shown(error.filename)}, line {error.lineno}"
    else:
        frames = [f for f in traceback.extract_tb(error.__traceback__) if package and pathlib.Path(f.filename).is_relative_to(package)]
        if frames:
            where = f"{shown(frames[-1].filename)}, line {frames[-1].lineno}" + (f": {frames[-1].line.strip()}" if frames[-1].line else "")
    print(json.dumps({"error": f"{type(error).__name__}: {getattr(error, 'msg', None) or error}", "where": where}))
"""


def environment(course: pathlib.Path) -> dict:
    """This process's environment with ``course`` first on the path (its ``minitorch/`` is the one imported)."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(course), *filter(None, [os.environ.get("PYTHONPATH")])]))


def import_error(course: pathlib.Path, env: dict | None = None, cwd: pathlib.Path | None = None) -> str:
    """Why the package in ``course`` does not import (its error and its line), or "" when it
    does. With ``env`` and ``cwd``, the package that a process started with them imports."""
    try:
        done = subprocess.run([sys.executable, "-c", IMPORTS], capture_output=True, text=True, cwd=cwd or course,
                              env=env or environment(course), timeout=120)
    except subprocess.TimeoutExpired:
        return "importing it took more than 120 s (is there a loop at the top level of a module?)"
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 and not lines:
        return f"importing it ended its Python process (exit status {done.returncode})"
    if not lines:
        return ""
    try:
        found = json.loads(lines[-1])
    except json.JSONDecodeError:
        return ""  # the package printed something when imported: it imported
    return found["error"] + (f" ({found['where']})" if found["where"] else "")
