"""The package's shape (docs/MAINTAINER.md): imports flow one way, modules stay short, the autograd
core never imports plotting or the ops, and the engine never imports the course's room."""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "solutions" / "minitorch"

# The engine: a module may import only from modules of a lower layer. ``nn`` is a package:
# its ``__init__`` gathers what ``nn/modules.py`` (stage 6) and ``nn/transformer.py``
# (stage 7) define.
LAYERS = [
    {"autodiff", "numerical", "shapes", "datasets"},
    {"scalar", "tensor"},
    {"function"},
    {"gradcheck", "ops_activation", "ops_binary", "ops_index", "ops_linalg", "ops_reduce",
     "ops_shape", "ops_softmax", "ops_unary", "ops_norm", "ops_select"},
    {"losses", "nn.modules"},
    {"language"},
    {"nn.transformer"},
    {"nn"},
    {"optim"},
    {"training"},
    {"__init__"},
]
# The course's room (``course/``: checks' messages, progress, hand-in, reloading, pictures,
# hints): its modules may import any engine module, and each other one way only; no engine
# module imports the room, except that the package's ``__init__`` re-exports two names.
ROOM = [
    {"course.importable", "course.edit_swaps"},
    {"course", "course.plotting_training", "course.progress", "course.inplace", "course.diagnose",
     "course.heatmaps", "course.hints", "course.edit_kinds", "course.evidence", "course.earlier",
     "course.own_lines"},
    {"course.mutants", "course.made_at"},
    {"course.task_code"},
    {"course.repair"},
    {"course.plotting", "course.reloader", "course.handin", "course.failures", "course.known_mistakes"},
    {"course.mismatch"},
    {"course.notebook", "course.visible"},
]
REEXPORTED = {"course", "course.hints", "course.plotting"}  # mt.hint and mt.plotting
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
ROOM_RANK = {name: rank for rank, names in enumerate(ROOM) for name in names}
MODULES = {".".join(p.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__"): p
           for p in PACKAGE.rglob("*.py")}


def package_imports(module: str) -> set[str]:
    """The package's modules that ``module`` imports when it runs (imports under ``if
    TYPE_CHECKING:`` are for annotations only and never run)."""
    package = module.split(".")[:-1] if MODULES[module].name != "__init__.py" else module.split(".")
    if module == "__init__":
        package = []
    found = set()
    tree = ast.parse(MODULES[module].read_text())
    checking = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                and ast.unparse(node.test).endswith("TYPE_CHECKING") for n in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in checking:
            continue
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
            names = [node.module] if node.module else [alias.name for alias in node.names]
            names += [f"{node.module}.{alias.name}" for alias in node.names if node.module
                      and ".".join(base + [node.module, alias.name]) in MODULES]  # a submodule
            found.update(".".join(base + n.split(".")) for n in names)
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "minitorch" for a in node.names):
            found.add("minitorch (absolute)")
    return found


def test_every_module_has_a_layer():
    assert set(MODULES) == set(RANK) | set(ROOM_RANK)
    assert all(p.parent.name == "course" for name, p in MODULES.items() if name in ROOM_RANK)


@pytest.mark.parametrize("module", sorted(RANK))
def test_imports_flow_one_way(module):
    for imported in package_imports(module):
        if module == "__init__" and imported in REEXPORTED:
            continue
        assert not imported.startswith("course"), f"{module} is the engine's and imports the course's room ({imported})"
        assert imported in RANK, f"{module} imports {imported}"
        assert RANK[imported] < RANK[module], f"{module} (layer {RANK[module]}) imports {imported} (layer {RANK[imported]})"


@pytest.mark.parametrize("module", sorted(ROOM_RANK))
def test_the_room_imports_the_engine_and_itself_one_way(module):
    for imported in package_imports(module):
        if imported in RANK:
            continue  # any of the engine
        assert imported in ROOM_RANK, f"{module} imports {imported}"
        assert ROOM_RANK[imported] < ROOM_RANK[module], \
            f"{module} (room layer {ROOM_RANK[module]}) imports {imported} (room layer {ROOM_RANK[imported]})"


@pytest.mark.parametrize("path", sorted(MODULES.values()), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_stay_short_and_never_import_matplotlib_at_the_top(path):
    text = path.read_text()
    assert len(text.splitlines()) <= 250
    tree = ast.parse(text)
    for node in tree.body:  # module level only
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            assert not any(n.startswith("matplotlib") for n in names)
