"""The reference's region bodies, and the first of the disguises the copying check's test
class uses (tests/grader/similarity_disguises.py builds the class): every name a copier
chose renamed, independent statements swapped, the code laid out anew and the comments
changed."""

from __future__ import annotations

import ast
import pathlib
import re
import textwrap

from grader.release.regions import BEGIN, END, LABEL

ROOT = pathlib.Path(__file__).resolve().parents[2]
STUB = re.compile(r'^(?P<indent>\s*)raise NotImplementedError\("Task \d+\.\d+: (?P<label>(?:[^"\\]|\\.)*)"\)\s*$')
# names the given code around a region reads or a region must set: a copier keeps them
KEPT = {"grad", "x", "loss", "losses", "total", "shape", "shapes", "self", "idx", "values", "out", "a", "b", "c", "g"}
NEW_COMMENTS = ["# worked this out on paper first", "# see the notebook's derivation", "# careful with shapes here",
                "# TODO tidy up", "# this is the tricky part"]


def key(label: str) -> str:
    """A region's key in the styles: its label less "Task X.Y: " and any "(...)"."""
    return label.split(": ", 1)[1].split(" (")[0]


def reference_bodies() -> dict[str, str]:
    """The reference's region bodies, dedented, by key."""
    bodies = {}
    for path in sorted((ROOT / "solutions" / "minitorch").rglob("*.py")):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.strip() == BEGIN:
                end = next(j for j in range(i, len(lines)) if lines[j].strip() == END)
                label = LABEL.match(lines[i - 1])
                assert label
                bodies[key(label.group(1))] = textwrap.dedent("\n".join(lines[i + 1:end]))
    return bodies


def disguise(bodies: dict[str, str]) -> dict[str, str]:
    """Each body renamed, reordered, laid out anew and commented otherwise."""
    return {name: _disguise(body, n) for n, (name, body) in enumerate(sorted(bodies.items()))}


def _disguise(body: str, n: int) -> str:
    tree = ast.parse(textwrap.dedent(body))
    stored = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    names = {name: f"my_{name[::-1]}_{len(name)}" for name in stored - KEPT}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names:
            node.id = names[node.id]
        elif isinstance(node, ast.arg) and node.arg in names:
            node.arg = names[node.arg]
    _reorder(tree.body)
    statements = tree.body
    out = []
    for i, statement in enumerate(statements):
        if i % 2 == 0:
            out.append(NEW_COMMENTS[(n + i) % len(NEW_COMMENTS)])
        out.append(ast.unparse(statement))
        if i % 3 == 2:
            out.append("")
    return "\n".join(out)


SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign)


def _reorder(statements: list[ast.stmt]) -> None:
    """Swap each pair of adjacent assignments that do not depend on each other, at every depth."""
    i = 0
    while i < len(statements) - 1:
        first, second = statements[i], statements[i + 1]
        if isinstance(first, SIMPLE) and isinstance(second, SIMPLE) and _independent(first, second):
            statements[i], statements[i + 1] = second, first
            i += 1
        i += 1
    for statement in statements:
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(statement, name, None)
            if isinstance(inner, list):
                _reorder(inner)


def _independent(first: ast.stmt, second: ast.stmt) -> bool:
    def written(s):
        return {n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}

    def read(s):
        return {n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return not (written(first) & (read(second) | written(second)) or written(second) & read(first))
