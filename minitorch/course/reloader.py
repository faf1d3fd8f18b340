"""Saved edits of the package reach a running kernel, in place (the notebooks' first cell
turns this on through ``minitorch.course.notebook``).

Before each cell, every package file whose contents changed is run again inside its own
module object, dependencies first. The module keeps its identity, and so does everything
it defines: each old function gets the new code (``__code__``, defaults, closure cells),
each old class gets the new methods and attributes, and the module's names point at the
old objects again. So every reference made before the edit runs the new code: ``from
..language import sample_next`` in another module, a re-export in an ``__init__``, a name
imported into the notebook, a method of an object made before the edit. Every function of
a changed file gets code compiled from the file as it is now, so tracebacks show the right
lines, and ``linecache`` forgets the old text.

What cannot be updated in place is replaced, and every from-import of it in the package
(and a name of the notebook that held it) is pointed at the new object: a value that is
not a function or a class (a constant, a dict), a function whose closure changed shape.
A class whose base classes or ``__slots__`` changed is replaced too; objects made from the
old class keep it, and ``Reloader.reload`` returns a ``Notice`` for each such class so
that the notebook can say which objects to make again.
"""

from __future__ import annotations

import ast
import hashlib
import linecache
import pathlib
import sys
import types
from dataclasses import dataclass, field
from typing import Any

from .inplace import update_class, update_function

PACKAGE = pathlib.Path(__file__).resolve().parents[1]  # minitorch/, this room's package
SKIP = {"notebook", "reloader", "inplace"}  # the machinery itself, kept as loaded
SIMPLE = (int, float, complex, str, bytes, bool, type(None))


@dataclass
class Notice:
    """A class that could not be updated in place: objects made from ``old`` keep it."""
    path: pathlib.Path
    name: str
    why: str
    old: type


@dataclass
class Outcome:
    reloaded: list[str] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    problem: tuple[pathlib.Path, BaseException] | None = None  # a file that does not load


def _module_name(path: pathlib.Path) -> str:
    parts = (PACKAGE.name, *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _digest(path: pathlib.Path) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()


def _files() -> list[pathlib.Path]:
    return sorted(p for p in PACKAGE.rglob("*.py")
                  if not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(PACKAGE).parts))


def _ours(name: str) -> bool:
    return name == PACKAGE.name or name.startswith(PACKAGE.name + ".")


_IMPORTS: dict[tuple[str, int, int], list[tuple[str, str, str]]] = {}  # (file, mtime_ns, size) -> its imports


def _imports(module: types.ModuleType) -> list[tuple[str, str, str]]:
    """(module imported from, its name, the name bound here) for each ``from X import a``
    of the module's file that runs (not those under ``if TYPE_CHECKING:``)."""
    file = getattr(module, "__file__", None)
    try:
        stat = pathlib.Path(file).stat() if file else None
        key = (str(file), stat.st_mtime_ns, stat.st_size) if stat else None
        if key and key not in _IMPORTS:
            _IMPORTS[key] = _read_imports(module, ast.parse(pathlib.Path(str(file)).read_bytes()))
    except (OSError, SyntaxError):  # gone, or saved again half-written: the next cell looks again
        return []
    return _IMPORTS[key] if key else []


def _read_imports(module: types.ModuleType, tree: ast.Module) -> list[tuple[str, str, str]]:
    package = (module.__package__ or "").split(".")
    found = []
    checking = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                and ast.unparse(node.test).endswith("TYPE_CHECKING") for n in ast.walk(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and id(node) not in checking:
            base = package[:len(package) - node.level + 1] if node.level else []
            source = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                found.append((source, alias.name, alias.asname or alias.name))
    return found


class Reloader:
    def __init__(self) -> None:
        self.stamps: dict[pathlib.Path, tuple[int, int]] = {}  # file -> (mtime_ns, size) when last read
        self.loaded: dict[pathlib.Path, str] = {}  # file -> hash of the text the kernel runs
        self.waiting: set[pathlib.Path] = set()  # changed, not loaded yet: a problem stopped it
        self.scan()

    def scan(self) -> set[pathlib.Path]:
        """The package files whose text differs from what the kernel runs (a file seen for
        the first time counts as loaded)."""
        changed = set()
        for path in _files():
            try:
                stat = path.stat()
            except OSError:
                continue
            if self.stamps.get(path) == (stat.st_mtime_ns, stat.st_size) and path not in self.waiting:
                continue
            self.stamps[path] = (stat.st_mtime_ns, stat.st_size)
            digest = _digest(path)
            if path not in self.loaded:
                self.loaded[path] = digest
            elif self.loaded[path] != digest:
                changed.add(path)
        self.waiting &= changed
        return changed

    def reload(self, namespace: dict[str, Any] | None = None) -> Outcome:
        """Bring every changed file in; ``namespace`` is the notebook's, whose names of
        replaced objects are pointed at the new ones."""
        outcome = Outcome()
        changed = self.scan()
        self.waiting = set(changed)
        modules = {_module_name(p): p for p in changed}
        codes, texts = {}, {name: path.read_bytes() for name, path in modules.items()}
        for name, path in sorted(modules.items()):
            try:
                codes[name] = compile(texts[name], str(path), "exec", dont_inherit=True)
            except SyntaxError as error:  # IndentationError and TabError too
                outcome.problem = (path, error)
                return outcome
        replaced: dict[int, tuple[Any, Any, str]] = {}  # id(old) -> (old, new, its name in its module)
        for name in self._order(set(modules)):
            path = modules[name]
            module = sys.modules.get(name)
            if module is not None and name.rsplit(".", 1)[-1] not in SKIP:
                try:
                    self._run(module, codes[name], path, replaced, outcome.notices)
                except Exception as error:  # noqa: BLE001 - the learner's file failing at its top level
                    outcome.problem = (path, error)
                    break
                linecache.checkcache(str(path))
                outcome.reloaded.append(name)
            self.loaded[path] = hashlib.sha1(texts[name]).hexdigest()  # not imported: an import reads it anyway
            self.waiting.discard(path)
        self._rebind(replaced, namespace)
        return outcome

    def _order(self, names: set[str]) -> list[str]:
        """``names`` with each module after the package modules it imports from."""
        done: list[str] = []
        seen: set[str] = set()

        def visit(name: str) -> None:
            if name in seen:
                return
            seen.add(name)
            module = sys.modules.get(name)
            for source, _, _ in _imports(module) if module is not None else []:
                if _ours(source):
                    visit(source)
            if name in names:
                done.append(name)
        for name in sorted(names):
            visit(name)
        return done

    def _run(self, module: types.ModuleType, code: types.CodeType, path: pathlib.Path,
             replaced: dict[int, tuple[Any, Any, str]], notices: list[Notice]) -> None:
        """Run ``code`` in ``module``'s own namespace, then put the old objects back, updated."""
        old = dict(module.__dict__)
        namespace = module.__dict__
        keep = {k: v for k, v in old.items() if k.startswith("__") and k.endswith("__") and k != "__doc__"}
        namespace.clear()
        namespace.update(keep)
        try:
            exec(code, namespace)
        except BaseException:
            namespace.clear()
            namespace.update(old)
            raise
        for key, value in old.items():  # submodules set on a package by the import system
            if isinstance(value, types.ModuleType) and key not in namespace:
                namespace[key] = value
        classes: dict[int, type] = {}
        for key, new in list(namespace.items()):
            was = old.get(key)
            if isinstance(was, type) and isinstance(new, type) and was is not new and was.__module__ == module.__name__:
                classes[id(new)] = was
        for key, new in list(namespace.items()):
            was = old.get(key, new)
            if was is new or (key.startswith("__") and key.endswith("__")):
                continue
            why = update_class(was, new, classes) if id(new) in classes else "not a class"
            if not why:
                namespace[key] = was
            elif isinstance(was, types.FunctionType) and isinstance(new, types.FunctionType) \
                    and was.__module__ == module.__name__ and update_function(was, new):
                namespace[key] = was
            else:
                if id(new) in classes:
                    notices.append(Notice(path, new.__qualname__, why, was))
                replaced[id(was)] = (was, new, key)
                if isinstance(new, types.MethodType) and id(new.__self__) in classes:
                    namespace[key] = getattr(classes[id(new.__self__)], new.__name__)
        for value in namespace.values():  # objects the file makes of its own classes
            if id(type(value)) in classes and not isinstance(value, type):
                try:
                    value.__class__ = classes[id(type(value))]
                except TypeError:
                    pass

    def _rebind(self, replaced: dict[int, tuple[Any, Any, str]], namespace: dict[str, Any] | None) -> None:
        """Point every from-import (and the notebook's names) of a replaced object at the new one."""
        if not replaced:
            return
        for name, module in list(sys.modules.items()):
            for source, original, bound in _imports(module) if _ours(name) else []:
                pair = replaced.get(id(module.__dict__.get(bound)))
                if pair and pair[0] is module.__dict__.get(bound):
                    module.__dict__[bound] = getattr(sys.modules.get(source), original, pair[1])
        for key, value in list((namespace or {}).items()):
            pair = replaced.get(id(value))
            if pair and pair[0] is value and not key.startswith("_") and (not isinstance(value, SIMPLE) or pair[2] == key):
                namespace[key] = pair[1]  # type: ignore[index]
