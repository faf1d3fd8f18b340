"""``python -m grader handin``: a hand-in zip as ``make handin`` writes it, made by the grader.

    python -m grader handin --reference --out handin.zip   the reference package (solutions/)
                                                            with the learners' notebooks: full
                                                            marks, to try a platform with
    python -m grader handin [FOLDER] --out handin.zip      a learner's folder (default: this one)

The zip holds what ``make handin`` puts in it, laid out the same way: ``minitorch/`` (its
``.py`` files and its data) and ``notebooks/*.ipynb``; never caches, hidden folders or
``.venv/``. ``hand_in_here`` is also what ``check`` grades when given no path.
"""

from __future__ import annotations

import pathlib
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]   # the course's folder (solutions/, notebooks/)


class NoHandIn(ValueError):
    """The folder holds no ``minitorch/`` package; the message says how to name one."""


def hand_in_here(folder: pathlib.Path, command: str = "check") -> pathlib.Path:
    """``folder`` when it holds a ``minitorch/`` folder, else ``NoHandIn`` saying so."""
    if (folder / "minitorch").is_dir():
        return folder
    if command == "handin":
        raise NoHandIn(f"{folder} holds no minitorch/ folder to zip. Name a learner's folder that holds one: "
                       "`python -m grader handin FOLDER`, or zip the course's reference: "
                       "`python -m grader handin --reference`")
    raise NoHandIn(f"{folder} holds no minitorch/ folder to grade. Name what to grade: `python -m grader check "
                   "PATH`, where PATH is a folder holding minitorch/ or a .zip such as the handin.zip of `make "
                   f"handin`; the course's reference: `python -m grader check {ROOT / 'solutions'}`")


def path_to_check(path: str | None) -> pathlib.Path:
    """What ``check`` grades: ``path``, or this folder when it holds ``minitorch/``; else
    the error saying how to name one, and exit status 2."""
    if path:
        return pathlib.Path(path).resolve()
    try:
        return hand_in_here(pathlib.Path.cwd())
    except NoHandIn as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def arguments(p) -> None:  # p: the parser of `handin`, made by the command line
    """The ``handin`` command's arguments (``python -m grader handin --help``)."""
    p.add_argument("folder", nargs="?", type=pathlib.Path, help="a folder holding minitorch/ (default: this folder)")
    p.add_argument("--reference", action="store_true", help="the reference package, with full marks")
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("handin.zip"))


def _skipped(path: pathlib.Path) -> bool:
    return any(part == "__pycache__" or part.startswith(".") for part in path.parts)


def files(package: pathlib.Path, notebooks: pathlib.Path) -> list[tuple[pathlib.Path, str]]:
    """(file, name in the zip): the package's .py files and data, then the notebooks."""
    chosen = [(p, f"minitorch/{p.relative_to(package).as_posix()}") for p in sorted(package.rglob("*"))
              if p.is_file() and not _skipped(p.relative_to(package))
              and (p.suffix == ".py" or "data" in p.relative_to(package).parts)]
    return chosen + [(p, f"notebooks/{p.name}") for p in sorted(notebooks.glob("*.ipynb"))]


def build(package: pathlib.Path, notebooks: pathlib.Path, out: pathlib.Path) -> list[str]:
    """Write the zip ``out``; returns the names it holds."""
    chosen = [(path, name) for path, name in files(package, notebooks) if path.resolve() != out.resolve()]
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, name in chosen:
            archive.write(path, name)
    return [name for _, name in chosen]


def main(*, folder: pathlib.Path | None = None, reference: bool = False,
         out: pathlib.Path = pathlib.Path("handin.zip")) -> int:
    if reference and folder is not None:
        print("error: give either --reference or a FOLDER, not both", file=sys.stderr)
        return 2
    if out.suffix.lower() != ".zip":
        print(f"error: {out.name}: a hand-in is a zip file, so its name must end in .zip", file=sys.stderr)
        return 2
    if reference:
        package, notebooks = ROOT / "solutions" / "minitorch", ROOT / "notebooks"
    else:
        try:
            where = hand_in_here((folder or pathlib.Path.cwd()).resolve(), "handin")
        except NoHandIn as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        package, notebooks = where / "minitorch", where / "notebooks"
    names = build(package, notebooks, out.resolve())
    what = "the reference package (full marks)" if reference else f"{package}"
    print(f"wrote {out.resolve()}: {what}, {sum(n.startswith('minitorch/') for n in names)} package files and "
          f"{sum(n.startswith('notebooks/') for n in names)} notebooks")
    return 0
