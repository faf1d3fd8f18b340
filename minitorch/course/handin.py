"""Make the zip you hand in: exactly what is graded, and nothing else.

    make handin                  (or: python minitorch/course/handin.py [OUT.zip or a folder])

It holds your package (``minitorch/``: every ``.py`` file and the data it ships with)
and your notebooks (``notebooks/*.ipynb``); never ``.venv/``, caches or checkpoints.
The zip is written first, whatever your package does: this file never imports your
package (run it by its path, as above), so a syntax error or a failing import cannot stop it.
Then every visible check runs against your package folder, whose files the zip holds (as
``make progress`` does), and each one that still fails is listed as it is found; when the
package does not import at all, that error is said once instead (``--no-checks`` skips all this).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import zipfile

COURSE = pathlib.Path(__file__).resolve().parents[2]  # the folder holding minitorch/ and notebooks/
# Runs in a child: imports the package and, when that fails, says where (the file and line in the package).
IMPORTS = r"""
import json, pathlib, sys, traceback
package = pathlib.Path(sys.argv[1])
try:
    import minitorch
except BaseException as error:
    where = ""
    if isinstance(error, SyntaxError) and error.filename:
        where = f"{error.filename}, line {error.lineno}"
    else:
        frames = [f for f in traceback.extract_tb(error.__traceback__) if pathlib.Path(f.filename).is_relative_to(package)]
        if frames:
            where = f"{frames[-1].filename}, line {frames[-1].lineno}" + (f": {frames[-1].line.strip()}" if frames[-1].line else "")
    print(json.dumps({"error": f"{type(error).__name__}: {getattr(error, 'msg', None) or error}", "where": where}))
"""


def _progress():
    """The progress module, loaded from its file beside this one (never through the package)."""
    if __package__:
        from . import progress
        return progress
    spec = importlib.util.spec_from_file_location("minitorch_course_progress", pathlib.Path(__file__).with_name("progress.py"))
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


def _environment(course: pathlib.Path) -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(course), *filter(None, [os.environ.get("PYTHONPATH")])]))


def import_error(course: pathlib.Path = COURSE) -> str:
    """Why the package in ``course`` does not import (its error and its line), or "" when it does."""
    try:
        done = subprocess.run([sys.executable, "-c", IMPORTS, str(course / "minitorch")], capture_output=True, text=True, cwd=course,
                              env=_environment(course), timeout=120)
    except subprocess.TimeoutExpired:
        return "importing it took more than 120 s (is there a loop at the top level of a module?)"
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 and not lines:
        return f"importing it ended its Python process (exit status {done.returncode})"
    if not lines:
        return ""
    try:
        found = json.loads(lines[-1])
    except json.JSONDecodeError:
        return ""  # the package printed something when imported: it imported
    where = found["where"].replace(str(course) + os.sep, "")
    return found["error"] + (f" ({where})" if where else "")


def unfinished(course: pathlib.Path = COURSE) -> list[dict]:
    """The progress rows of the visible checks that fail for the package in ``course``,
    each printed as soon as it is known."""
    os.environ["PYTHONPATH"] = _environment(course)["PYTHONPATH"]
    progress = _progress()
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
    names = build(out)
    print(f"wrote {out}: {sum(n.startswith('minitorch/') for n in names)} package files and "
          f"{sum(n.endswith('.ipynb') for n in names)} notebooks. Hand in this file.", flush=True)
    if args.no_checks:
        broken = import_error()
        if broken:
            print(f"Note: your package does not import: {broken}. Fix it before the deadline, or nothing is graded.")
        return
    if (COURSE / "notebooks").is_dir():
        check()


if __name__ == "__main__":
    main()
