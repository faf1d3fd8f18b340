"""Incremental grading over a term: a class graded once, then graded again into the same
output folder after a few learners hand in again. The second run grades only the new
hand-ins and reuses the rest (``grader/term/graded.py``); the goal is 15% or less of the
first run's wall time.

    .venv/bin/python benchmarks/bench_incremental.py                  # a class of 60, 3 resubmit
    .venv/bin/python benchmarks/bench_incremental.py --learners 12    # quicker, on a shared machine

Each learner's hand-in is the reference package with a line of its own (so that no two
share verdicts); a resubmission changes that line. Prints both runs' wall times, how many
hand-ins each graded, and the ratio.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def hand_in(folder: pathlib.Path, learner: str, version: int) -> None:
    target = folder / learner / "minitorch"
    if not target.exists():
        shutil.copytree(ROOT / "solutions" / "minitorch", target, ignore=shutil.ignore_patterns("__pycache__"))
    init = target / "__init__.py"
    text = re.sub(r"\n# hand-in of .*\n$", "\n", init.read_text())
    init.write_text(text + f"\n# hand-in of {learner}, version {version}\n")


def autograde(submissions: pathlib.Path, out: pathlib.Path, jobs: int) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(submissions), "--out", str(out),
                           "--jobs", str(jobs)], cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"autograde failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("Grading ")), "")
    return seconds, line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--learners", type=int, default=60)
    parser.add_argument("--resubmit", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-incremental-") as scratch:
        submissions, out = pathlib.Path(scratch) / "in", pathlib.Path(scratch) / "out"
        learners = [f"learner{i:03d}" for i in range(args.learners)]
        for learner in learners:
            hand_in(submissions, learner, 1)
        first, said = autograde(submissions, out, args.jobs)
        print(f"first run: {args.learners} learners in {first:.1f} s ({said})")
        for learner in learners[:args.resubmit]:
            hand_in(submissions, learner, 2)
        again, said = autograde(submissions, out, args.jobs)
        print(f"second run, {args.resubmit} resubmitted: {again:.1f} s ({said})")
        ratio = again / first
        print(f"ratio: {100 * ratio:.1f}% of the first run (goal: 15% or less): {'met' if ratio <= 0.15 else 'NOT met'}")


if __name__ == "__main__":
    main()
