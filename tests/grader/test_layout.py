"""The grader's folders are its trust zones, and imports go one way between them: what runs
inside the learner's process imports neither the checks nor the rooms that grade, each
folder imports only the rooms below it, the release builder imports nothing of the grader
outside its folder, no module imports itself back through others (in the grader and in the
learner's package), each command is a plain function of its own module that only
``__main__`` parses for, and no module is longer than the project's limit
(docs/MAINTAINER.md says why)."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GRADER = ROOT / "grader"
LIMIT = 250


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: pathlib.Path, top_level_only: bool = False) -> set[str]:
    """The grader modules ``path`` imports (``from grader.x import y`` counts ``grader.x``
    and, when it is a module, ``grader.x.y``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("grader")}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("grader"):
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in MODULES}
    return {name for name in found if name in MODULES}


MODULES = {module_name(p): p for p in GRADER.rglob("*.py")}


def zone(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (GRADER / parts[1]).is_dir()) else "top"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if zone(n) == "learner"))
def test_the_learners_process_imports_no_checks_and_no_grading(name):
    allowed = {"learner", "boundary"}
    reached = imports(MODULES[name])
    assert {zone(n) for n in reached} <= allowed | {"top"} and not reached & {"grader.tasks", "grader.results"}
    assert {n for n in reached if zone(n) == "boundary"} <= {"grader.boundary", "grader.boundary.wire",
                                                             "grader.boundary.confinement"}


@pytest.mark.parametrize("name", sorted(n for n in MODULES if zone(n) == "release"))
def test_the_release_builder_imports_nothing_of_the_grader(name):
    assert {zone(n) for n in imports(MODULES[name])} <= {"release"}


def test_the_checks_never_import_the_grading_rooms_or_the_outputs():
    for name in (n for n in MODULES if zone(n) == "checks"):
        assert {zone(n) for n in imports(MODULES[name])} <= {"checks", "boundary", "learner", "top"}, name


# What each folder of the grader may import besides itself (docs/GRADER.md's table of
# zones): a hand-in is read (intake), graded (grading), recorded (gradebook), for a class
# on this machine (class_grading) or on a queue; only the commands see every room.
VALUES = {"grader.tasks", "grader.settings", "grader.results", "grader.files"}
MAY_IMPORT = {
    "learner": {"boundary", "grader.probe_declarations"},
    "boundary": VALUES | {"grader.probe_declarations"},
    "checks": VALUES | {"boundary"},
    "intake": VALUES,
    "grading": VALUES | {"intake", "checks", "boundary"},
    "gradebook": VALUES | {"grader.lateness", "intake", "grading"},
    "class_grading": VALUES | {"grader.lateness", "intake", "grading", "gradebook", "outputs", "term"},
    "queue": VALUES | {"grader.lateness", "intake", "grading", "class_grading", "term"},
    "term": VALUES | {"intake"},
    "outputs": VALUES,
    "platforms": VALUES | {"boundary", "intake", "grading", "outputs"},
    "hub": VALUES | {"grader.lateness", "intake", "grading", "gradebook", "release"},
    "release": set(),
    "course_edit": {"release"},
    "pipeline": {"gradebook"},
    "similarity": VALUES | {"intake", "release", "outputs", "term"},
}


def folders() -> list[str]:
    return sorted(p.name for p in GRADER.iterdir() if p.is_dir() and (p / "__init__.py").exists())


@pytest.mark.parametrize("folder", sorted(set(folders()) - {"commands"}))
def test_each_folder_imports_only_the_rooms_below_it(folder):
    reached = {zone(n) if zone(n) != "top" else n
               for name in MODULES if zone(name) == folder for n in imports(MODULES[name])} - {folder}
    assert reached <= MAY_IMPORT[folder], f"{folder}/ imports {sorted(reached - MAY_IMPORT[folder])}"


# The modules at the top hold values every room shares; they reach almost nothing.
TOP_MAY_IMPORT = {
    "grader.tasks": {"release"},   # markdown_table, when asked, writes the docs' task table
    "grader.settings": set(),
    "grader.results": {"grader.tasks"},
    "grader.lateness": {"grader.results", "outputs"},   # outputs/words: counted words
    "grader.probe_declarations": set(),
    "grader.files": set(),
}


@pytest.mark.parametrize("name", sorted(TOP_MAY_IMPORT))
def test_the_value_modules_at_the_top_import_almost_nothing(name):
    reached = {zone(n) if zone(n) != "top" else n for n in imports(MODULES[name])} - {name}
    assert reached <= TOP_MAY_IMPORT[name], f"{name} imports {sorted(reached - TOP_MAY_IMPORT[name])}"


def test_the_zone_table_of_the_docs_has_a_row_per_folder():
    table = (ROOT / "docs" / "GRADER.md").read_text().split("## Folders: one trust zone each")[1].split("\n\n")[0]
    rows = {line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| `")}
    assert {f"`{name}/`" for name in folders()} - {"`commands/`"} <= rows


def test_no_import_cycles():
    graph = {name: imports(path, top_level_only=True) - {name} for name, path in MODULES.items()}
    # importing a.b.c runs a/__init__ and a/b/__init__ first
    for name in graph:
        parts = name.split(".")
        graph[name] |= {".".join(parts[:i]) for i in range(1, len(parts))} & set(MODULES)
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(nxt):] + [nxt]))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_the_package_map_names_every_folder():
    text = (GRADER / "__init__.py").read_text()
    assert folders() and all(f"{name}/" in text for name in folders()), folders()


def package_graph(package: pathlib.Path) -> dict[str, set[str]]:
    """The learner's package's modules and those each imports by a relative import,
    annotation-only ones (``if TYPE_CHECKING:``) included: a circle of those still ties
    the modules' meanings together."""
    names = {".".join(p.relative_to(package).with_suffix("").parts).removesuffix("__init__").rstrip("."): p
             for p in package.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        here = name.split(".") if path.name == "__init__.py" and name else name.split(".")[:-1]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = [p for p in here[:len(here) - node.level + 1] if p]
                module = ".".join(base + ([node.module] if node.module else []))
                subs = {f"{module}.{a.name}".lstrip(".") for a in node.names} & set(names)
                found |= subs or ({module} & set(names))
        graph[name] = found - {name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt, path + [nxt])):
                return cycle
        state[node] = 2
        return None

    for name in sorted(graph):
        if name not in state and (cycle := visit(name, [name])):
            return cycle
    return None


def test_the_learners_package_has_no_import_circle():
    graph = package_graph(ROOT / "solutions" / "minitorch")
    assert "nn.transformer" in graph and "language" in graph["nn.transformer"]   # the graph sees real imports
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])
    graph["language"].add("nn")   # the circle this test exists to catch: nn.GPT uses language.sample_next
    assert find_cycle(graph) is not None


COMMANDS = GRADER / "commands"


def test_each_command_is_a_plain_function_of_its_own_module():
    from grader.__main__ import command_line
    verbs = command_line()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for verb in verbs:
        path = COMMANDS / f"{verb.replace('-', '_')}.py"
        assert path.is_file(), f"the command {verb} has no module {path.relative_to(ROOT)}"
        main = next((n for n in ast.parse(path.read_text()).body if isinstance(n, ast.FunctionDef)
                     and n.name == "main"), None)
        assert main is not None, f"{path.name} has no main()"
        assert not main.args.args and not main.args.vararg and not main.args.kwarg, \
            f"{path.name}: main takes keyword arguments only"
        assert all(a.annotation is not None for a in main.args.kwonlyargs), f"{path.name}: every argument typed"
    assert {p.stem for p in COMMANDS.glob("*.py")} - {"__init__"} == {v.replace("-", "_") for v in verbs}


def test_only_the_command_line_parses_arguments():
    """argparse belongs to ``__main__`` (and ``settings.add_flags``, its flags); the
    platforms' scripts run inside their containers have command lines of their own."""
    parsing = {str(p.relative_to(GRADER)) for p in GRADER.rglob("*.py") if "argparse" in p.read_text()}
    assert parsing == {"__main__.py", "settings.py", "platforms/gradescope.py", "platforms/prairielearn.py"}
    for path in GRADER.rglob("*.py"):
        assert "args.command" not in path.read_text() or path.name == "__main__.py", path


def test_the_line_limit_is_written_down_with_its_reason():
    sections = (ROOT / "docs" / "MAINTAINER.md").read_text().split("\n## ")
    ours = [s for s in sections if s.startswith(f"The {LIMIT}-line cap, and why")]
    assert ours and len(ours[0].split()) > 60, "docs/MAINTAINER.md gives the limit its reason"


@pytest.mark.parametrize("folder", ["grader", "solutions/minitorch"])
def test_no_module_is_longer_than_the_limit(folder):
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / folder).rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > LIMIT
            }
    assert long == {}


def test_the_docs_task_table_is_the_manifests():
    from grader.tasks import markdown_table
    assert markdown_table() in (ROOT / "docs" / "CURRICULUM.md").read_text()


def test_the_docs_limits_are_the_settings():
    from grader.settings import markdown_table
    assert markdown_table() in (ROOT / "docs" / "INSTRUCTOR.md").read_text(), \
        "docs/INSTRUCTOR.md's table of limits differs from grader/settings.py: paste markdown_table()'s"


def test_every_setting_is_one_flag_and_one_traitlet():
    from grader.__main__ import command_line
    from grader.gradebook.preprocessor import GradeFromChecks
    from grader.settings import Settings
    fields = {f.name for f in Settings.fields()}
    traits = set(GradeFromChecks.class_traits(config=True)) - {"enabled", "recorded"}
    assert traits == fields
    for verb in ("check", "autograde"):
        args = command_line().parse_args([verb, *(["x"] if verb == "autograde" else []), "--call-seconds", "3",
                                          "--no-confine", "--restarts", "1"])
        settings = Settings.from_args(args)
        assert (settings.call_seconds, settings.confine, settings.restarts) == (3.0, False, 1)


def test_no_stage_of_the_checks_imports_another_stages_module():
    """Reference computations live in checks/reference.py, so dropping a stage's modules
    (checks/stageN*.py) leaves every other stage's checks importable."""
    for name in (n for n in MODULES if n.startswith("grader.checks.stage")):
        stage = name.split(".")[-1].split("_")[0]
        others = {n for n in imports(MODULES[name]) if n.startswith("grader.checks.stage")}
        assert {n.split(".")[-1].split("_")[0] for n in others} <= {stage}, name


# the fewest words each command accepts, to dispatch it without running it
MINIMAL = {"check": ["x"], "autograde": ["x"], "similarity": ["x"], "merge": ["out", "part.json"], "worker": ["--broker", "redis://h:1/0"],
           "hub-course": ["--out", "x"], "prairielearn": ["--image", "i"],
           "task": ["add", "9.9", "--title", "t", "--file", "f.py"], "stage": ["drop", "9"]}


def test_the_parser_and_the_dispatch_read_one_table(monkeypatch):
    """Every row of ``COMMANDS`` is a verb of the parser, and its call reaches its own
    module's ``main`` with keywords that ``main`` takes (each required one given)."""
    import importlib
    import inspect

    from grader import __main__ as cli
    verbs = cli.command_line()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert list(verbs) == [c.name for c in cli.COMMANDS]
    for command in cli.COMMANDS:
        real = importlib.import_module(f"grader.commands.{command.name.replace('-', '_')}").main
        seen: dict = {}
        monkeypatch.setattr(cli, "_main", lambda name, seen=seen: lambda **kw: seen.update(name=name, kw=kw) or 0)
        assert cli.main([command.name, *MINIMAL.get(command.name, [])]) == 0
        params = inspect.signature(real).parameters
        required = {n for n, p in params.items() if p.default is inspect.Parameter.empty}
        assert seen["name"] == command.name
        assert required <= set(seen["kw"]) <= set(params), (command.name, sorted(seen["kw"]), sorted(params))
