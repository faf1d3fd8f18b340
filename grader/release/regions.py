"""Solution regions in the reference package's source files.

A region is the code a learner writes for one task, between a ``### BEGIN SOLUTION`` and a
``### END SOLUTION`` line. The line right above ``### BEGIN SOLUTION`` labels it:

    # Task 2.3: Mul.backward
    ### BEGIN SOLUTION
    return ...
    ### END SOLUTION

``stub`` replaces each region by ``raise NotImplementedError("Task 2.3: Mul.backward")``,
keeping the label above it, which is how the learner's package is made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
LABEL = re.compile(r"^\s*# (Task (\d+\.\d+): .+)$")


class RegionError(ValueError):
    """A malformed region: the message names the file and the line."""


@dataclass(frozen=True)
class Region:
    task: str      # "2.3"
    label: str     # "Task 2.3: Mul.backward"
    begin: int     # 0-based line numbers of the two markers
    end: int
    indent: str


def find_regions(text: str, filename: str = "<source>") -> list[Region]:
    lines = text.splitlines()
    regions: list[Region] = []
    open_at: int | None = None
    for number, line in enumerate(lines):
        stripped = line.strip()
        if stripped == BEGIN:
            if open_at is not None:
                raise RegionError(f"{filename}:{number + 1}: {BEGIN} inside the region opened "
                                  f"at line {open_at + 1}")
            label = LABEL.match(lines[number - 1]) if number else None
            if not label:
                raise RegionError(f"{filename}:{number + 1}: the line above {BEGIN} must be "
                                  "a label such as '# Task 2.3: Mul.backward'")
            indent = line[:len(line) - len(line.lstrip())]
            if not indent:
                raise RegionError(f"{filename}:{number + 1}: a region must be inside a function "
                                  "body, or the learner's package would not import")
            open_at = number
            regions.append(Region(label.group(2), label.group(1), number, -1, indent))
        elif stripped == END:
            if open_at is None:
                raise RegionError(f"{filename}:{number + 1}: {END} without {BEGIN}")
            regions[-1] = Region(regions[-1].task, regions[-1].label, open_at, number, regions[-1].indent)
            open_at = None
        elif "BEGIN SOLUTION" in stripped or "END SOLUTION" in stripped:
            raise RegionError(f"{filename}:{number + 1}: write the marker exactly as "
                              f"'{BEGIN}' or '{END}', alone on its line")
    if open_at is not None:
        raise RegionError(f"{filename}:{open_at + 1}: {BEGIN} is never closed")
    return regions


def stub(text: str, filename: str = "<source>") -> str:
    """``text`` with every solution region replaced by a NotImplementedError naming its task."""
    lines = text.splitlines(keepends=True)
    for region in reversed(find_regions(text, filename)):
        message = region.label.replace("\\", "\\\\").replace('"', '\\"')
        lines[region.begin:region.end + 1] = [f'{region.indent}raise NotImplementedError("{message}")\n']
    return "".join(lines)


def given_lines(text: str, module: str) -> dict[str, dict]:
    """Each labelled function of a source file (``module``, such as "ops_unary" or
    "nn.modules"): "module:qualname" (its outermost function) -> its task and the lines the
    release gives above its label, stripped, without blank lines or comments. A learner who
    types over the label keeps these: the course's repair search and "your line" find the
    learner's own lines below them (``minitorch/course/mutants.py``, ``own_from``)."""
    import ast

    lines = text.splitlines()
    tree = ast.parse(text)
    outer: list[tuple[str, ast.FunctionDef]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            outer.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            outer += [(f"{node.name}.{c.name}", c) for c in node.body if isinstance(c, ast.FunctionDef)]
    found: dict[str, dict] = {}
    for number, line in enumerate(lines, 1):
        label = LABEL.match(line)
        if not label:
            continue
        for qualname, node in outer:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if start <= number <= (node.end_lineno or 0) and f"{module}:{qualname}" not in found:
                given = [s.strip() for s in lines[start - 1:number - 1] if s.strip() and not s.strip().startswith("#")]
                found[f"{module}:{qualname}"] = {"task": label.group(2), "given": given}
    return found
