"""Build what a learner gets from the single source in ``solutions/``.

* ``minitorch/``: the reference package with every solution region replaced by a
  ``NotImplementedError`` naming its task (``regions.stub``); other files copied.
* ``notebooks/NN_name.ipynb``: each source notebook ``solutions/notebooks/NN_name.py``
  (jupytext percent format) converted, then passed through nbgrader's
  ``generate_assignment``, which removes the hidden tests, clears the outputs and locks
  the test cells. Each notebook is its own nbgrader assignment, named like the file.
"""

from __future__ import annotations

import filecmp
import json
import os
import pathlib
import shutil
import sys
import tempfile
import tomllib

from grader.release import copies, guard, task_table
from grader.release.regions import given_lines, stub

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE_PACKAGE = ROOT / "solutions" / "minitorch"
SOURCE_NOTEBOOKS = ROOT / "solutions" / "notebooks"
MANIFEST = ROOT / "grader" / "tasks.toml"


def source_notebooks() -> list[pathlib.Path]:
    return sorted(SOURCE_NOTEBOOKS.glob("[0-9][0-9]_*.py"))


def build_package(target: pathlib.Path) -> None:
    """Write the learner's package (stubs in place) to ``target``, replacing it."""
    if target.exists():
        shutil.rmtree(target)
    for path in sorted(SOURCE_PACKAGE.rglob("*")):
        if "__pycache__" in path.parts or path.is_dir():
            continue
        out = target / path.relative_to(SOURCE_PACKAGE)
        out.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py":
            out.write_text(stub(path.read_text(), str(path.relative_to(ROOT))))
        else:
            shutil.copyfile(path, out)
    (target / "course" / "regions.json").write_text(regions_json(), encoding="utf-8")


def regions_json() -> str:
    """Each task function's given lines (``regions.given_lines``), as JSON: the learner's
    package holds it beside ``course/mutants.py``, and the grader's learner process beside
    its copy (``grader/learner/regions.json``), so that a learner who typed over a "# Task"
    label still has their own lines found (issue 45)."""
    found: dict = {}
    for path in sorted(SOURCE_PACKAGE.rglob("*.py")):
        parts = path.relative_to(SOURCE_PACKAGE).with_suffix("").parts
        if "__pycache__" in path.parts or parts[0] == "course":
            continue
        found.update(given_lines(path.read_text(), ".".join(p for p in parts if p != "__init__")))
    return json.dumps(found, indent=1, sort_keys=True) + "\n"


def manifest() -> dict:
    """The task manifest as data (the release builder reads the file; it imports nothing of
    the grader)."""
    return tomllib.loads(MANIFEST.read_text(encoding="utf-8"))


def points_text(task: str, points: float) -> str:
    """What a notebook says about a task's points (the one place that words it)."""
    return (f"**Task {task}** is worth {points:g} point{'s' if points != 1 else ''}. The autograder checks your "
            "package part by part, outside this notebook: each op or case earns its share.")


def graded_text(task: str) -> str:
    """The one line of a task's graded cell (the one place that words it)."""
    return f"# Task {task}: your instructor's autograder writes your points here. Nothing to run or edit."


# What the kernel tells JupyterLab about its language when a notebook opens (ipykernel's
# ``language_info``). Lab writes it into the notebook's metadata, which marks a notebook
# without it as changed the moment it opens; one that holds the same opens clean. Only
# the version can differ on a learner's machine (the course takes Python 3.11 to 3.13):
# there the unsaved-changes mark shows until the notebook is first saved.
KERNEL_LANGUAGE = {"codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
                   "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
                   "pygments_lexer": "ipython3", "version": "3.11.7"}


def add_points_cells(notebook, tasks: dict, name: str) -> None:
    """After each task's visible check: a read-only markdown cell stating the task's points
    (from the manifest; its metadata carries them for ``minitorch.course.progress``), then the
    task's graded cell for nbgrader, locked, holding one comment that says what it is
    (nbgrader records the grader's verdict in its output; a learner has nothing to run
    there, and an empty or folded cell would look like scratch space)."""
    import nbformat
    cells = []
    for cell in notebook.cells:
        cells.append(cell)
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
            raise ValueError(f"{name}: graded cell {grade_id!r}: the release builder writes each task's points "
                             "after its visible check; a source notebook holds no graded cell")
        if grade_id.endswith("_visible"):
            task = grade_id.removeprefix("task").removesuffix("_visible").replace("_", ".")
            if task not in tasks:
                raise ValueError(f"{name}: visible check {grade_id!r} names no task of the manifest")
            points = sum(tasks[task]["parts"].values())
            points = int(points) if float(points).is_integer() else points
            graded_id = grade_id.removesuffix("_visible")
            text = nbformat.v4.new_markdown_cell(points_text(task, points))
            text.metadata["nbgrader"] = {"grade": False, "grade_id": f"{graded_id}_points", "locked": True,
                                         "schema_version": 3, "solution": False, "task": False}
            text.metadata["minitorch"] = {"task": task, "points": points}
            graded = nbformat.v4.new_code_cell(graded_text(task))
            graded.metadata["nbgrader"] = {"grade": True, "grade_id": graded_id, "locked": True, "points": points,
                                           "schema_version": 3, "solution": False, "task": False}
            cells += [text, graded]
    notebook.cells = cells


def read_source_notebook(path: pathlib.Path):
    """A source notebook as an nbformat notebook, without jupytext's own metadata, with a
    cell stating each task's points (from the manifest) after its visible check."""
    import jupytext
    notebook = jupytext.read(path)
    notebook.metadata.pop("jupytext", None)
    notebook.metadata["language_info"] = KERNEL_LANGUAGE
    add_points_cells(notebook, manifest()["task"], path.name)
    for number, cell in enumerate(notebook.cells):  # stable ids keep the release reproducible
        cell.id = f"{path.stem[:2]}-{number:03d}"
    return notebook


def nbgrader_config(root: pathlib.Path):
    from traitlets.config import Config
    config = Config()
    config.CourseDirectory.root = str(root)
    config.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}"
    config.GenerateAssignment.create_assignment = True
    return config


def with_environment_bin_on_path() -> None:
    """nbgrader runs the ``alembic`` command to create a gradebook: it must be on PATH."""
    bin_dir = str(pathlib.Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


def generate_course(course: pathlib.Path, api) -> None:
    """Put every source notebook in ``course/source/`` and let nbgrader generate its
    assignment (filling the gradebook and ``course/release/``)."""
    import nbformat

    with_environment_bin_on_path()
    for path in source_notebooks():
        folder = course / "source" / path.stem
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(read_source_notebook(path), folder / f"{path.stem}.ipynb")
    for path in source_notebooks():
        result = api.generate_assignment(path.stem)
        if not result["success"]:
            raise RuntimeError(f"nbgrader could not generate {path.stem}:\n{result.get('error')}\n{result.get('log')}")


def build_notebooks(target: pathlib.Path) -> None:
    """Write the release notebooks to ``target``, replacing them."""
    from nbgrader.apps import NbGraderAPI

    with tempfile.TemporaryDirectory() as scratch:
        course = pathlib.Path(scratch) / "course"
        generate_course(course, NbGraderAPI(config=nbgrader_config(course)))
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for path in source_notebooks():
            shutil.copyfile(course / "release" / path.stem / f"{path.stem}.ipynb", target / f"{path.stem}.ipynb")


def build(root: pathlib.Path = ROOT, force: bool = False) -> None:
    """Write ``minitorch/``, ``notebooks/``, the docs' task table (docs/CURRICULUM.md) and,
    in the repository, the grader's copies of shared modules (``copies.py``) under ``root``,
    and record what was written.
    Unless ``force``, first stop (``guard.WorkWouldBeLost``, naming the files) when a file
    there differs from what the last release wrote: it may be a learner's work."""
    if not force:
        guard.check(root)
    build_package(root / "minitorch")
    build_notebooks(root / "notebooks")
    task_table.write(root / "docs" / "CURRICULUM.md", manifest())
    if root == ROOT:
        copies.write(root)  # the grader's generated copies of shared course modules (copies.py)
        (root / "grader" / "learner" / "regions.json").write_text(regions_json(), encoding="utf-8")
    guard.record(root)


def main(*, force: bool = False) -> int:
    """``python -m grader release [--force]``: rebuild the repository's release, or say
    which files stop it (exit status 1)."""
    try:
        build(force=force)
    except guard.WorkWouldBeLost as refused:
        print(f"error: {refused}", file=sys.stderr)
        return 1
    print(f"rebuilt {ROOT / 'minitorch'} and {ROOT / 'notebooks'} from {len(source_notebooks())} notebook(s)")
    return 0


def differences(built: pathlib.Path, committed: pathlib.Path) -> list[str]:
    """Files that differ between two trees (ignoring caches and checkpoints)."""
    ignore = ["__pycache__", ".ipynb_checkpoints"]
    found: list[str] = []

    def walk(cmp: filecmp.dircmp, prefix: str) -> None:
        found.extend(f"{prefix}{name}: only in the fresh build" for name in cmp.left_only)
        found.extend(f"{prefix}{name}: only in the committed copy" for name in cmp.right_only)
        _, mismatch, errors = filecmp.cmpfiles(cmp.left, cmp.right, cmp.common_files, shallow=False)
        found.extend(f"{prefix}{name}: differs" for name in mismatch + errors)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(filecmp.dircmp(built, committed, ignore=ignore), f"{committed.name}/")
    return found
