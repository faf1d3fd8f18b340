"""The repair search's edits that put one thing for another it is often confused with: an
operator for another (``b * 2`` for ``b ** 2``, ``*`` for ``/``), a NumPy function for its
usual twin (``np.abs`` for ``np.sign``, ``exp`` for ``log``, ``sum`` for ``mean``), and the
variable whose shape (or dtype, ndim, size) is read (``a.shape`` for ``b.shape``, a line
copied), a helper of the module's for a value or another helper (``x * cdf`` for ``x * normal_pdf(x)``), and
one term of a sum without its 1/2 or 2 (``x * (1 - t * t) * du`` for ``x * 0.5 * (1 - t * t) * du``).
``edit_kinds.changes`` yields them with its own; standard library only (the grader's learner process holds a
copy, written by ``make release``).
"""

from __future__ import annotations

import ast
import types
from collections.abc import Callable, Iterator

TWIN_KINDS = {"operator": "an operator (* for ** and the like: * and /, + and *)",
         "function": "which function is applied (such as abs for sign, exp for log, sum for mean)",
         "helper": "which function or variable is used (a helper's value, such as a density, for another value)",
         "halved": "a constant factor on one term (a 1/2 or a 2 missing or too many)"}
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


def swap_last(value: ast.expr) -> ast.expr:
    """``value`` with its last two axes swapped (``value.swapaxes(-1, -2)``)."""
    args: list[ast.expr] = [ast.UnaryOp(ast.USub(), ast.Constant(1)), ast.UnaryOp(ast.USub(), ast.Constant(2))]
    return ast.Call(ast.Attribute(value, "swapaxes", ast.Load()), args, [])


def bases(child: ast.Attribute, names: dict[str, str]) -> Iterator[tuple[str, Callable]]:
    """Another variable of the function whose shape is read: ``a.shape`` -> ``b.shape``."""
    if child.attr in SHAPES and isinstance(child.ctx, ast.Load) and isinstance(child.value, ast.Name) \
            and names.get(child.value.id) not in (None, "loop"):
        for other, kind in names.items():
            if other != child.value.id and kind != "loop":
                yield "variable", lambda c, o=other: ast.Attribute(ast.Name(o, ast.Load()), c.attr, ast.Load())


def helpers(module_names: dict, node: ast.FunctionDef, forward: ast.FunctionDef | None) \
        -> tuple[list[str], list[str]] | None:
    """A backward's helpers: the module's own public functions of one array (``normal_pdf``, ``normal_cdf``; not an
    op's wrapper, which calls ``apply``), and the variables the backward or its forward calls them on (``x``); None
    for a function that is no Function's backward."""
    if forward is None:
        return None
    found = [n for n, v in module_names.items() if isinstance(v, types.FunctionType) and not n.startswith("_")
             and v.__module__ == module_names.get("__name__") and "apply" not in v.__code__.co_names
             and v.__code__.co_argcount - len(v.__defaults__ or ()) == 1][:4]
    called = [c.args[0].id for f in (node, forward) for c in ast.walk(f) if isinstance(c, ast.Call)
              and isinstance(c.func, ast.Name) and c.func.id in found and c.args and isinstance(c.args[0], ast.Name)]
    return (found, list(dict.fromkeys(called))[:2]) if called else ([], [])


def helped(parent: ast.AST, child: ast.AST, found: tuple[list[str], list[str]] | None,
           names: dict[str, str]) -> Iterator[tuple[str, Callable]]:
    """A helper's value where a value is used in an operation (``cdf`` -> ``normal_pdf(x)``), and one helper's call for
    another's (``normal_cdf(x)`` -> ``normal_pdf(x)``), in a Function's backward (``found`` not None); and there one
    term of a sum times 1/2 or 2 (``halved``)."""
    yield from halved(parent, child, found is not None)
    functions, inputs = found or ([], [])
    if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load) and names.get(child.id) == "value" \
            and isinstance(parent, ast.BinOp):
        for function in functions:
            for name in inputs:
                yield "helper", lambda c, f=function, n=name: ast.Call(ast.Name(f, ast.Load()), [ast.Name(n, ast.Load())], [])
    if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id in functions:
        for function in functions:
            if function != child.func.id:
                yield "helper", lambda c, f=function: ast.Call(ast.Name(f, ast.Load()), c.args, c.keywords)


def halved(parent: ast.AST, child: ast.AST, backward: bool) -> Iterator[tuple[str, Callable]]:
    """One term of a sum (a product, a variable or a call) of a Function's backward times 1/2 or 2: its constant
    factor missing or too many (a derivative's; a longer function, an optimizer's step, is not searched for it)."""
    product = isinstance(child, ast.BinOp) and isinstance(child.op, (ast.Mult, ast.Div))
    if backward and isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Add, ast.Sub)) and \
            (product or isinstance(child, (ast.Name, ast.Call))):
        for factor in (0.5, 2):
            yield "halved", lambda c, f=factor: ast.BinOp(ast.Constant(f), ast.Mult(), c)
