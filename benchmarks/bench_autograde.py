"""Seconds and CPU-seconds per seven-stage submission when autograding a class.

    .venv/bin/python benchmarks/bench_autograde.py [--copies 12] [--jobs 2]
    .venv/bin/python benchmarks/bench_autograde.py --copies 100    # a class of 100

Autogrades N copies of the reference submission as a class (``python -m grader
autograde``, in one run) and reports wall time and CPU time (of every process the run
started: the pool, the learners' confined processes, nbgrader), then what a class of
10,000 needs (docs/SCALE.md explains the arithmetic).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        submissions = pathlib.Path(scratch) / "submissions"
        for i in range(args.copies):
            shutil.copytree(ROOT / "solutions" / "minitorch", submissions / f"learner{i:03d}" / "minitorch",
                            ignore=shutil.ignore_patterns("__pycache__"))
        before, start = os.times(), time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(submissions), "--jobs",
                               str(args.jobs), "--out", str(pathlib.Path(scratch) / "out")], cwd=ROOT, check=True,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        total, after = time.perf_counter() - start, os.times()
    grading = float(re.search(r"Done in ([0-9.]+) s", done.stdout).group(1))  # after the course set-up
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    per_wall, per_cpu = grading / args.copies, cpu / args.copies
    print(f"{args.copies} submissions, {args.jobs} job(s): {total:.1f} s in all, {total - grading:.1f} s of it "
          "setting up the course")
    print(f"  wall time per submission:  {per_wall:6.2f} s (grading only)")
    print(f"  CPU-seconds per submission: {per_cpu:6.2f} s (all processes, set-up included)")
    print(f"  a class of 100 with {args.jobs} job(s): about {(total - grading + 100 * per_wall) / 60:.1f} min")
    print(f"  a class of 10,000 in one hour needs about {10_000 * per_cpu / 3600:.0f} busy cores")


if __name__ == "__main__":
    main()
