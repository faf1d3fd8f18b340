"""The package's shape (STYLE.md): imports flow one way, modules stay short, and the
autograd core never imports plotting or the ops."""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "solutions" / "minitorch"

# A module may import only from modules of a lower layer.
LAYERS = [
    {"autodiff", "numerical", "shapes", "datasets", "plotting_training", "progress", "handin", "notebook"},
    {"scalar", "tensor", "plotting"},
    {"function"},
    {"gradcheck", "ops_activation", "ops_binary", "ops_index", "ops_linalg", "ops_reduce",
     "ops_shape", "ops_softmax", "ops_unary", "ops_norm", "ops_select"},
    {"losses", "methods", "nn", "visible"},
    {"optim", "transformer"},
    {"training", "language"},
    {"__init__"},
]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def package_imports(path: pathlib.Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found.update([node.module] if node.module else [alias.name for alias in node.names])
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "minitorch" for a in node.names):
            found.add("minitorch (absolute)")
    return found


def test_every_module_has_a_layer():
    assert {p.stem for p in PACKAGE.glob("*.py")} == set(RANK)


@pytest.mark.parametrize("module", sorted(RANK))
def test_imports_flow_one_way(module):
    for imported in package_imports(PACKAGE / f"{module}.py"):
        assert imported in RANK, f"{module} imports {imported}"
        assert RANK[imported] < RANK[module], f"{module} (layer {RANK[module]}) imports {imported} (layer {RANK[imported]})"


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_modules_stay_short_and_never_import_matplotlib_at_the_top(path):
    text = path.read_text()
    assert len(text.splitlines()) <= 250
    tree = ast.parse(text)
    for node in tree.body:  # module level only
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            assert not any(n.startswith("matplotlib") for n in names)
