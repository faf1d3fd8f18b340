"""The copying check's class as real classes are (issue 48), written from the issue's text
before the check was changed, and kept apart from the check's code (it uses nothing of
grader/similarity/).

The honest learners are the six styles of similarity_styles.py, each written on its own;
as in a real class, some of them wrote a few easy tasks exactly as the reference does, two
of them wrote their code in helpers of their own (their task functions are one-line calls),
and two took one short task from the same tutorial. The copies, of a classmate
(``verbose``) and two of the reference (one with its helpers in a new module of the
package), use every disguise the issue names at once: names
renamed, bodies moved into module-level helpers (named anew, in another order), loops
written as comprehensions and comprehensions as loops, dead code added (after a return,
unused locals, an unused function), independent lines swapped, comments and layout
changed.
"""

from __future__ import annotations

import ast
import builtins
import pathlib
import random
import re
import shutil
import textwrap

from similarity_class import ROOT, STUB, disguise, key, reference_bodies
from similarity_styles import STYLES

from grader.release.regions import BEGIN, LABEL

# the reference's way, for a few easy tasks, in five of the six honest learners
LIKE_REFERENCE = {"terse": ("3.1", "4.1"), "functional": ("4.1", "4.3", "3.2"), "mathy": ("3.1", "3.2"),
                  "defensive": ("4.3", "2.2"), "beginner": ("3.1",)}
HELPERS = ("functional", "beginner")        # honest learners who write each body in a helper of their own
TUTORIAL = ("beginner", "defensive")        # both took task 1.1 from the same tutorial
TUTORIAL_BODY = """
step = eps
upper = [v + step if i == arg else v for i, v in enumerate(values)]
lower = [v - step if i == arg else v for i, v in enumerate(values)]
return (f(*upper) - f(*lower)) / (step + step)"""
COPIES = {"copier-of-verbose": "verbose", "copier-of-reference": "reference", "mover-of-reference": "reference"}
IN_MODULE = {"mover-of-reference": "my_helpers"}   # this copier's helpers are all in a new module
HONEST = tuple(STYLES)


def task_of_keys() -> dict[str, str]:
    """Each region's key -> its task, from the reference's labels."""
    found = {}
    for path in sorted((ROOT / "solutions" / "minitorch").rglob("*.py")):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.strip() == BEGIN and (label := LABEL.match(lines[i - 1])):
                found[key(label.group(1))] = label.group(1).split(":")[0].removeprefix("Task ").strip()
    return found


def honest_bodies() -> dict[str, dict[str, str]]:
    """Each honest learner's bodies: their style, a few easy tasks as the reference, the tutorial's task."""
    reference, tasks = reference_bodies(), task_of_keys()
    out = {}
    for name, style in STYLES.items():
        bodies = dict(style)
        for region in bodies:
            if tasks[region] in LIKE_REFERENCE.get(name, ()):
                bodies[region] = reference[region]
        if name in TUTORIAL:
            bodies["central_difference"] = TUTORIAL_BODY
        out[name] = bodies
    return out


# ---- the disguises -----------------------------------------------------------------------

class _Loops(ast.NodeTransformer):
    """``x = []`` + ``for ...: x.append(e)`` as a comprehension, and a comprehension assigned or
    returned as a loop: each way turned into the other."""

    def __init__(self) -> None:
        self.fresh = 0

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list) and statements and isinstance(statements[0], ast.stmt):
                setattr(node, field, self._swap(statements))
        return node

    def _swap(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        i = 0
        while i < len(statements):
            s = statements[i]
            nxt = statements[i + 1] if i + 1 < len(statements) else None
            target = _empty_list(s)
            if target and isinstance(nxt, ast.For) and not nxt.orelse and (found := _appends(nxt, target)):
                element, ifs = found
                comp = ast.ListComp(element, [ast.comprehension(nxt.target, nxt.iter, ifs, 0)])
                out.append(ast.Assign([ast.Name(target, ast.Store())], comp, lineno=0))
                i += 2
                continue
            if isinstance(s, (ast.Assign, ast.Return)) and isinstance(s.value, ast.ListComp) \
                    and len(s.value.generators) == 1 and not s.value.generators[0].is_async:
                name = s.targets[0].id if isinstance(s, ast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], ast.Name) else None
                if isinstance(s, ast.Return) or name:
                    self.fresh += 1
                    name = name or f"collected{self.fresh}"
                    gen = s.value.generators[0]
                    append: ast.stmt = ast.Expr(ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "append", ast.Load()),
                                                         [s.value.elt], []))
                    for condition in reversed(gen.ifs):
                        append = ast.If(condition, [append], [])
                    out += [ast.Assign([ast.Name(name, ast.Store())], ast.List([], ast.Load()), lineno=0),
                            ast.For(gen.target, gen.iter, [append], [], lineno=0)]
                    if isinstance(s, ast.Return):
                        out.append(ast.Return(ast.Name(name, ast.Load())))
                    i += 1
                    continue
            out.append(s)
            i += 1
        return out


def _empty_list(s: ast.stmt) -> str | None:
    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
            and isinstance(s.value, ast.List) and not s.value.elts:
        return s.targets[0].id
    return None


def _appends(loop: ast.For, target: str):
    body, ifs = loop.body, []
    while len(body) == 1 and isinstance(body[0], ast.If) and not body[0].orelse:
        ifs.append(body[0].test)
        body = body[0].body
    if len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(call := body[0].value, ast.Call) \
            and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
            and isinstance(call.func.value, ast.Name) and call.func.value.id == target and len(call.args) == 1:
        return call.args[0], ifs
    return None


def swap_loops(body: str) -> str:
    tree = _Loops().visit(ast.parse(textwrap.dedent(body)))
    return ast.unparse(ast.fix_missing_locations(tree))


DEAD_AFTER = ["print('unreachable')", "scratch_value = None", "return None"]


def add_dead_code(body: str, n: int) -> str:
    """An unused local first in every other body, and lines after a final return."""
    lines = textwrap.dedent(body).strip("\n").splitlines()
    if n % 2 == 0:
        lines.insert(0, f"unused_counter = {n}")
    last = ast.parse("\n".join(lines)).body[-1]
    if isinstance(last, ast.Return):
        lines.append(DEAD_AFTER[n % len(DEAD_AFTER)])
    return "\n".join(lines)


UNUSED_FUNCTION = '''

def _debug_print_shapes(*arrays):
    """Prints the shapes while debugging."""
    for index, array in enumerate(arrays):
        print(index, getattr(array, "shape", None), getattr(array, "dtype", None))
    return len(arrays)
'''


def disguise_all(bodies: dict[str, str]) -> dict[str, str]:
    """Every body: loops and comprehensions swapped, dead code added, then renamed, reordered,
    laid out anew and commented otherwise (similarity_class.disguise)."""
    swapped = {name: add_dead_code(swap_loops(body), n) for n, (name, body) in enumerate(sorted(bodies.items()))}
    return disguise(swapped)


# ---- building a hand-in, bodies in helpers ----------------------------------------------

def _module_names(tree: ast.Module) -> set[str]:
    names = set(dir(builtins))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        else:
            names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def _enclosing_locals(tree: ast.Module, line: int) -> set[str]:
    """The names bound by every function around ``line`` (1-based): what a helper must be given."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= (node.end_lineno or 0):
            bound |= {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
            bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return bound


def _helper(body: str, outer: set[str], module: set[str], name: str) -> tuple[str, str]:
    """(the call that takes the body's place, the helper's def)."""
    tree = ast.parse(body)
    loaded = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    params = sorted({n for n in loaded if n in outer and n not in module})
    stored = [t.id for s in tree.body if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign))
              for t in (s.targets if isinstance(s, ast.Assign) else [s.target]) if isinstance(t, ast.Name)]
    stored = [n for n in dict.fromkeys(stored) if n in outer]
    call = f"{name}({', '.join(params)})"
    has_return = isinstance(tree.body[-1], (ast.Return, ast.Raise)) or any(
        isinstance(s, ast.Return) for s in tree.body)
    if has_return:
        site, tail = f"return {call}", ""
    elif stored:
        site, tail = f"{', '.join(stored)}{',' if len(stored) == 1 else ''} = {call}", f"\nreturn {', '.join(stored)}"
    else:
        site, tail = call, ""
    return site, f"def {name}({', '.join(params)}):\n" + textwrap.indent(body + tail, "    ") + "\n"


def build(bodies: dict[str, str], into: pathlib.Path, helpers: str | None = None, seed: int = 0,
          unused: bool = False, module: str | None = None) -> pathlib.Path:
    """A hand-in: the released package with each stub's ``raise`` replaced by its body; with
    ``helpers`` (a name prefix) each body is moved into a module-level helper its function calls,
    the helpers at the end of the file in a shuffled order, or all in a new ``module`` of the
    package that the files import; ``unused`` adds a function nothing calls."""
    rng = random.Random(seed)
    package = into / "minitorch"
    shutil.copytree(ROOT / "minitorch", package, ignore=shutil.ignore_patterns("__pycache__"))
    used, count, moved = set(), 0, []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text()
        tree = ast.parse(text)
        outside = _module_names(tree)
        lines = text.splitlines(keepends=True)
        defs = []
        for i, line in enumerate(lines):
            stub = STUB.match(line)
            if not stub:
                continue
            name = key("Task 0.0: " + stub["label"].replace('\\"', '"'))
            body = textwrap.dedent(bodies[name]).strip("\n")
            if helpers:
                count += 1
                helper = f"{helpers}{re.sub(r'[^a-z]', '_', name.lower())}" if helpers == "_compute_" \
                    else f"{helpers}{count}"   # an honest learner names a helper for its task; a copier hides it
                body, definition = _helper(body, _enclosing_locals(tree, i + 1), outside, helper)
                defs.append(definition)
            lines[i] = "".join(stub["indent"] + row + "\n" if row.strip() else "\n" for row in body.splitlines())
            used.add(name)
        if defs and module:
            moved += defs
            lines.append(f"\n\nfrom minitorch.{module} import *  # noqa: E402,F403\n")
            defs = []
        if defs or (unused and path.name == "ops_unary.py"):
            rng.shuffle(defs)
            tail = "".join("\n\n" + d for d in defs) + (UNUSED_FUNCTION if unused and path.name == "ops_unary.py" else "")
            lines.append(tail)
        path.write_text("".join(lines))
        ast.parse(path.read_text())
    if module:
        rng.shuffle(moved)
        (package / f"{module}.py").write_text('"""My helpers."""\n\nimport math\n\nimport numpy as np\n'
                                              + "".join("\n\n" + d for d in moved))
    assert used == set(bodies), f"bodies for no region: {sorted(set(bodies) - used)}"
    return into


def make_class(folder: pathlib.Path, only: tuple[str, ...] | None = None) -> dict[str, str]:
    """The class in ``folder`` (one folder per learner, or only those named); what each hand-in is:
    "honest", or the name copied ("reference" for the reference solution)."""
    folder.mkdir(parents=True, exist_ok=True)
    honest = honest_bodies()
    what = {}
    for name in HONEST:
        if only is None or name in only:
            build(honest[name], folder / name, helpers="_compute_" if name in HELPERS else None)
            what[name] = "honest"
    for n, (copier, source) in enumerate(COPIES.items()):
        if only is None or copier in only:
            bodies = reference_bodies() if source == "reference" else honest[source]
            build(disguise_all(bodies), folder / copier, helpers=f"_part{n}x", seed=n + 7, unused=True,
                  module=IN_MODULE.get(copier))
            what[copier] = source
    return what
