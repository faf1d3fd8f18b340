"""Learners who leave tasks unwritten and call the grader's own versions instead (issue 31),
each beside its control: the same package with those tasks simply left unwritten. The
grader must score every borrower exactly as its control, on every path that grades.

The six tasks are the ones a swap lends a given version of: 1.3's topological order,
2.2's unbroadcast, 5.3's stable logsumexp, 6.1's Linear.forward, 7.2's attention and
7.3's Block.forward. Each borrower finds the grader's versions its own way:

* through the module table (``sys.modules``: any table or attribute of the grader's
  modules holding a function of that name, this layout's or an earlier one's);
* through the garbage collector (any function of that name whose module is the grader's,
  copied from its code object so that nothing refers to the original);
* by capture: whatever the package finds swapped into its own attributes while a check
  runs is kept, and called later, in another check and another stage;
* everything: every function object that is not its own and is reachable through the
  module table, the garbage collector, the frames above it or its own swapped attributes,
  called with the task's inputs, stand-ins last (``EVERYTHING``; graded as the blank release).
"""

import pathlib
import re
import shutil

REFERENCE = pathlib.Path(__file__).resolve().parents[2] / "solutions" / "minitorch"

# label of the solution region -> (the given helper, the region's arguments)
ALL_SIX = {
    "Task 1.3: topological_order": ("topological_order", "root"),
    "Task 2.2: unbroadcast": ("unbroadcast", "grad, shape"),
    "Task 5.3: stable_logsumexp": ("stable_logsumexp", "x, axes"),
    "Task 6.1: Linear.forward": ("linear_forward", "self, x"),
    "Task 7.2: CausalSelfAttention.forward": ("attention", "self, x"),
    "Task 7.3: Block.forward": ("block", "self, x"),
}

def _in_course(label: str) -> bool:
    import tomllib
    manifest = tomllib.loads((REFERENCE.parents[1] / "grader" / "tasks.toml").read_text())
    return label.split()[1].rstrip(":") in manifest["task"]


SIX = {label: spec for label, spec in ALL_SIX.items() if _in_course(label)}   # those the course still has
NAMES = ("{0}", "_{0}", "_given_{0}")  # what a helper has been called in the grader's modules

BORROW = '''"""How this package borrows (a hostile learner of the grader's tests)."""
import gc
import sys
import types

CAPTURED = {}
TARGETS = {"topological_order": [("autodiff", "topological_order")],
           "unbroadcast": [("ops_binary", "unbroadcast"), ("ops_shape", "unbroadcast"), ("ops_linalg", "unbroadcast")],
           "stable_logsumexp": [("ops_softmax", "stable_logsumexp")], "linear_forward": [("nn", "Linear.forward")],
           "attention": [("nn", "CausalSelfAttention.forward")], "block": [("nn", "Block.forward")]}


def _foreign(f):
    return isinstance(f, types.FunctionType) and not str(getattr(f, "__module__", "")).startswith("minitorch")


def modules(helper, *args):
    for name, module in list(sys.modules.items()):
        if not name.startswith("grader"):
            continue
        for table in ("STAND_INS", "GIVEN", "HELPERS"):
            found = getattr(module, table, None)
            if isinstance(found, dict) and callable(found.get(helper)):
                return found[helper](*args)
        for pattern in NAMES:
            found = getattr(module, pattern.format(helper), None)
            if _foreign(found):
                return found(*args)
    raise NotImplementedError("nothing to borrow")


def collector(helper, *args):
    names = {pattern.format(helper) for pattern in NAMES}
    for f in gc.get_objects():
        if _foreign(f) and f.__name__ in names and str(f.__module__).startswith("grader"):
            copy = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
            return copy(*args)
    raise NotImplementedError("nothing to borrow")


def capture():
    package = sys.modules["minitorch"]
    for helper, places in TARGETS.items():
        for module, path in places:
            owner = getattr(package, module, None)
            for part in path.split("."):
                owner = getattr(owner, part, None)
            if _foreign(owner):
                CAPTURED.setdefault(helper, owner)


def captured(helper, *args):
    capture()
    if helper in CAPTURED:
        return CAPTURED[helper](*args)
    raise NotImplementedError("nothing captured yet")


def _candidates(own):
    """Every function object reachable that is not the package's own, nor NumPy's or the
    standard library's; the grader's pipe plumbing (wire, process, confinement) is left out,
    since calling it breaks the pipe and gains nothing; stand-ins come last."""
    seen = {}
    def add(f):
        if _foreign(f) and f is not own and "/grader/" in f.__code__.co_filename:
            if not any(f.__module__.endswith(m) for m in (".wire", ".process", ".confinement")):
                seen.setdefault(id(f), f)
    for module in list(sys.modules.values()):
        for value in list(getattr(module, "__dict__", {}).values()):
            add(value)
            for inner in list(getattr(value, "__dict__", {}).values()) if isinstance(value, type) else ():
                add(getattr(inner, "__func__", inner))
    for f in gc.get_objects():
        add(f)
    frame = sys._getframe(2)
    while frame is not None:
        for value in list(frame.f_locals.values()):
            add(value)
        frame = frame.f_back
    capture()
    for f in CAPTURED.values():
        add(f)
    return sorted(seen.values(), key=lambda f: f.__module__.endswith("stand_ins"))


def _same(found, given):
    try:
        import numpy
        return found is given or (isinstance(found, numpy.ndarray) and numpy.array_equal(found, given))
    except BaseException:  # noqa: BLE001
        return False


def everything(own, *args):
    for f in _candidates(own):
        try:
            found = f(*args)
        except BaseException:  # noqa: BLE001 - a hostile learner tries everything
            continue
        if found is not None and not any(_same(found, a) for a in args):  # an input, or a copy, needs no grader
            return found
    raise NotImplementedError("nothing reachable computes this")
'''


WATCH = """
from . import _borrow as _b, function as _f
def _watch(cls):
    init = cls.__init__
    def watching(self, *a, **k):
        _b.capture()
        init(self, *a, **k)
    cls.__init__ = watching
for _cls in {_f.Context, getattr(_f, "BackwardNode", _f.Context)}:
    _watch(_cls)
"""


def _replace(text: str, label: str, body: str) -> str:
    """``text`` with the solution region under ``label`` replaced by ``body`` (one line)."""
    pattern = re.compile(rf"^(\s*)# {re.escape(label)}\n\s*### BEGIN SOLUTION\n.*?### END SOLUTION\n", re.S | re.M)
    found = pattern.search(text)
    assert found, f"no region {label!r}"
    indent = found.group(1)
    return text[:found.start()] + f"{indent}# {label}\n{indent}{body}\n" + text[found.end():]


def _package(how: str | None):
    """A builder of the reference with the six tasks borrowed ``how``, or unwritten (None)."""
    def build(where: pathlib.Path, learner: str) -> pathlib.Path:
        target = where / learner
        root = pathlib.Path(shutil.copytree(REFERENCE, target / "minitorch", ignore=shutil.ignore_patterns("__pycache__")))
        for label, (helper, arguments) in SIX.items():
            file = next(p for p in root.rglob("*.py") if f"# {label}\n" in p.read_text())
            if how is None:
                body = f'raise NotImplementedError("{label}")'
            elif how == "everything":
                function = label.split(": ")[1].split(" ")[0]
                body = f"from minitorch import _borrow; return _borrow.everything(None, {arguments})  # {function}"
            else:
                body = f"from minitorch import _borrow; return _borrow.{how}({helper!r}, {arguments})"
            file.write_text(_replace(file.read_text(), label, body))
        if how is not None:
            (root / "_borrow.py").write_text(BORROW.replace(
                "import types\n", "import types\n\nNAMES = " + repr(NAMES) + "\n", 1))
        if how == "captured":  # look at the swapped attributes whenever a rule or a module runs
            with (root / "__init__.py").open("a") as init:
                init.write(WATCH)
        return target
    return build


CONTROL = "leaves-six-unwritten"
BORROWERS = [
    (CONTROL, _package(None)),
    ("borrows-module-table", _package("modules")),
    ("borrows-collector", _package("collector")),
    ("borrows-captured", _package("captured")),
]
EVERYTHING = ("borrows-everything", _package("everything"))
