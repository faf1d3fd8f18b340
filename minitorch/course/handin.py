"""Make the zip you hand in: exactly what is graded, and nothing else.

    make handin                  (or: python -m minitorch.course.handin [OUT.zip or a folder])

It holds your package (``minitorch/``: every ``.py`` file and the data it ships with)
and your notebooks (``notebooks/*.ipynb``); never ``.venv/``, caches or checkpoints.
Once the zip is written, every visible check runs against your package folder, whose files the zip holds (as ``make
progress`` does), and each one that still fails is listed as it is found; the zip is
written either way (``--no-checks`` skips them).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import zipfile

from . import progress

COURSE = pathlib.Path(__file__).resolve().parents[2]  # the folder holding minitorch/ and notebooks/


def _skipped(path: pathlib.Path) -> bool:
    """Caches and hidden folders, such as JupyterLab's .ipynb_checkpoints/ (its copies of the
    files you saved, named like numerical-checkpoint.py): never handed in."""
    return any(part == "__pycache__" or part.startswith(".") for part in path.parts)


def build(target: pathlib.Path = COURSE / "handin.zip") -> list[str]:
    package, notebooks = COURSE / "minitorch", COURSE / "notebooks"
    files = sorted(p for p in package.rglob("*") if p.is_file() and not _skipped(p.relative_to(package))
                   and (p.suffix == ".py" or "data" in p.relative_to(package).parts))
    files += sorted(notebooks.glob("*.ipynb"))
    files = [p for p in files if p.resolve() != target.resolve()]  # never the zip itself
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            archive.write(path, path.relative_to(COURSE).as_posix())
    return [p.relative_to(COURSE).as_posix() for p in files]


def unfinished(course: pathlib.Path = COURSE) -> list[dict]:
    """The progress rows of the visible checks that fail for the package in ``course``,
    each printed as soon as it is known."""
    os.environ["PYTHONPATH"] = os.pathsep.join([str(course), *filter(None, [os.environ.get("PYTHONPATH")])])
    found = []

    def note(row: dict) -> None:
        if row["status"] != "done":
            found.append(row)
            print(progress.lines(row), flush=True)
    progress.run(course / "notebooks", on_row=note)
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m minitorch.course.handin",
        description="Zip your package (minitorch/) and your notebooks (notebooks/): the file to hand in.")
    parser.add_argument("out", nargs="?", default=str(COURSE / "handin.zip"),
                        help="the zip to write (default: handin.zip in the course folder); "
                             "given a folder, handin.zip inside it")
    parser.add_argument("--no-checks", action="store_true", help="only write the zip: skip the visible checks")
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out).expanduser().resolve()
    if out.is_dir():
        out = out / "handin.zip"
    if out.suffix.lower() != ".zip":
        parser.error(f"{out.name}: the hand-in is a zip file, so its name must end in .zip")
    if not out.parent.is_dir():
        parser.error(f"{out.parent}: no such folder to write the hand-in into")
    names = build(out)
    print(f"wrote {out}: {sum(n.startswith('minitorch/') for n in names)} package files and "
          f"{sum(n.endswith('.ipynb') for n in names)} notebooks. Hand in this file.", flush=True)
    if args.no_checks or not (COURSE / "notebooks").is_dir():
        return
    print("Running every visible check on the package in the zip (about 20 s); each one that fails is listed:",
          flush=True)
    failing = unfinished()
    if failing:
        print(f"{len(failing)} visible check{'s' if len(failing) > 1 else ''} still fail"
              f"{'' if len(failing) > 1 else 's'} (tasks {', '.join(r['task'] for r in failing)}). The zip holds your "
              "work as it is; after a fix, run make handin again.")
    else:
        print("Every visible check passes (the hidden tests decide the grade).")


if __name__ == "__main__":
    main()
