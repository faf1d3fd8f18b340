"""Seconds and CPU-seconds per seven-stage submission: one hand-in (`check`), then a class.

    .venv/bin/python benchmarks/bench_autograde.py [--copies 12] [--jobs 2]
    .venv/bin/python benchmarks/bench_autograde.py --copies 0      # one hand-in only
    .venv/bin/python benchmarks/bench_autograde.py --copies 100    # a class of 100

First ``check`` on the reference, as a learner runs it (the goal: at most 2 s of wall time
and 2 CPU-seconds on an idle machine), with where the time goes: starting the confined
learner's process (once per hand-in), the checks, reading the hand-in and writing the
page. Then, unless ``--copies 0``:
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
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def cpu_seconds() -> float:
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def one_hand_in(repeats: int = 3) -> None:
    """``check`` on the reference in a fresh process, and the cost of one learner's process."""
    script = ("import sys, time, resource, tempfile, pathlib\n"
              "start = time.perf_counter()\n"
              "from grader.pipeline.grading import grade_learner\nfrom grader.outputs import feedback\n"
              "from grader.settings import Settings\n"
              "r = grade_learner(pathlib.Path(sys.argv[1]), 'you', Settings())\n"
              "feedback.write(r, pathlib.Path(tempfile.mkdtemp()) / 'feedback.html')\n"
              "print(time.perf_counter() - start, r.total[0], r.total[1])\n")
    walls, cpus = [], []
    for _ in range(repeats):
        before = cpu_seconds()
        out = subprocess.run([sys.executable, "-c", script, str(ROOT / "solutions")], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.split()
        walls.append(float(out[0]))
        cpus.append(cpu_seconds() - before)
        assert out[1] == out[2], f"the reference did not earn every point: {out[1]} / {out[2]}"
    from grader.boundary.runner import LearnerProcess
    from grader.settings import Settings
    before, start = cpu_seconds(), time.perf_counter()
    with LearnerProcess(ROOT / "solutions" / "minitorch", Settings()) as w:
        w.call("call", function="broadcast_shapes", args=[[2, 1], [3]])
    process_wall, process_cpu = time.perf_counter() - start, cpu_seconds() - before
    wall, cpu = min(walls), min(cpus)
    print(f"one hand-in (check on the reference, best of {repeats}): {wall:.2f} s wall ({wall / 2:.2f}x the 2 s goal), "
          f"{cpu:.2f} CPU-seconds ({cpu / 2:.2f}x the goal)")
    print(f"  of which starting the confined learner's process (once per hand-in): {process_wall:.2f} s, "
          f"{process_cpu:.2f} CPU-s; the checks, the intake, the page and Python's start: the rest")
    print(f"README: A hand-in is graded in {wall:.1f} s of wall time and {cpu:.1f} CPU-seconds (7 stages, the reference, "
          "this machine).")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    one_hand_in()
    if args.copies <= 0:
        return
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
