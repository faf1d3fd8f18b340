"""The learner's side of the autograder's repair search: small edits of one Function's own
methods (``mutants.py``, the notebooks' error model, a copy written by ``make release``),
each put in place in turn and run on the cases the grader sent. It returns what each edit
gave (its line, its kind, the output and gradients per case) and judges nothing: the
grader compares the answers with its own expected values, which never come here. An answer
holds at most as many arrays as a frame may carry (``wire.MAX_ARRAYS``): a search that would
send more stops there, as one out of time does, and says it is incomplete.
"""

from __future__ import annotations

import contextlib
import inspect
import linecache
import os
import sys
import time
import types
import warnings
from typing import Any

import numpy as np

from grader.boundary import wire
from grader.learner import made_at, mutants
from grader.learner.probes import PROBES, plain, probe, resolve, rule


def _suspects(owner: Any, task: str) -> list:
    """The Function's own forward and backward; when neither holds a "# Task" label (the
    task is a helper they call), the functions of its module labelled with ``task``."""
    methods = [m for name in ("forward", "backward") if isinstance(m := getattr(owner, name, None), types.FunctionType)]
    if any(mutants.edits(m, limit=0) is None for m in methods):  # None: it has a label and lines to edit
        return methods
    name = str(getattr(owner, "__module__", ""))
    module = sys.modules.get(name)
    found = []
    for value in list(vars(module).values()) if module is not None and task else []:
        if isinstance(value, types.FunctionType) and value.__module__ == name:
            with contextlib.suppress(OSError, TypeError):
                entry = mutants.regions().get(mutants.key(name, value.__qualname__), {})
                if f"# Task {task}:" in inspect.getsource(value) or entry.get("task") == task:  # or a typed-over label
                    found.append(value)
    return found


def _arrays(value: Any) -> int:
    """How many arrays ``value`` sends (each NumPy array or scalar travels as one)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return 1
    if isinstance(value, (list, tuple)):
        return sum(_arrays(v) for v in value)
    return sum(_arrays(v) for v in value.values()) if isinstance(value, dict) else 0


@probe
def rule_edits(mt: Any, function: str, cases: list, params: dict, swaps: dict | None = None,
               views: list | None = None, seconds: float = 2.0, task: str = "", raised_at: list | None = None) -> dict:
    """Every edit of ``function``'s forward and backward (those holding a "# Task" label),
    or else of its module's functions labelled with ``task``, each run on every case
    ({"arrays", "upstream"}) until one raises; stops after ``seconds``. ``raised_at`` (file,
    line): where the learner's exception was raised; an edit above it in the same function
    says which names its line makes that the raising line uses ("made")."""
    owner = resolve(mt, function)
    root = os.path.dirname(os.path.realpath(mt.__file__))
    planned: list = []
    for method in _suspects(owner, task):
        found = mutants.edits(method)
        if found is None:
            return {"skipped": f"{method.__qualname__} is too long to search"}
        planned += [(method, edit) for edit in found]
    if len(planned) > mutants.LIMIT:
        return {"skipped": "too many edits to search"}
    until, answers, room = time.monotonic() + seconds, list[dict](), wire.MAX_ARRAYS
    for method, edit in planned:
        if time.monotonic() > until:
            return {"edits": answers, "incomplete": True}
        seen: list = []
        with mutants.patched(method, edit.code), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for case in cases:
                try:
                    ran = rule(mt, function, case["arrays"], case["upstream"], params, swaps, views)
                except Exception:  # noqa: BLE001 - an edit that raises is no repair
                    seen.append(None)
                    break
                seen.append({"out": plain(ran["out"]), "grads": ran["grads"]})
        room -= _arrays(seen)
        if room < 0:  # more than one frame carries
            return {"edits": answers, "incomplete": True}
        path = os.path.realpath(method.__code__.co_filename)
        file = "minitorch/" + os.path.relpath(path, root).replace(os.sep, "/")
        made = sorted(mutants.names_at(method.__code__, edit.line, True) & mutants.names_at(
            method.__code__, raised_at[1], False)) if raised_at and edit.line < raised_at[1] and \
            raised_at[0] == file and method.__code__.co_firstlineno < raised_at[1] else []
        answers.append({"line": edit.line, "kind": edit.kind, "file": file, "function": method.__qualname__,
                        "seen": seen, "made": made})
    return {"edits": answers}


@probe
def call_edits(mt: Any, function: str, inner: str, calls: list, seconds: float = 2.0,
               fields: list | None = None) -> dict:
    """Every edit of the package's function ``function`` (a value's task, such as
    ``central_difference``), each running probe ``inner`` on every call's arguments; an
    answer is None where the edited function raised. ``fields``, when given, are the keys
    of ``inner``'s answer (a dict) to send back, the only ones the grader judges. Stops
    after ``seconds``."""
    target = resolve(mt, function)
    found = mutants.edits(target) if isinstance(target, types.FunctionType) else []
    if found is None:
        return {"skipped": f"{function} is too long to search"}
    root = os.path.dirname(os.path.realpath(mt.__file__))
    until, answers, room = time.monotonic() + seconds, list[dict](), wire.MAX_ARRAYS
    for edit in found:
        if time.monotonic() > until:
            return {"edits": answers, "incomplete": True}
        seen: list = []
        with mutants.patched(target, edit.code), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for args in calls:
                try:
                    got = PROBES[inner](mt, **args)
                except Exception:  # noqa: BLE001 - an edit that raises is no repair
                    seen.append(None)
                    break
                seen.append(plain({k: got.get(k) for k in fields} if fields and isinstance(got, dict) else got))
        room -= _arrays(seen)
        if room < 0:  # more than one frame carries
            return {"edits": answers, "incomplete": True}
        path = os.path.realpath(target.__code__.co_filename)
        answers.append({"line": edit.line, "kind": edit.kind, "function": target.__qualname__, "seen": seen,
                        "file": "minitorch/" + os.path.relpath(path, root).replace(os.sep, "/")})
    return {"edits": answers}


@probe
def dtype_origin(mt: Any, function: str, arrays: list, upstream: Any, params: dict, dtype: str,
                 swaps: dict | None = None, task: str = "") -> dict:
    """Where a rule's dtype drift begins (``mutants.first_other_dtype``): the rule run once
    on the case under a tracer, the first line of the learner's own code in its forward and
    backward (or the task's functions they call) that makes a value of another dtype than
    ``dtype``; {} when no line does. It judges nothing: the grader saw the drift."""
    owner = resolve(mt, function)
    root = os.path.dirname(os.path.realpath(mt.__file__))

    def run() -> None:
        with warnings.catch_warnings(), contextlib.suppress(Exception):
            warnings.simplefilter("ignore")
            rule(mt, function, arrays, upstream, params, swaps)
    found = mutants.first_other_dtype(run, _suspects(owner, task), dtype)
    if found is None:
        return {}
    method, line, name, made = found
    path = os.path.realpath(method.__code__.co_filename)
    return {"line": line, "file": "minitorch/" + os.path.relpath(path, root).replace(os.sep, "/"),
            "function": method.__qualname__, "name": name, "dtype": made}


@probe
def call_dtype_origin(mt: Any, function: str, args: list, dtype: str) -> dict:
    """Where a package function's dtype drift begins (``unbroadcast`` given a float32 gradient): ``function`` called
    once on ``args`` under a tracer, as ``dtype_origin`` runs a rule; {} when no line of the learner's makes one."""
    target, root = resolve(mt, function), os.path.dirname(os.path.realpath(mt.__file__))

    def run() -> None:
        with warnings.catch_warnings(), contextlib.suppress(Exception):
            warnings.simplefilter("ignore")
            target(*[tuple(a) if isinstance(a, list) else a for a in args])
    found = mutants.first_other_dtype(run, [target], dtype) if isinstance(target, types.FunctionType) else None
    if found is None:
        return {}
    method, line, name, made = found
    path = os.path.realpath(method.__code__.co_filename)
    return {"line": line, "file": "minitorch/" + os.path.relpath(path, root).replace(os.sep, "/"),
            "function": method.__qualname__, "name": name, "dtype": made}


@probe
def value_origin(mt: Any, function: str, arrays: list, upstream: Any, params: dict, swaps: dict | None = None,
                 views: list | None = None, task: str = "") -> dict:
    """Where the values were made that a line of the learner's own passed to a call that refused them
    (``mutants.where_made``): the rule run once on the case under a tracer; the line, and each local it read with
    the line of the learner's own that made it, its shape and that line's code; {} when the exception came from
    the line itself, or none came. It judges nothing."""
    owner = resolve(mt, function)
    root = os.path.dirname(os.path.realpath(mt.__file__))

    def run() -> None:
        with warnings.catch_warnings(), contextlib.suppress(Exception):
            warnings.simplefilter("ignore")
            rule(mt, function, arrays, upstream, params, swaps, views)
    found = mutants.where_made(run, _suspects(owner, task))
    if found is None:
        return {}
    method, line, read = found
    path = os.path.realpath(method.__code__.co_filename)
    return {"file": "minitorch/" + os.path.relpath(path, root).replace(os.sep, "/"), "function": method.__qualname__,
            "line": line, "read": [{"name": name, "line": made, "shape": None if shape is None else list(shape),
                                    "code": linecache.getline(path, made).strip()[:200]} for name, made, shape in read]}


@probe
def nan_origin(mt: Any, function: str, arrays: list, upstream: Any, params: dict, swaps: dict | None = None,
               views: list | None = None, task: str = "", seconds: float = 2.0) -> dict:
    """Where the first NaN or inf of the learner's own code is made (``made_at.first_not_finite``): the rule run
    once on the case under a tracer; the line, the local that holds one, how the line makes it and the names there
    that hold a 0 (or less); {} when no line does. It judges nothing: the grader saw the NaN."""
    owner = resolve(mt, function)
    root = os.path.dirname(os.path.realpath(mt.__file__))

    def run() -> None:
        with warnings.catch_warnings(), contextlib.suppress(Exception):
            warnings.simplefilter("ignore")
            rule(mt, function, arrays, upstream, params, swaps, views)
    found = made_at.first_not_finite(run, _suspects(owner, task), seconds)   # traced that long at most
    if found is None:
        return {}
    method, line, name, how, small = found
    path = os.path.realpath(method.__code__.co_filename)
    return {"file": "minitorch/" + os.path.relpath(path, root).replace(os.sep, "/"), "function": method.__qualname__,
            "line": line, "name": name, "how": how, "small": small}
