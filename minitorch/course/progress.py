"""Your progress at a glance: every visible check of every notebook, run against your
package, in a table (no hidden tests: those run only when your work is graded).

    make progress                                  (or: python minitorch/course/progress.py)
    from minitorch.course.progress import show; show()    (from any notebook cell)

Run by its path (as ``make progress`` does), it never imports your package itself: when
the package does not import (a syntax error, say), it says that in one line, with its file
and line, and runs no check.

Each notebook's checks run in a fresh Python process, one check at a time, each with a
time limit; a check that passes means the visible check passes, nothing more. A task is
"not started" while all its stubs are untouched; it "waits on" an earlier task when its
check fails inside code that belongs to that task and that task is not done yet, or when
the check itself says that task first ("Task 1.3 first: ...").
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"
SECONDS = 20
WIDTH = 100  # of the table

# Runs in the child: the notebook's first code cell (its imports), then each check, noting
# which tasks' code each check ran (a function holding a "# Task X.Y:" label is that task's).
RUNNER = r"""
import ast, json, pathlib, re, signal, sys
cells = json.loads(sys.stdin.read())
setup = "\n".join(l for l in cells["setup"].splitlines() if not l.lstrip().startswith(("%", "!")))
base = {"__name__": "__progress__"}
try:
    exec(compile(setup, "setup", "exec"), base)
except BaseException as error:
    print(json.dumps({"setup": f"{type(error).__name__}: {error}"}), flush=True)
labels, stubs, owners = {}, {}, {}
package = sys.modules.get("minitorch")
root = pathlib.Path(getattr(package, "__file__", None) or ".").parent
for path in sorted(root.rglob("*.py")) if package else []:
    if any(part.startswith(".") or part == "__pycache__" for part in path.relative_to(root).parts):
        continue  # Lab's checkpoints, caches
    text = path.read_text(encoding="utf-8")
    spans = [(min([n.lineno] + [d.lineno for d in n.decorator_list]), n.end_lineno) for n in ast.walk(ast.parse(text))
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for number, line in enumerate(text.splitlines(), 1):
        found = re.match(r"\s*# Task (\d+\.\d+):", line)
        if found:
            labels[found.group(1)] = labels.get(found.group(1), 0) + 1
            inside = [start for start, end in spans if start <= number <= end]
            if inside:
                owners[(str(path), max(inside))] = found.group(1)
    for task in re.findall(r'raise NotImplementedError\("Task (\d+\.\d+):', text):
        stubs[task] = stubs.get(task, 0) + 1
print(json.dumps({"untouched": sorted(t for t in labels if stubs.get(t, 0) >= labels[t])}), flush=True)
used = set()
def trace(frame, event, arg):
    task = owners.get((frame.f_code.co_filename, frame.f_code.co_firstlineno))
    if task:
        used.add(task)
def stop(*_):
    raise TimeoutError("took more than %d s" % cells["seconds"])
signal.signal(signal.SIGALRM, stop)
for task, source in cells["checks"]:
    used.clear()
    signal.alarm(cells["seconds"])
    sys.settrace(trace)
    try:
        exec(compile(source, f"check {task}", "exec"), dict(base))
        outcome = {"task": task, "error": None}
    except BaseException as error:
        outcome = {"task": task, "type": type(error).__name__, "error": str(error).strip()[:2000]}
    finally:
        sys.settrace(None)
        signal.alarm(0)
    print(json.dumps({**outcome, "used": sorted(used - {task})}), flush=True)
"""
STUB, FIRST = re.compile(r"^Task (\d+\.\d+): "), re.compile(r"^Task (\d+\.\d+) first: ")  # FIRST: course/earlier.py's


def _cells(path: pathlib.Path) -> tuple[str, list[tuple[str, str]], dict[str, float], dict[str, str]]:
    """The first code cell, each visible check, each task's points and its name (the
    notebook's "Your task X.Y: ..." heading)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in notebook["cells"] if c.get("cell_type") == "code"]
    setup = "".join(code[0]["source"]) if code else ""
    checks, points, names = [], {}, {}
    for cell in notebook["cells"]:
        source = "".join(cell.get("source", ""))
        grade_id = str(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", ""))
        if cell.get("cell_type") == "code" and grade_id.endswith("_visible"):
            checks.append((grade_id[4:-8].replace("_", "."), source))
        known = cell.get("metadata", {}).get("minitorch", {})
        if "points" in known:
            points[str(known["task"])] = float(known["points"])
        for task, name in re.findall(r"^#+ Your task (\d+\.\d+): (.+)$", source, re.MULTILINE):
            names[task] = f"Task {task}: {name.replace('`', '').strip()}"
    return setup, checks, points, names


def run(notebooks: pathlib.Path = NOTEBOOKS, on_row: Callable[[dict], None] | None = None) -> list[dict]:
    """One row per task: notebook, task, points, status ("done", "not started",
    "waits on X.Y", "failing") and why. ``on_row`` gets each row as soon as its check has
    run (a task's status is judged by the checks run before it)."""
    rows, failed, untouched = [], set(), set()
    found = {path: _cells(path) for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))}
    names = {task: name for cells in found.values() for task, name in cells[3].items()}
    paths = list(found)
    started = {paths[0]: _start(*found[paths[0]][:2], paths[0].parent)} if paths else {}
    for index, path in enumerate(paths):
        if index + 1 < len(paths):  # the next notebook's process starts while this one's checks run
            started[paths[index + 1]] = _start(*found[paths[index + 1]][:2], paths[index + 1].parent)
        checks, points = found[path][1], found[path][2]
        for task, outcome, broken in _outcomes(started.pop(path), checks, failed, untouched):
            row = {"notebook": path.stem, "task": task, "points": points.get(task, 0.0)}
            row.update(_status(task, outcome, failed | untouched, untouched, names, broken))
            rows.append(row)
            if on_row:
                on_row(row)
    return rows


def _start(setup: str, checks: list[tuple[str, str]], cwd: pathlib.Path) -> tuple[subprocess.Popen, threading.Timer]:
    """A child running the notebook's checks, stopped after a time limit by the timer."""
    child = subprocess.Popen([sys.executable, "-c", RUNNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, cwd=cwd, env=_environment())
    timer = threading.Timer(SECONDS * (len(checks) + 2), child.kill)
    timer.start()
    assert child.stdin is not None
    child.stdin.write(json.dumps({"setup": setup, "checks": checks, "seconds": SECONDS}))
    child.stdin.close()
    return child, timer


def _outcomes(started: tuple[subprocess.Popen, threading.Timer], checks: list[tuple[str, str]], failed: set,
              untouched: set) -> Iterator[tuple[str, dict | None, str | None]]:
    """(task, outcome, what broke the first cell) for each check, in the notebook's order,
    as soon as the child prints it; ``failed`` and ``untouched`` grow as the outcomes come."""
    child, timer = started
    waiting, broken = [task for task, _ in checks], None
    try:
        for line in child.stdout or ():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # something the checks printed
            untouched.update(record.get("untouched", []))
            broken = record.get("setup", broken)
            if record.get("task") in waiting:
                if record["error"] is not None:
                    failed.add(record["task"])
                waiting.remove(record["task"])
                yield record["task"], record, broken
    finally:
        timer.cancel()
        child.kill()
        child.wait()
    for task in waiting:  # the child ended (crashed, or ran out of time) before these
        yield task, None, broken


def _environment() -> dict:
    import os
    return dict(os.environ, MPLBACKEND="agg")


def _key(task: str) -> tuple[int, ...]:
    return tuple(int(n) for n in task.split("."))


def _status(task: str, outcome: dict | None, undone: set, untouched: set, names: dict, broken: str | None) -> dict:
    """``undone``: the tasks whose own check failed or that are untouched (a task whose
    check did not run here is taken to be done)."""
    name = names.get(task, f"Task {task}")
    if broken:
        return {"status": "failing", "why": f"the notebook's first cell failed: {broken}"}
    if outcome is None:
        return {"status": "failing", "why": "the check did not finish (it crashed its process)"}
    if outcome["error"] is None:
        return {"status": "done", "why": ""}
    stub = STUB.match(outcome["error"]) if outcome.get("type") == "NotImplementedError" else None
    earlier = {stub.group(1)} if stub and stub.group(1) != task else set()
    earlier |= {u for u in outcome.get("used", []) if u in undone} | set(FIRST.findall(outcome["error"]))  # or it says so
    first = min(earlier, key=_key) if earlier else None
    if task in untouched:
        return {"status": "not started", "why": name + (f" (its check also needs Task {first} first)" if first else "")}
    if first:
        state = "not written yet" if first in untouched or (stub and stub.group(1) == first) else "failing its own check"
        return {"status": f"waits on {first}", "why": f"this check runs your {names.get(first, f'Task {first}')}, which "
                f"is {state}: fix Task {first} first"}
    if stub:
        return {"status": "failing", "why": f"{outcome['error'].split(' (', 1)[0]} is not written yet"}
    return {"status": "failing", "why": f"{outcome['type']}: {outcome['error']}" if outcome["error"] else outcome["type"]}


def _importable():  # noqa: ANN202 - a module, loaded from its file when this one runs by its path
    if __package__:
        from . import importable
        return importable
    import importlib.util
    spec = importlib.util.spec_from_file_location("minitorch_course_importable", pathlib.Path(__file__).with_name("importable.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HEADER = f"{'task':6} {'points':>6}  {'status':12} why\n" + "-" * WIDTH


def lines(row: dict) -> str:
    """A row as text; a long reason is wrapped, never cut."""
    why = [piece for line in row["why"].splitlines() for piece in textwrap.wrap(line, WIDTH - 29) or [""]] or [""]
    return "\n".join([f"{row['task']:6} {row['points']:>6g}  {row['status']:12} {why[0]}"] + [" " * 29 + p for p in why[1:]])


def footer(rows: list[dict]) -> str:
    done = sum(r["points"] for r in rows if r["status"] == "done")
    return ("-" * WIDTH + f"\nvisible checks pass for tasks worth {done:g} of {sum(r['points'] for r in rows):g} "
            "points (the hidden tests decide the grade)")


def table(rows: list[dict]) -> str:
    return "\n".join([HEADER, *map(lines, rows), footer(rows)])


def show() -> None:
    """The table, each row printed as soon as its check has run; or, when the package does
    not import, that error in one line (no check can run)."""
    where = NOTEBOOKS if NOTEBOOKS.is_dir() else NOTEBOOKS.parent
    broken = _importable().import_error(NOTEBOOKS.parent, _environment(), where)  # the package the checks import
    if broken:
        print(f"Your package does not import: {broken}. Every visible check needs it, so none ran: fix this "
              "first, then run make progress again.", flush=True)
        return
    print(HEADER, flush=True)
    rows = run(on_row=lambda row: print(lines(row), flush=True))
    print(footer(rows), flush=True)


if __name__ == "__main__":
    show()
