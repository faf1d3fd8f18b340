"""The repair search's edits that put one thing for another it is often confused with: an
operator for another (``b * 2`` for ``b ** 2``, ``*`` for ``/``), a NumPy function for its
usual twin (``np.abs`` for ``np.sign``, ``exp`` for ``log``, ``sum`` for ``mean``), and the
variable whose shape (or dtype, ndim, size) is read (``a.shape`` for ``b.shape``, a line
copied). ``edit_kinds.changes`` yields them with its own; standard library only (the
grader's learner process holds a copy, written by ``make release``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

TWIN_KINDS = {"operator": "an operator (* for ** and the like: * and /, + and *)",
         "function": "which function is applied (such as abs for sign, exp for log, sum for mean)"}
TWINS = {"abs": "sign", "sign": "abs", "exp": "log", "log": "exp", "sin": "cos", "cos": "sin", "max": "min",
         "min": "max", "maximum": "minimum", "minimum": "maximum", "argmax": "argmin", "argmin": "argmax",
         "amax": "amin", "amin": "amax", "sum": "mean", "mean": "sum", "log1p": "expm1", "expm1": "log1p",
         "sqrt": "square", "square": "sqrt"}
IN_MATH = {"exp", "log", "sin", "cos", "log1p", "expm1"}   # the twins the math module has both of
METHODS = {"sum", "mean", "max", "min", "argmax", "argmin"}  # x.sum() -> x.mean(): a method of the array
SHAPES = {"shape", "dtype", "ndim", "size"}


def _number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def operators(child: ast.BinOp) -> Iterator[tuple[str, Callable]]:
    """Another operator: ``*`` and ``**`` where a number is the power (``b * 2``, ``b ** 2``),
    ``*`` and ``/`` anywhere, ``+`` and ``*`` with a number (``x + 2`` for ``x * 2``)."""
    number = _number(child.right)
    pairs = [(ast.Mult, ast.Div), (ast.Div, ast.Mult)]
    if number:
        pairs += [(ast.Mult, ast.Pow), (ast.Pow, ast.Mult), (ast.Add, ast.Mult), (ast.Mult, ast.Add)]
    for old, new in pairs:
        if isinstance(child.op, old):
            yield "operator", lambda c, n=new: ast.BinOp(c.left, n(), c.right)


def functions(child: ast.Call, modules: set[str]) -> Iterator[tuple[str, Callable]]:
    """Another function of the same module (``np.abs(x)`` -> ``np.sign(x)``) or method of an
    array (``x.sum(axis=0)`` -> ``x.mean(axis=0)``), its arguments kept."""
    func = child.func
    if not isinstance(func, ast.Attribute) or func.attr not in TWINS:
        return
    owner = func.value.id if isinstance(func.value, ast.Name) else None
    module = owner in modules
    if module and owner == "math" and func.attr not in IN_MATH:
        return
    if module or func.attr in METHODS:
        yield "function", lambda c, t=TWINS[func.attr]: ast.Call(ast.Attribute(c.func.value, t, ast.Load()), c.args, c.keywords)


def bases(child: ast.Attribute, names: dict[str, str]) -> Iterator[tuple[str, Callable]]:
    """Another variable of the function whose shape is read: ``a.shape`` -> ``b.shape``."""
    if child.attr in SHAPES and isinstance(child.ctx, ast.Load) and isinstance(child.value, ast.Name) \
            and names.get(child.value.id) not in (None, "loop"):
        for other, kind in names.items():
            if other != child.value.id and kind != "loop":
                yield "variable", lambda c, o=other: ast.Attribute(ast.Name(o, ast.Load()), c.attr, ast.Load())
