"""``task add`` and ``stage add``: the manifest entry, and a place for everything else a
task needs, each marked by a ``TODO Task X.Y`` (or ``TODO Stage N``) line the instructor
replaces: the notebook's section and visible check (with nbgrader's metadata), one check per
part in ``grader/checks/stageN.py``, a test of the reference in ``tests/reference/``, the
hint steps and a variant pair (``companions.py``). The solution itself (a region under a
``# Task X.Y: title`` line) is the instructor's to write."""

from __future__ import annotations

import pathlib
import re
import tomllib

from grader.course_edit import companions, manifest

ROOT = pathlib.Path(__file__).resolve().parents[2]
JUPYTEXT_HEADER = ("# ---\n# jupyter:\n#   kernelspec:\n#     display_name: Python 3 (ipykernel)\n"
                   "#     language: python\n#     name: python3\n# ---\n")


def _read(root: pathlib.Path) -> tuple[str, dict]:
    text = (root / "grader" / "tasks.toml").read_text(encoding="utf-8")
    return text, tomllib.loads(text)


def _append(path: pathlib.Path, text: str, changed: list[str], root: pathlib.Path) -> None:
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(old.rstrip("\n") + "\n" + text if old else text.lstrip("\n"), encoding="utf-8")
    changed.append(f"{'changed' if old else 'created'} {path.relative_to(root)}")


def _identifier(text: str) -> str:
    return re.sub(r"\W+", "_", text.lower()).strip("_") or "part"


def reference_tests(root: pathlib.Path, stage: str) -> pathlib.Path | None:
    found = sorted((root / "tests" / "reference").glob(f"test_stage{stage}_*.py"))
    return found[0] if found else None


def add_stage(stage: str, notebook: str, title: str, root: pathlib.Path = ROOT) -> list[str]:
    """Stage ``stage``: its manifest table, its source notebook, its checks' module and its
    reference tests' module. Its tasks come next, each with ``add_task``."""
    if not stage.isdigit() or not re.fullmatch(rf"{int(stage):02d}_\w+", notebook):
        raise manifest.EditError(f"stage {stage!r}, notebook {notebook!r}: the stage is a number and its notebook "
                                 f"is named NN_name with NN its number, for example 0{stage}_extras")
    text, _ = _read(root)
    new_manifest = manifest.add_stage(text, stage, notebook, title)   # refuses a stage declared already
    source = root / "solutions" / "notebooks" / f"{notebook}.py"
    checks = root / "grader" / "checks" / f"stage{stage}.py"
    tests = root / "tests" / "reference" / f"test_stage{stage}_{notebook[3:]}.py"
    for path in (source, checks, tests):   # before anything is written: a refusal changes nothing
        if path.exists() or (path == tests and reference_tests(root, stage)):
            raise manifest.EditError(f"{path.relative_to(root)} exists already: stage {stage} is not new")
    (root / "grader" / "tasks.toml").write_text(new_manifest, encoding="utf-8")
    changed = ["changed grader/tasks.toml"]
    _append(source, f"{JUPYTEXT_HEADER}\n# %% [markdown]\n# # {int(stage)} · {title[:1].upper()}{title[1:]}\n#\n"
            f"# TODO Stage {stage}: what this notebook teaches and what the learner builds\n\n# %%\n"
            "# Edits you save in minitorch/ reach this notebook at the next cell (a file that does not\n"
            "# load is named in one short line instead).\n# %load_ext minitorch.course.notebook\nimport matplotlib.pyplot as plt\n"
            "import numpy as np\n\n"
            "import minitorch as mt\n", changed, root)
    _append(checks, f'"""Stage {stage}: {title}."""\n\nfrom __future__ import annotations\n\nimport numpy as np\n\n'
            "from grader.checks import part\nfrom grader.checks.rules import check_rule\n", changed, root)
    _append(tests, f'"""Stage {stage}: {title}."""\n\nimport numpy as np\nimport pytest\n\nimport minitorch as mt\n',
            changed, root)
    for path, line in companions.stage_todo_lines(stage).items():
        _append(root / path, line, changed, root)
    doc = root / "docs" / "CURRICULUM.md"
    lines = doc.read_text(encoding="utf-8").splitlines(keepends=True) if doc.exists() else []
    rows = [i for i, line in enumerate(lines) if re.match(r"\| \d+ \| `", line)]
    if rows:
        lines.insert(rows[-1] + 1, f"| {stage} | `{notebook}`: {title} | its tasks: `python -m grader tasks` |\n")
        doc.write_text("".join(lines), encoding="utf-8")
        changed.append("changed docs/CURRICULUM.md (a row in its stage table)")
    return changed


def add_task(task: str, title: str, file: str, calls: list[str], parts: dict[str, float],
             root: pathlib.Path = ROOT, swaps: list[str] | None = None) -> list[str]:
    """Task ``task`` (``S.M``) in stage S: its manifest entry, its notebook section, one
    check per part, a test of the reference; and ``file``, the package file the learner
    fills in, made and imported by the package when it is new."""
    if not re.fullmatch(r"\d+\.\d+", task):
        raise manifest.EditError(f"task {task!r}: a task's id is STAGE.N, for example 3.4")
    if not parts:
        raise manifest.EditError(f"task {task}: give at least one part, as --part NAME=POINTS")
    if not re.fullmatch(r"(\w+/)*\w+\.py", file):
        raise manifest.EditError(f"--file {file!r}: a file of the package, relative to minitorch/, such as ops_unary.py")
    stage = task.split(".")[0]
    text, data = _read(root)
    unknown = [name for name in swaps or [] if name not in data.get("given", {})]
    if unknown:
        raise manifest.EditError(f"task {task}: --swaps {', '.join(unknown)}: no given helper in the manifest's [given] "
                                 f"(it has {', '.join(data.get('given', {}))})")
    (root / "grader" / "tasks.toml").write_text(manifest.add_task(text, task, title, calls, parts, swaps),
                                                encoding="utf-8")
    changed = ["changed grader/tasks.toml"]
    package = root / "solutions" / "minitorch"
    if not (package / file).exists():
        _append(package / file, f'"""Task {task}: {title}."""\n', changed, root)
        if "/" not in file:
            _append(package / "__init__.py", f"from . import {file[:-3]}  # noqa: E402, F401  (Task {task})\n",
                    changed, root)
    tag = task.replace(".", "_")
    notebook = data["stage"][stage]["notebook"]
    _append(root / "solutions" / "notebooks" / f"{notebook}.py",
            f"\n\n# %% [markdown]\n# ## Your task {task}: {title} in `minitorch/{file}`\n#\n"
            f"# TODO Task {task}: what to write, and why it works\n#\n"
            f'# Stuck? `mt.hint("{task}")` gives a hint, one step per call (the idea, where to look, then nearly the line).\n\n'
            f'# %% nbgrader={{"grade": false, "grade_id": "task{tag}_visible", "locked": true, "schema_version": 3, '
            f'"solution": false, "task": false}} tags=["raises-exception"]\n# Check Task {task}\n'
            f'raise NotImplementedError("TODO Task {task}: the visible check")\nprint("Task {task} passes the visible checks")\n',
            changed, root)
    checks = "".join(f'\n\n@part("{task}", {name!r})\ndef task{tag}_{_identifier(name)}(w, rng):\n'
                     f'    raise NotImplementedError("TODO Task {task}, part {name!r}: send inputs to the learner\'s code, '
                     'compare with NumPy, raise CheckFailure")\n' for name in parts)
    _append(root / "grader" / "checks" / f"stage{stage}.py", checks, changed, root)
    tests = reference_tests(root, stage) or root / "tests" / "reference" / f"test_stage{stage}_{notebook[3:]}.py"
    _append(tests, f"\n\n@pytest.mark.task{tag}\ndef test_task{tag}_{_identifier(title)}():\n"
            f'    raise NotImplementedError("TODO Task {task}: test the reference against NumPy")\n', changed, root)
    for path, line in companions.todo_lines(task, title).items():
        _append(root / path, line, changed, root)
    changed.append(f"to write: the solution in solutions/minitorch/{file}, between ### BEGIN SOLUTION and "
                   f"### END SOLUTION under a '# Task {task}: {title}' line; then every 'TODO Task {task}' line above")
    return changed
