"""What a task brings besides its checks, notebook section and reference test: the hint
steps a learner asks for (``HINTS`` in ``solutions/minitorch/course/hints.py``, three steps
per task) and a variant pair for the grader's tests (``tests/grader/variants.py``: a buggy
version that must lose the task's points, and a correct one written differently that must
keep them), and a stage's planted mistakes (``tests/release/mistakes.py``, which its visible
checks must catch). ``task add`` and ``stage add`` write a ``TODO`` line for each;
``stage drop`` takes a dropped task's hints, buggy variants and mistakes out."""

from __future__ import annotations

import ast
import pathlib
import re

HINTS = pathlib.Path("solutions/minitorch/course/hints.py")
VARIANTS = pathlib.Path("tests/grader/variants.py")
MISTAKES = pathlib.Path("tests/release/mistakes.py")  # the visible checks' planted mistakes, listed as BUGGY is
LISTS = {"BUGGY", "MISTAKES"}  # lists of (name, patch, task, ...) entries


def todo_lines(task: str, title: str) -> dict[pathlib.Path, str]:
    """The line ``task add`` appends to each companion file (valid Python as it stands)."""
    steps = (f"TODO Task {task}: the idea of {title}, in words", "where to look", "nearly the line, never the code")
    return {
        HINTS: f"HINTS[{task!r}] = ({', '.join(repr(step) for step in steps)})\n",
        VARIANTS: f"# TODO Task {task}: BUGGY.append((name, (file, old, new), {task!r}, phrase)) and "
                  "ALTERNATIVES.append((name, [(file, old, new)]))\n",
    }


def stage_todo_lines(stage: str) -> dict[pathlib.Path, str]:
    """The line ``stage add`` appends: the stage's planted mistakes, which its notebooks'
    visible checks must catch (four or more a stage, ``tests/release/test_messages.py``)."""
    return {MISTAKES: f"# TODO Stage {stage}: four or more MISTAKES.append((name, (file, old, new), task, "
                      "[words the visible check's message holds]))\n"}


def _task_of(node: ast.expr) -> str | None:
    """The task a BUGGY entry ``(name, patch, task, phrase)`` names."""
    if isinstance(node, ast.Tuple) and len(node.elts) >= 3 and isinstance(node.elts[2], ast.Constant):
        return str(node.elts[2].value)
    return None


def _spans(tree: ast.Module, tasks: set[str]) -> list[tuple[int, int]]:
    """1-based line spans to delete: ``HINTS`` entries and ``BUGGY`` or ``MISTAKES`` entries
    of ``tasks``, in the dict or list literal, or as a statement of their own."""
    spans = []
    for statement in tree.body:
        target = statement.targets[0] if isinstance(statement, ast.Assign) else getattr(statement, "target", None)
        value = getattr(statement, "value", None)
        name = target.id if isinstance(target, ast.Name) else None
        if name == "HINTS" and isinstance(value, ast.Dict):
            spans += [(k.lineno, v.end_lineno or v.lineno) for k, v in zip(value.keys, value.values)
                      if isinstance(k, ast.Constant) and k.value in tasks]
        elif name in LISTS and isinstance(value, ast.List):
            spans += [(e.lineno, e.end_lineno or e.lineno) for e in value.elts if _task_of(e) in tasks]
        elif (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == "HINTS"
              and isinstance(target.slice, ast.Constant) and target.slice.value in tasks):
            spans.append((statement.lineno, statement.end_lineno or statement.lineno))
        elif (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
              and ast.unparse(statement.value.func) in {f"{n}.append" for n in LISTS} and statement.value.args
              and _task_of(statement.value.args[0]) in tasks):
            spans.append((statement.lineno, statement.end_lineno or statement.lineno))
    return spans


def without(text: str, tasks: set[str]) -> str:
    """``text`` (a hints or variants file) without the entries of ``tasks``, nor the TODO
    comment lines the tools wrote for them or their stage."""
    spans = _spans(ast.parse(text), tasks)
    lines = text.splitlines(keepends=True)
    for start, end in sorted(spans, reverse=True):
        del lines[start - 1:end]
    stages = {task.split(".")[0] for task in tasks}
    todo = re.compile(r"^\s*# TODO (Task (?P<task>\d+\.\d+)|Stage (?P<stage>\d+)):")
    return "".join(line for line in lines if not ((m := todo.match(line)) and (m["task"] in tasks or m["stage"] in stages)))


def drop(root: pathlib.Path, tasks: set[str]) -> list[pathlib.Path]:
    """Take the hints, buggy variants and planted mistakes of ``tasks`` out; the files changed."""
    changed = []
    for path in [root / HINTS, *sorted((root / VARIANTS.parent).glob("variants*.py")), root / MISTAKES]:
        if path.exists():
            source = path.read_text(encoding="utf-8")
            if (new := without(source, tasks)) != source:
                path.write_text(new, encoding="utf-8")
                changed.append(path)
    return changed
