"""The repair search's error model: the kinds of small edit a learner's mistake is one of,
each with the words a message uses (``KINDS``), and where each applies (``changes``).

A kind is named for what the edit does to the code, so a message says what the accepted
edit changed: dropping ``- b`` from ``x / (1 - b)`` leaves ``x / 1``, a divisor too many,
not a term. Standard library only (the grader's learner process holds a copy, with
``mutants.py``, both written by ``make release``).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .edit_swaps import TWIN_KINDS, bases, functions, helped, helpers, operators, swap_last

KINDS = {"return": "a `return` missing (the function ended without returning its value)",
         "sign": "the sign of one term", "swap": "the order of two operands", "axis": "an axis, keepdims or a transpose",
         "keepdims": "whether a reduction keeps its reduced axis as size 1 (dropped, it no longer lines up)",
         "constant": "a constant (a number or a power)",
         "group": "which operations group first (parentheses around a product or quotient)",
         "variable": "which variable is used", "term": "one term of a sum (one too many)", "factor": "one factor or divisor too many",
         "multiply": "a factor missing (a variable or a named constant to multiply by)",
         "unwrap": "a function applied once too often", "wrap": "a function missing (such as exp or log)",
         "transpose": "a transpose (.T reverses every axis; of a batch of matrices only the last two swap)",
         "index": "an index missing (a value used whole where the loop's own part of it belongs)", **TWIN_KINDS}
ORDER = list(KINDS)  # the common kinds first: a search cut short has tried those
AXIS_CALLS = {"swapaxes", "moveaxis", "expand_dims", "squeeze", "transpose", "flip", "roll", "concatenate", "stack",
              "split", "take_along_axis", "argmax", "argmin", "cumsum"}
AXIS_WORDS = ("axis", "axes", "axis1", "axis2", "dim")
REDUCE = {"sum", "mean", "max", "min", "prod", "amax", "amin", "std", "var", "all", "any", "logsumexp"}
TRANSPOSE = {"swapaxes", "transpose", "moveaxis"}
ELEMENTWISE = {"exp", "log", "tanh", "sin", "cos", "sqrt", "abs", "sign", "log1p", "expm1", "square", "fabs"}
MODULES = {"np", "numpy", "math"}
UNNAMED = {"self", "ctx", "cls", *MODULES}  # never swapped for another variable


@dataclass
class Scope:
    """What an edit may use: the function's variables with their kind (a loop's variable,
    an object whose attributes or items are read, or a value), the attributes it reads
    (``a.data``, ``ctx.axis``), the expressions an edit may negate (``tops``) and, of
    those, what a ``return`` gives, which it may multiply (``returned``: a factor that a
    later line cancels, as in ``hit = out * (x == out)``, is no repair), and the module
    whose exp and log a wrapping edit calls."""
    names: dict[str, str]
    attributes: list[ast.Attribute] = field(default_factory=list)
    tops: set[int] = field(default_factory=set)
    module: str | None = None
    axes: list[ast.expr] = field(default_factory=list)
    returned: set[int] = field(default_factory=set)
    constants: list[str] = field(default_factory=list)
    helpers: tuple[list[str], list[str]] | None = None  # a backward's helpers, and the variables they are called on


def scope(node: ast.FunctionDef, module_names: Any, forward: ast.FunctionDef | None = None) -> Scope:
    """``node``'s scope; ``forward`` is its Function's forward, whose ``ctx.axis`` (and the
    like) a backward may use where it wrote a number."""
    nested = [a.arg for f in ast.walk(node) if isinstance(f, (ast.FunctionDef, ast.Lambda))
              for a in f.args.posonlyargs + f.args.args + f.args.kwonlyargs]
    names = nested + [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    loops = {n.id for f in ast.walk(node) if isinstance(f, (ast.For, ast.comprehension))
             for n in ast.walk(f.target) if isinstance(n, ast.Name)}
    objects = {n.value.id for n in ast.walk(node) if isinstance(n, (ast.Attribute, ast.Subscript))
               and isinstance(n.value, ast.Name)}
    called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    attributes = {ast.unparse(n): n for n in ast.walk(node) if isinstance(n, ast.Attribute) and id(n) not in called
                  and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
                  and n.value.id not in MODULES | {"self", "cls"}}
    tops: set[int] = set()
    returned: set[int] = set()
    for statement in ast.walk(node):
        value = getattr(statement, "value", None) if isinstance(statement, (ast.Return, ast.Assign, ast.AugAssign)) \
            else None
        for top in value.elts if isinstance(value, ast.Tuple) else [value] if value is not None else []:
            found = [top, top.args[0]] if isinstance(top, ast.Call) and top.args else [top]  # unbroadcast(g * b, shape)
            tops.update(map(id, found))
            if isinstance(statement, ast.Return):
                returned.update(map(id, found))
    module = next((m for m in ("np", "math") if m in module_names), None)
    held = {ast.unparse(n): n for n in ast.walk(forward or node) if isinstance(n, ast.Attribute) and n.attr in AXIS_WORDS
            and isinstance(n.value, ast.Name) and n.value.id == "ctx"} if "ctx" in [a.arg for a in node.args.args] else {}
    axes: list[ast.expr] = [a for a in attributes.values() if a.attr in AXIS_WORDS]
    axes += held.values()
    axes += [ast.Name(n, ast.Load()) for n in dict.fromkeys(names) if n in AXIS_WORDS]
    # the module's named constants (SQRT_2_OVER_PI): a factor a learner may leave out, used here or not
    constants = [n for n, v in dict(module_names).items() if n.isupper() and type(v) is float][:4]
    return Scope({n: "loop" if n in loops else "object" if n in objects else "value"
                  for n in dict.fromkeys(names) if n not in UNNAMED}, list(attributes.values()), tops, module,
                 list({ast.unparse(a): a for a in axes}.values()), returned, constants, helpers(dict(module_names), node, forward))


def _numbers(value: Any, axis: bool) -> list:
    if axis:
        return [v for v in dict.fromkeys([value - 1, value + 1, -value, -1, 0]) if v != value]
    table: dict[float, list] = {1: [2, 0, -1], 2: [1, 3, 0.5], 0: [1], -1: [1, -2], 0.5: [2, 1, -0.5]}
    found = table.get(value)
    return found if found is not None else [v for v in dict.fromkeys([-value, 2 * value, value / 2, value + 1, value - 1])
                                              if v != value]


def number(node: ast.AST) -> Any:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = number(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) in (int, float) else None


def _constants(parent: ast.AST, value: float, where: Scope) -> Iterator[tuple[str, Callable]]:
    """Another number in place of ``value``: an axis (a keyword such as axis=, an argument
    of swapaxes and the like) by one, to 0 or -1, or to an axis the function holds
    (``ctx.axis``); any other number as ``_numbers`` says."""
    axis = (isinstance(parent, ast.keyword) and parent.arg in AXIS_WORDS) or \
        (isinstance(parent, ast.Call) and getattr(parent.func, "attr", getattr(parent.func, "id", "")) in AXIS_CALLS)
    for new in _numbers(value, axis and isinstance(value, int)):
        yield ("axis" if axis else "constant"), lambda c, v=new: ast.Constant(v) if v >= 0 else \
            ast.UnaryOp(ast.USub(), ast.Constant(-v))
    if axis and isinstance(value, int):
        for held in where.axes:
            yield "axis", lambda c, h=held: copy.deepcopy(h)


def _names(child: ast.AST, where: Scope) -> Iterator[tuple[str, Callable]]:
    """Another variable, or an attribute the function reads, where a variable or attribute is used."""
    load = isinstance(getattr(child, "ctx", None), ast.Load)
    if isinstance(child, ast.Name) and load and child.id in where.names:
        for other, kind in where.names.items():
            if other != child.id and kind == where.names[child.id]:
                yield "variable", lambda c, o=other: ast.Name(o, ast.Load())
        if where.names[child.id] == "value":
            for attribute in where.attributes:
                yield "variable", lambda c, a=attribute: copy.deepcopy(a)
    if isinstance(child, ast.Attribute) and load and any(child is a or ast.unparse(child) == ast.unparse(a)
                                                         for a in where.attributes):
        for other, kind in where.names.items():
            if kind == "value":
                yield "variable", lambda c, o=other: ast.Name(o, ast.Load())
    if isinstance(child, ast.Attribute):
        yield from bases(child, where.names)  # a.shape -> b.shape


def _operations(child: ast.BinOp) -> Iterator[tuple[str, Callable]]:
    if isinstance(child.op, (ast.Add, ast.Sub)):
        yield "sign", lambda c: ast.BinOp(c.left, ast.Sub() if isinstance(c.op, ast.Add) else ast.Add(), c.right)
        yield "term", lambda c: c.left
        yield "term", lambda c: c.right if isinstance(c.op, ast.Add) else ast.UnaryOp(ast.USub(), c.right)
    if isinstance(child.op, (ast.Mult, ast.Div)):
        yield "factor", lambda c: c.left
        if isinstance(child.op, ast.Mult):
            yield "factor", lambda c: c.right
    if isinstance(child.op, (ast.Sub, ast.Div, ast.Pow, ast.MatMult, ast.FloorDiv, ast.Mod)):
        yield "swap", lambda c: ast.BinOp(c.right, c.op, c.left)
    if isinstance(child.left, ast.BinOp):  # a op b op2 c -> a op (b op2 c)
        yield "group", lambda c: ast.BinOp(c.left.left, c.left.op, ast.BinOp(c.left.right, c.op, c.right))
    if isinstance(child.right, ast.BinOp):  # a op (b op2 c) -> (a op b) op2 c
        yield "group", lambda c: ast.BinOp(ast.BinOp(c.left, c.op, c.right.left), c.right.op, c.right.right)
    if isinstance(child.op, ast.MatMult):
        yield "axis", lambda c: ast.BinOp(swap_last(c.left), c.op, c.right)
        yield "axis", lambda c: ast.BinOp(c.left, c.op, swap_last(c.right))


def _calls(child: ast.Call, where: Scope) -> Iterator[tuple[str, Callable]]:
    called = getattr(child.func, "attr", None)
    if called in REDUCE and not any(k.arg == "keepdims" for k in child.keywords) and \
            (child.args or any(k.arg == "axis" for k in child.keywords)):
        yield "keepdims", lambda c: ast.Call(c.func, c.args, c.keywords + [ast.keyword("keepdims", ast.Constant(True))])
    if called in TRANSPOSE:  # x.swapaxes(...) -> x; np.swapaxes(x, ...) -> x
        yield "axis", lambda c: c.args[0] if isinstance(c.func.value, ast.Name) and c.func.value.id in MODULES \
            and c.args else c.func.value
    owner = getattr(child.func, "value", None)
    if called in ELEMENTWISE and isinstance(owner, ast.Name) and owner.id in MODULES \
            and len(child.args) == 1 and not child.keywords and not isinstance(child.args[0], ast.Starred):
        yield "unwrap", lambda c: c.args[0]  # np.exp(out) -> out
    if called is not None and len(child.args) >= 2 and not any(isinstance(a, ast.Starred) for a in child.args[:2]):
        yield "swap", lambda c: ast.Call(c.func, [c.args[1], c.args[0], *c.args[2:]], c.keywords)


def changes(parent: ast.AST, child: ast.AST, where: Scope) -> Iterator[tuple[str, Callable]]:
    """The kinds of edit that apply to ``child`` (under ``parent``), each with a function
    making the edited node from a copy of it."""
    yield from _names(child, where)
    yield from helped(parent, child, where.helpers, where.names)  # and a 1/2 or 2 on one term, in a backward
    if isinstance(child, ast.Expr) and not isinstance(child.value, (ast.Constant, ast.Call)):  # a value computed, then lost
        yield "return", lambda c: ast.Return(c.value)
    if isinstance(child, ast.BinOp):
        for kind, change in _operations(child):
            if kind == "term" and isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Mult, ast.Div)) \
                    and number(change(child)) in (1, 1.0):
                kind = "factor"  # x / (1 - b) -> x / 1: a divisor dropped, whatever the tree calls it
            yield kind, change
        yield from operators(child)
    value = number(child)
    if value is not None:  # a literal, -1 included: another number
        if not isinstance(parent, ast.UnaryOp):
            yield from _constants(parent, value, where)
        return
    if isinstance(child, ast.UnaryOp) and isinstance(child.op, ast.USub):
        yield "sign", lambda c: c.operand
    elif id(child) in where.tops and isinstance(child, (ast.BinOp, ast.Call, ast.Name, ast.Attribute)):
        yield "sign", lambda c: ast.UnaryOp(ast.USub(), c)
    if id(child) in where.returned and isinstance(child, ast.expr):
        for name, kind in where.names.items():
            if kind == "value" and not (isinstance(child, ast.Name) and child.id == name):
                yield "multiply", lambda c, n=name: ast.BinOp(ast.Name(n, ast.Load()), ast.Mult(), c)
    elif isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Add, ast.Sub)) and \
            isinstance(child, (ast.Call, ast.Name)) and not isinstance(getattr(child, "ctx", None), ast.Store):
        for name, kind in where.names.items():  # one term of a sum without its factor: phi(x) for x * phi(x)
            if kind == "value" and not (isinstance(child, ast.Name) and child.id == name):
                yield "multiply", lambda c, n=name: ast.BinOp(ast.Name(n, ast.Load()), ast.Mult(), c)
    if id(child) in where.tops and isinstance(child, ast.expr):
        for name in where.constants:  # a named constant left out: du = 1 + ... for SQRT_2_OVER_PI * (1 + ...)
            yield "multiply", lambda c, n=name: ast.BinOp(ast.Name(n, ast.Load()), ast.Mult(), c)
    if isinstance(child, ast.keyword) and child.arg == "keepdims" and isinstance(child.value, ast.Constant):
        yield "keepdims", lambda c: ast.keyword("keepdims", ast.Constant(not c.value.value))
    if isinstance(child, ast.keyword) and child.arg == "axis" and isinstance(child.value, ast.Constant) \
            and child.value.value is None:
        for axis in (0, -1):
            yield "axis", lambda c, v=axis: ast.keyword("axis", ast.Constant(v))
    if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
        yield from _calls(child, where)
        yield from functions(child, MODULES)
    if isinstance(child, ast.Subscript) and isinstance(child.slice, ast.Tuple):  # a[..., 0, :] -> a[..., :, 0]
        items = child.slice.elts
        for i in [i for i in range(len(items) - 1) if ast.unparse(items[i]) != ast.unparse(items[i + 1])]:
            yield "axis", lambda c, i=i: ast.Subscript(c.value, ast.Tuple(
                [*c.slice.elts[:i], c.slice.elts[i + 1], c.slice.elts[i], *c.slice.elts[i + 2:]], ast.Load()), c.ctx)
    loops = [n for n, kind in where.names.items() if kind == "loop"]
    if loops and isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load) and where.names.get(child.id) \
            not in (None, "loop") and not (isinstance(parent, ast.Subscript) and parent.value is child) \
            and not (isinstance(parent, ast.Call) and parent.func is child):  # x -> x[batch]: the loop's rows only
        for loop in loops:
            yield "index", lambda c, n=loop: ast.Subscript(c, ast.Name(n, ast.Load()), ast.Load())
    if isinstance(child, ast.Attribute) and child.attr == "T" and isinstance(child.ctx, ast.Load):
        yield "axis", lambda c: c.value
        yield "transpose", lambda c: swap_last(c.value)  # .T reverses every axis: of a batch, only the last two
    module = where.module
    if module and isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load) \
            and where.names.get(child.id) == "value" and isinstance(parent, ast.BinOp) \
            and isinstance(parent.op, (ast.Mult, ast.Div)):  # a factor: out * s -> np.exp(out) * s
        for function in ("exp", "log"):  # out -> np.exp(out)
            yield "wrap", lambda c, f=function: ast.Call(ast.Attribute(ast.Name(module, ast.Load()), f,
                                                                       ast.Load()), [c], [])
