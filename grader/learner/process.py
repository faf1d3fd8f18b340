"""The learner's process: started by ``boundary/runner.py`` inside a ``Cage``, it confines
itself, imports the learner's package, and answers probe requests until its input closes.

    python -I -B -c BOOT CONFIG_JSON      (BOOT: runner.py)

The requests and answers travel on the file descriptors that were its stdin and stdout;
those are moved aside first, and the learner's code gets /dev/null for its own stdin,
stdout and stderr (nothing it prints reaches anyone). An answer is ``{"ok": value}`` or
``{"raised": {"type", "message", "where"}}`` where ``where`` is the learner's line.
"""

from __future__ import annotations

import dis
import importlib.util
import json
import linecache
import os
import pathlib
import sys
import traceback
import warnings
from typing import Any

from grader.learner import made_at, mutants
from grader.learner.probes import probe

LABEL = "# Task "  # a learner's function holds a "# Task X.Y:" line above its region


class LookedFor:
    """A finder that finds nothing: first in ``sys.meta_path``, it notes every module an
    import looked for, so that a file no import reached can be told from one that failed."""
    names: set[str] = set()

    @classmethod
    def find_spec(cls, name: str, path: Any = None, target: Any = None) -> None:
        cls.names.add(name)


KNOWN: dict[Any, Any] = {}  # what unused_files found before in this process: a module's real path, a file's verdict


@probe
def unused_files(mt: Any, package: str) -> list:
    """The package's .py files that no import has looked for and that do not compile, as
    [file, line, what is wrong]: they cost nothing, but the learner is told. (A stage asks
    at its end; what an earlier stage's asking found out is kept, as the files never change.)"""
    root = pathlib.Path(os.path.realpath(package))
    loaded = set()
    for m in list(sys.modules.values()):
        if isinstance(f := getattr(m, "__file__", None), str):
            loaded.add(KNOWN.get(f) or KNOWN.setdefault(f, os.path.realpath(f)))
    found: list = []
    for path in sorted(root.rglob("*.py"))[:200]:
        inner = path.relative_to(root).with_suffix("").parts
        module = ".".join(("minitorch", *(inner[:-1] if inner[-1] == "__init__" else inner)))
        if module in LookedFor.names or module == "minitorch" or str(path) in loaded:
            continue
        name = f"minitorch/{path.relative_to(root).as_posix()}"
        if ("compiled", name) not in KNOWN:
            KNOWN[("compiled", name)] = _compiles(path, name)
        if KNOWN[("compiled", name)]:
            found.append(KNOWN[("compiled", name)])
    return found


def _compiles(path: pathlib.Path, name: str) -> list:
    """[] for a file that compiles, else [file, line, what is wrong]."""
    try:
        compile(path.read_bytes(), name, "exec", dont_inherit=True)
    except SyntaxError as error:
        return [name, error.lineno or 0, f"a syntax error ({error.msg})"]
    except (ValueError, RecursionError, MemoryError, OSError) as error:
        return [name, 0, f"source Python cannot compile ({type(error).__name__}: {error})"[:200]]
    return []


def _rule_returned(error: BaseException, package: pathlib.Path) -> str:
    """The learner's rule whose result the package's given code refused (raised in a node's
    ``chain_rule`` or its check of a gradient, after the rule had returned): its return line (its
    first line when it has several returns), or "" when the error was raised anywhere else."""
    frames = [frame for frame, _ in traceback.walk_tb(error.__traceback__)]
    if not frames or frames[-1].f_code.co_name not in ("chain_rule", "_checked"):
        return ""
    node = frames[-1].f_locals.get("self")
    rule = getattr(node, "_backward", None) or getattr(getattr(node, "function", None), "backward", None)
    code = getattr(rule, "__code__", None)
    if code is None or not pathlib.Path(code.co_filename).is_relative_to(package):
        return ""
    returns = {line for i in dis.get_instructions(code) if i.opname.startswith("RETURN") and i.positions
               and (line := i.positions.lineno) is not None}
    number = returns.pop() if len(returns) == 1 else code.co_firstlineno
    if not any(LABEL in linecache.getline(code.co_filename, n) for n in range(code.co_firstlineno, number + 2)):
        return ""
    text = linecache.getline(code.co_filename, number).strip()
    return f"minitorch/{pathlib.Path(code.co_filename).relative_to(package)}, line {number}, in {code.co_name}: {text}"


def describe(error: BaseException, package: pathlib.Path) -> dict:
    """The exception in words, and the learner's own line: the innermost frame of a
    function holding a "# Task X.Y:" label (never a line of given code, such as a shape
    check the package gives). Without such a frame, the last line of the package it passed
    (and, when that line is in another file, the line that called into that file)."""
    lines, yours = [], []
    for frame, number in traceback.walk_tb(error.__traceback__):
        path = pathlib.Path(frame.f_code.co_filename)
        if path.is_relative_to(package):
            text = linecache.getline(str(path), number).strip()
            line = f"minitorch/{path.relative_to(package)}, line {number}, in {frame.f_code.co_name}"
            lines.append((path, line + (f": {text}" if text else "")))
            if mutants.own_line(frame, number):  # below its "# Task" label, or the given lines of a typed-over one
                yours.append(lines[-1][1])
    if not yours and (rule := _rule_returned(error, package)):
        yours.append(rule)
    where = yours[-1] if yours else lines[-1][1] if lines else ""
    caller = next((line for path, line in reversed(lines) if path != lines[-1][0]), None) if lines and not yours else None
    if caller:
        where += f" (called from {caller})"
    meant = made_at.explained(error, mutants.own_line, lambda p: f"minitorch/{pathlib.Path(p).relative_to(package)}")
    where = where[:500] + (f". {meant}" if where and meant else "")  # what NumPy's words mean, where the value was made
    return {"type": type(error).__name__, "message": str(error)[:1500], "where": where[:1000]}


def main(config_json: str) -> None:
    from grader.boundary import confinement, wire
    from grader.learner import probes, probes_gpt, probes_modules, probes_repair, stand_ins  # noqa: F401  (each registers its probes)

    config = json.loads(config_json)
    requests, answers = os.dup(0), os.dup(1)
    stand_ins.CHANNEL[:] = [requests, answers]
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)
    warnings.simplefilter("ignore")
    import numpy  # noqa: F401  (before confinement: the learner's imports need it anyway)

    package, scratch = pathlib.Path(config["package"]), config["scratch"]
    os.chdir(scratch)
    os.environ.update(HOME=scratch, TMPDIR=scratch, MPLCONFIGDIR=scratch, MPLBACKEND="agg")
    try:
        applied = confinement.confine_self(confinement.python_readable() + [str(package)], [scratch],
                                           config.get("user"))
    except OSError as error:  # never run a learner's code unconfined when confinement was asked for
        wire.send(answers, {"ready": False, "raised": {"type": "ConfinementError", "message": str(error),
                                                          "where": ""}})
        return
    try:
        spec = importlib.util.spec_from_file_location("minitorch", package / "__init__.py",
                                                      submodule_search_locations=[str(package)])
        if spec is None or spec.loader is None:
            raise ImportError(f"{package / '__init__.py'} cannot be imported")
        sys.meta_path.insert(0, LookedFor)
        mt = importlib.util.module_from_spec(spec)
        sys.modules["minitorch"] = mt
        spec.loader.exec_module(mt)
        if pathlib.Path(str(mt.__file__)).resolve().parent != package.resolve():
            raise ImportError(f"minitorch was imported from {mt.__file__}, not from the submission")
    except BaseException as error:  # noqa: BLE001 - the learner's import failing is an answer
        wire.send(answers, {"ready": False, "raised": describe(error, package), "confined": applied})
        return
    wire.send(answers, {"ready": True, "confined": applied})
    while True:
        try:
            request = wire.receive(requests)
        except (EOFError, OSError, wire.Garbled):
            return
        try:
            frame = wire.encode({"ok": wire.bounded(probes.PROBES[request["probe"]](mt, **request["args"]))})
        except BaseException as error:  # noqa: BLE001 - whatever the learner's code raised
            frame = wire.encode({"raised": describe(error, package)})
        wire.send_frame(answers, frame)
