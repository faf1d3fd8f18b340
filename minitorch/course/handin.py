"""Make the zip you hand in: exactly what is graded, and nothing else.

    make handin                  (or: python minitorch/course/handin.py [OUT.zip or a folder])

It holds your package (``minitorch/``: every ``.py`` file and the data it ships with)
and your notebooks (``notebooks/*.ipynb``); never ``.venv/``, caches or checkpoints.
The zip is written first, whatever your package does: this file never imports your
package (run it by its path, as above), so a syntax error or a failing import cannot stop it.
Then every visible check runs against your package folder, whose files the zip holds (as
``make progress`` does), and each one that still fails is listed as it is found; when the
package does not import at all, that error is said once instead (``--no-checks`` skips all this).
A previous ``handin.zip`` that differs is never overwritten: it is kept as ``handin-1.zip``
(then ``handin-2.zip``...), and the output says so.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import pathlib
import re
import types
import zipfile

COURSE = pathlib.Path(__file__).resolve().parents[2]  # the folder holding minitorch/ and notebooks/


def _sibling(name: str) -> types.ModuleType:
    """A module of this folder (``progress``, ``importable``), loaded from its file (never through the package)."""
    if __package__:
        return importlib.import_module(f"{__package__}.{name}")
    spec = importlib.util.spec_from_file_location(f"minitorch_course_{name}", pathlib.Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def kept_name(out: pathlib.Path) -> pathlib.Path:
    """Where the previous ``out`` is kept: handin-1.zip, then handin-2.zip... (one past the highest so far)."""
    numbered = re.compile(rf"{re.escape(out.stem)}-(\d+){re.escape(out.suffix)}", re.IGNORECASE)
    taken = [int(found.group(1)) for p in out.parent.iterdir() if (found := numbered.fullmatch(p.name))]
    return out.with_name(f"{out.stem}-{max(taken, default=0) + 1}{out.suffix}")


def write(out: pathlib.Path) -> tuple[list[str], str]:
    """Write the hand-in to ``out``, keeping a previous one that differs under the next
    number; the names written, and what became of the previous zip ("" when there was none)."""
    partial = out.with_name(f".{out.name}.partial")  # the previous zip stays whole until the new one is
    try:
        names = build(partial)
        if not out.is_file():
            note = ""
        elif out.read_bytes() == partial.read_bytes():
            note = f"It is the same as your previous {out.name}, which it replaces."
        else:
            kept = kept_name(out)
            out.replace(kept)
            note = f"Your previous {out.name} is kept as {kept.name} (the new one is {out.name})."
        partial.replace(out)
    finally:
        partial.unlink(missing_ok=True)
    return names, note


def import_error(course: pathlib.Path = COURSE) -> str:
    """Why the package in ``course`` does not import (its error and its line), or "" when it does."""
    return _sibling("importable").import_error(course)


def unfinished(course: pathlib.Path = COURSE) -> list[dict]:
    """The progress rows of the visible checks that fail for the package in ``course``,
    each printed as soon as it is known."""
    os.environ["PYTHONPATH"] = _sibling("importable").environment(course)["PYTHONPATH"]
    progress = _sibling("progress")
    found = []

    def note(row: dict) -> None:
        if row["status"] != "done":
            found.append(row)
            print(progress.lines(row), flush=True)
    progress.run(course / "notebooks", on_row=note)
    return found


def check(course: pathlib.Path = COURSE) -> None:
    """The visible checks, or the one reason none can run; never an exception."""
    broken = import_error(course)
    if broken:
        print(f"Your package does not import: {broken}.\nEvery visible check (and every hidden test) needs it, so none "
              "ran. The zip holds your work as it is; fix this first, then run make handin again.", flush=True)
        return
    print("Running every visible check on the package in the zip (about 10 s); each one that fails is listed:",
          flush=True)
    try:
        failing = unfinished(course)
    except Exception as error:  # noqa: BLE001 - the zip is written; say why the checks stopped
        print(f"The visible checks stopped: {type(error).__name__}: {error}. The zip is written all the same.")
        return
    if failing:
        print(f"{len(failing)} visible check{'s' if len(failing) > 1 else ''} still fail"
              f"{'' if len(failing) > 1 else 's'} (tasks {', '.join(r['task'] for r in failing)}). The zip holds your "
              "work as it is; after a fix, run make handin again.")
    else:
        print("Every visible check passes (the hidden tests decide the grade).")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python minitorch/course/handin.py",
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
    names, note = write(out)
    print(f"wrote {out}: {sum(n.startswith('minitorch/') for n in names)} package files and "
          f"{sum(n.endswith('.ipynb') for n in names)} notebooks. Hand in this file.{' ' + note if note else ''}",
          flush=True)
    if args.no_checks:
        broken = import_error()
        if broken:
            print(f"Note: your package does not import: {broken}. Fix it before the deadline, or nothing is graded.")
        return
    if (COURSE / "notebooks").is_dir():
        check()


if __name__ == "__main__":
    main()
