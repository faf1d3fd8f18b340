"""How the course's feedback treats the mistakes in strangers.py.

    .venv/bin/python tests/feedback/measure.py [--only NAME] [--out FILE] [--skip-grader] [--skip-notebook]

For each mistake: copy the reference package (solutions/minitorch) to a scratch folder,
apply the patch, then collect
  (a) the notebook's visible check for the task, as `make progress` shows it: the
      project's own minitorch.course.progress runs the stage's notebook (its first cell,
      then the visible checks up to and including the task's) against the patched package;
  (b) the autograder's message for the task: the grader tests' harness
      (tests/grader/batch.py, grade_packages), grading only the mistake's stage, two
      hand-ins at a time, as `python -m grader check` grades each stage.
Each message gets an automatic verdict (see `verdict`); a person should read them all,
since a word list cannot tell a diagnosis from a coincidence.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "solutions" / "minitorch"
HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "grader"), str(HERE)]

from strangers import MISTAKES

from grader.tasks import STAGES

WORKERS = 2
VERDICTS = ["named", "located", "partly", "wrong values", "raw", "misleading", "not caught"]
EXCEPTION = re.compile(r"\b([A-Z]\w*(Error|Exception)|Traceback)\b")
GENERIC = ("wrong value", "wrong result", "does not match", "mismatch", "expected", "got:", "differ")
KNOWN = re.compile(r"known mistake:\s*([^)\n]+)", re.IGNORECASE)


def patches_of(mistake: dict) -> list[tuple[str, str, str]]:
    patch = mistake["patch"]
    return list(patch) if isinstance(patch, list) else [patch]


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def write_package(target: pathlib.Path, mistake: dict) -> pathlib.Path:
    """The reference at ``target`` (a folder named minitorch) with the mistake's patches."""
    shutil.copytree(REFERENCE, target, ignore=shutil.ignore_patterns("__pycache__"))
    for file, old, new in patches_of(mistake):
        text = (target / file).read_text()
        if text.count(old) != 1:
            raise SystemExit(f"{mistake['name']}: the patch does not apply once to {file}: {old[:60]!r}")
        (target / file).write_text(text.replace(old, new))
    return target


def where(mistake: dict) -> tuple[str, str]:
    """(file name, the function around the mistake's line, as Class.method or name)."""
    file = patches_of(mistake)[0][0]
    text = (REFERENCE / file).read_text()
    for f, old, new in patches_of(mistake):
        if f == file:
            text = text.replace(old, new)
    lines = text.splitlines()[:mistake["line"]]
    function = cls = ""
    for line in reversed(lines):
        if not function:
            found = re.match(r"(\s*)def (\w+)", line)
            if found:
                function, indent = found.group(2), len(found.group(1))
                if indent == 0:
                    break
                continue
        elif re.match(r"class (\w+)", line):
            cls = re.match(r"class (\w+)", line).group(1)
            break
    return pathlib.Path(file).name, f"{cls}.{function}" if cls else function


# ------------------------------------------------------------------ (a) the notebook's check

def notebook_for(task: str, folder: pathlib.Path) -> pathlib.Path:
    """The stage's notebook with the visible checks after the task's left out (the runner
    runs only the first cell and the checks; the ones before the task's stay, as in
    `make progress`)."""
    source = ROOT / "notebooks" / f"{STAGES[task.split('.')[0]]}.ipynb"
    notebook = json.loads(source.read_text())
    keep, past = [], False
    for cell in notebook["cells"]:
        grade_id = str(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", ""))
        if cell.get("cell_type") == "code" and grade_id.endswith("_visible"):
            if past:
                continue
            if grade_id[4:-8].replace("_", ".") == task:
                past = True
        keep.append(cell)
    notebook["cells"] = keep
    folder.mkdir(parents=True, exist_ok=True)
    (folder / source.name).write_text(json.dumps(notebook))
    return folder


RUN_PROGRESS = """
import json, pathlib, sys
from minitorch.course import progress
print("ROWS" + json.dumps(progress.run(pathlib.Path(sys.argv[1]))))
"""


def notebook_message(mistake: dict, package: pathlib.Path) -> dict:
    """The progress row of the mistake's task: status and why."""
    notebooks = notebook_for(mistake["task"], package.parent / "notebooks")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUN_PROGRESS, str(notebooks)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, PYTHONPATH=str(package.parent)))
    seconds = time.perf_counter() - start
    found = [line for line in done.stdout.splitlines() if line.startswith("ROWS")]
    if not found:
        return {"status": "progress crashed", "message": (done.stderr or done.stdout)[-1500:], "seconds": seconds}
    rows = {row["task"]: row for row in json.loads(found[-1][4:])}
    row = rows.get(mistake["task"], {"status": "no row", "why": ""})
    return {"status": row["status"], "message": row["why"], "seconds": seconds}


# ------------------------------------------------------------------ (b) the autograder

def grader_messages(packages: dict[str, pathlib.Path]) -> dict[str, dict]:
    from batch import grade_packages
    by_name = {m["name"]: m for m in MISTAKES}
    start = time.perf_counter()
    results = grade_packages(packages, lambda name: {by_name[name]["task"].split(".")[0]})
    seconds = time.perf_counter() - start
    found = {}
    for name, result in results.items():
        task = result.tasks[by_name[name]["task"]]
        found[name] = {"score": task.score, "max": task.max_score, "message": task.message,
                       "status": "full marks" if task.score >= task.max_score else "lost points"}
    return found | {"_seconds": seconds}


# ------------------------------------------------------------------ verdicts

def verdict(mistake: dict, message: str, caught: bool) -> str:
    """An automatic first guess; tests/feedback/verdicts_before.json holds the read ones."""
    if not caught:
        return "not caught"
    text = message.lower()
    words = [w.lower() for w in mistake["words"]]
    if any(w in text for w in words):
        return "named"
    if KNOWN.search(message):  # it names a known mistake, and none of this one's words
        return "misleading"
    file, function = where(mistake)
    lines = {int(n) for n in re.findall(r"(?:line |:)(\d+)\b", message)}
    if file in message and lines & {mistake["line"] - 1, mistake["line"], mistake["line"] + 1}:
        return "located"
    short = function.split(".")[-1]
    if EXCEPTION.search(message) and not any(g in text for g in GENERIC):
        return "raw"
    if function and (function in message or (short and not short.startswith("_") and f"{short}(" in message)
                     or (short.startswith("_") and short in message)):
        return "partly"
    return "wrong values"


def head(message: str, lines: int = 4, width: int = 160) -> str:
    out = []
    for line in message.strip().splitlines()[:lines]:
        out.append(line if len(line) <= width else line[:width] + " ...")
    return "\n      ".join(out)


def shares(path: pathlib.Path) -> int:
    """The counts and shares of each verdict in a file of hand verdicts (name -> {notebook, autograder})."""
    read = json.loads(path.read_text())
    for side in ("notebook", "autograder"):
        shown = [v[side] for v in read.values() if side in v]
        print(f"{side:10} ({len(shown)}): " + ", ".join(f"{v} {shown.count(v)} ({100 * shown.count(v) / len(shown):.0f}%)"
                                                   for v in VERDICTS if shown.count(v)))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", help="a mistake's name (or part of it); repeatable")
    parser.add_argument("--task", action="append", help="only this task's mistakes; repeatable")
    parser.add_argument("--out", default=str(HERE / "results.json"))
    parser.add_argument("--skip-grader", action="store_true")
    parser.add_argument("--skip-notebook", action="store_true")
    parser.add_argument("--shares", metavar="VERDICTS", help="print the shares of a hand-verdicts file and stop")
    args = parser.parse_args()
    if args.shares:
        return shares(pathlib.Path(args.shares))
    chosen = [m for m in MISTAKES
              if (not args.only or any(o == m["name"] or o in m["name"] for o in args.only))
              and (not args.task or m["task"] in args.task)]
    if not chosen:
        print("no mistake matches", file=sys.stderr)
        return 2
    start = time.perf_counter()
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="strangers-"))
    try:
        packages = {m["name"]: write_package(scratch / slug(m["name"]) / "minitorch", m) for m in chosen}
        notebook: dict[str, dict] = {}
        if not args.skip_notebook:
            with ThreadPoolExecutor(WORKERS) as pool:
                futures = {m["name"]: pool.submit(notebook_message, m, packages[m["name"]]) for m in chosen}
                notebook = {name: future.result() for name, future in futures.items()}
        notebook_seconds = time.perf_counter() - start
        grader: dict[str, dict] = {}
        if not args.skip_grader:
            grader = grader_messages(packages)
        grader_seconds = grader.pop("_seconds", 0.0)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    results = {}
    for m in chosen:
        entry = {"task": m["task"], "what": m["what"], "line": m["line"], "file": patches_of(m)[0][0]}
        if m["name"] in notebook:
            nb = notebook[m["name"]]
            entry["notebook"] = nb | {"verdict": verdict(m, nb["message"], nb["status"] != "done")}
        if m["name"] in grader:
            gr = grader[m["name"]]
            entry["autograder"] = gr | {"verdict": verdict(m, gr["message"], gr["score"] < gr["max"])}
        results[m["name"]] = entry
        print(f"\n== {m['name']} (Task {m['task']}; {entry['file']}:{m['line']}): {m['what']}")
        for side in ("notebook", "autograder"):
            if side in entry:
                e = entry[side]
                print(f"   {side:10} [{e['verdict']}] {e['status']}")
                if e["message"]:
                    print("      " + head(e["message"]))
    total = time.perf_counter() - start
    print("\n" + "-" * 80)
    for side in ("notebook", "autograder"):
        shown = [r[side]["verdict"] for r in results.values() if side in r]
        if shown:
            counts = ", ".join(f"{v} {shown.count(v)}" for v in VERDICTS if shown.count(v))
            print(f"{side:10} ({len(shown)}): {counts}")
    print(f"time: {total:.0f} s (notebook checks {notebook_seconds:.0f} s, grader {grader_seconds:.0f} s)")
    out = pathlib.Path(args.out)
    previous = json.loads(out.read_text()) if out.exists() and (args.only or args.task) else {}
    out.write_text(json.dumps(previous | results, indent=1, ensure_ascii=False) + "\n")
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
