"""Find a learner's work in a folder or a .zip: the ``minitorch/`` package and the stage
notebooks, and say clearly what is missing or broken before anything runs."""

from __future__ import annotations

import json
import pathlib
import py_compile
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field

from .tasks import STAGES, TASKS, cell_points

MAX_UNPACKED_BYTES = 200 * 2**20


@dataclass
class Submission:
    learner: str
    root: pathlib.Path                               # where the files were found
    package: pathlib.Path | None = None              # the minitorch/ folder nearest the top
    notebooks: dict[str, pathlib.Path | None] = field(default_factory=dict)  # stage -> notebook
    problems: list[str] = field(default_factory=list)  # plain words, for the learner
    broken_package: str | None = None                # why no stage can run (no package, bad zip)
    stage_packages: dict[str, pathlib.Path] = field(default_factory=dict)  # stage -> the package beside it
    package_errors: dict[pathlib.Path, str] = field(default_factory=dict)  # package -> its syntax error

    def package_for(self, stage: str) -> pathlib.Path | None:
        return self.stage_packages.get(stage, self.package)

    def broken_for(self, stage: str) -> str | None:
        """Why ``stage`` cannot run at all, or None."""
        package = self.package_for(stage)
        return self.broken_package or (self.package_errors.get(package) if package else None)


def unpack(zip_path: pathlib.Path, into: pathlib.Path) -> pathlib.Path:
    """Extract safely: no absolute paths, no '..', no more than MAX_UNPACKED_BYTES."""
    try:
        archive = zipfile.ZipFile(zip_path)
    except zipfile.BadZipFile:
        raise ValueError(f"{zip_path.name} is not a valid .zip file") from None
    with archive:
        total = 0
        for info in archive.infolist():
            target = (into / info.filename).resolve()
            if not target.is_relative_to(into.resolve()):
                raise ValueError(f"{zip_path.name} contains an unsafe path: {info.filename}")
            total += info.file_size
            if total > MAX_UNPACKED_BYTES:
                raise ValueError(f"{zip_path.name} unpacks to more than {MAX_UNPACKED_BYTES >> 20} MiB")
        archive.extractall(into)
    return into


def locate(path: pathlib.Path, learner: str, scratch: pathlib.Path | None = None) -> Submission:
    """Look for the package and the notebooks anywhere below ``path`` (a folder or .zip)."""
    path = pathlib.Path(path)
    if path.suffix == ".zip":
        scratch = pathlib.Path(scratch or tempfile.mkdtemp(prefix="minitorch-"))
        try:
            path = unpack(path, scratch / learner)
        except ValueError as error:
            return Submission(learner, path, problems=[str(error)], broken_package=str(error))
    found = Submission(learner, path)
    packages = sorted((p.parent for p in path.rglob("minitorch/__init__.py")
                       if "solutions" not in p.parts and ".venv" not in p.parts),
                      key=lambda p: (len(p.parts), str(p)))
    if not packages:
        found.problems.append("no minitorch/ package found (a folder minitorch/ with __init__.py)")
        found.broken_package = "the submission has no minitorch/ package"
    else:
        found.package = packages[0]
    notebooks = [p for p in sorted(path.rglob("*.ipynb"), key=lambda p: (len(p.parts), str(p)))
                 if ".ipynb_checkpoints" not in p.parts]
    for stage, name in STAGES.items():
        candidates = [c for c in notebooks if c.name == f"{name}.ipynb"]
        notebook = candidates[0] if candidates else renamed(notebooks, stage)
        if notebook is None:
            found.problems.append(f"notebook {name}.ipynb is missing: stage {stage} was graded with a "
                                  "fresh copy of it (your package is what earns the points)")
            found.notebooks[stage] = None
            continue
        if notebook.name != f"{name}.ipynb":
            found.problems.append(f"notebook {name}.ipynb is missing, but {notebook.name} holds its graded "
                                  f"cells and was graded for stage {stage} (keep the original name)")
        if packages:
            found.stage_packages[stage] = nearest_package(notebook, path) or found.package
        if not valid_notebook(notebook):
            found.problems.append(f"notebook {name}.ipynb is not a valid notebook (corrupt JSON): stage "
                                  f"{stage} was graded with a fresh copy of it")
            notebook = None
        elif missing_graded_cells(notebook, stage):
            found.problems.append(f"notebook {name}.ipynb lacks graded cells "
                                  f"({', '.join(missing_graded_cells(notebook, stage))}): stage {stage} was "
                                  "graded with a fresh copy of it")
            notebook = None
        found.notebooks[stage] = notebook
    for package in dict.fromkeys(found.package_for(stage) for stage in STAGES):
        error = syntax_errors(package) if package else None
        if error:
            found.package_errors[package] = error
            stages = [s for s in STAGES if found.package_for(s) == package]
            found.problems.append(error if len(stages) == len(STAGES) else
                                  f"{error} (stage{'s' if len(stages) > 1 else ''} {', '.join(stages)})")
    return found


def nearest_package(notebook: pathlib.Path, top: pathlib.Path) -> pathlib.Path | None:
    """The ``minitorch/`` package in the notebook's folder or the closest folder above it,
    up to ``top``: in an nbgrader course's ``submitted/`` each stage has its own."""
    for folder in [notebook.parent, *notebook.parent.parents]:
        if (folder / "minitorch" / "__init__.py").is_file():
            return folder / "minitorch"
        if folder == top or top not in folder.parents:
            return None
    return None


def renamed(notebooks: list[pathlib.Path], stage: str) -> pathlib.Path | None:
    """A notebook under another name (``Copy of 03_reductions.ipynb``) that holds every
    graded cell of ``stage``."""
    wanted = {g for t in TASKS if t.split(".")[0] == stage for g in cell_points(t)}
    for path in notebooks:
        if path.stem not in STAGES.values() and valid_notebook(path):
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            ids = {c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in cells if isinstance(c, dict)}
            if wanted <= ids:
                return path
    return None


def valid_notebook(path: pathlib.Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(data, dict) and isinstance(data.get("cells"), list)


def missing_graded_cells(path: pathlib.Path, stage: str) -> list[str]:
    """The graded cells of ``stage`` that a notebook no longer has (a learner deleted them).
    nbgrader could put them back, but not in their place, where they would fail."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    present = {c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in cells if isinstance(c, dict)}
    return [g for t in TASKS if t.split(".")[0] == stage for g in cell_points(t) if g not in present]


def syntax_errors(package: pathlib.Path) -> str | None:
    """The first file of the package that does not compile, in words; None if all do."""
    for source in sorted(package.rglob("*.py")):
        try:
            py_compile.compile(str(source), cfile=str(pathlib.Path(tempfile.gettempdir()) / "minitorch-compile.pyc"),
                               doraise=True)
        except py_compile.PyCompileError as error:
            detail = error.exc_value
            where = f"line {getattr(detail, 'lineno', '?')}" if detail else ""
            return (f"minitorch/{source.relative_to(package)} has a syntax error ({where}: "
                    f"{getattr(detail, 'msg', error.msg)}): the package cannot be imported, so no check can run")
    return None


def copy_package(package: pathlib.Path, target: pathlib.Path) -> None:
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints"))
