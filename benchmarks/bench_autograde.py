"""Seconds and CPU-seconds per submission (every stage of the manifest): one hand-in (`check`), then a class.

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
import json
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
    # The hand-in graded as grade_learner does, with a time stamp after each phase: the
    # interpreter's start and the grader's imports, reading the hand-in, each stage (the first
    # also starts the learner's confined process), and writing the page.
    script = ("import time\nbegan = time.perf_counter()\n"
              "import sys, tempfile, pathlib, json\n"
              "from grader.grading.hand_ins import grade_stages\nfrom grader.intake.hand_in import read_hand_in\n"
              "from grader.outputs import feedback\nfrom grader.settings import Settings\n"
              "marks = [('imports', time.perf_counter())]\n"
              "scratch = pathlib.Path(tempfile.mkdtemp())\n"
              "hand_in = read_hand_in(pathlib.Path(sys.argv[1]), 'you', scratch)\n"
              "marks.append(('reading the hand-in', time.perf_counter()))\n"
              "def stage(name): marks.append((name, time.perf_counter()))\n"
              "r = grade_stages(hand_in, Settings(), stage)\n"
              "marks.append(('end', time.perf_counter()))\n"
              "feedback.write(r, scratch / 'feedback.html')\n"
              "marks.append(('the page', time.perf_counter()))\n"
              "print(json.dumps({'marks': [(n, t - began) for n, t in marks], 'points': r.total}))\n")
    walls, cpus, runs = [], [], []
    for _ in range(repeats):
        before, start = cpu_seconds(), time.perf_counter()
        out = json.loads(subprocess.run([sys.executable, "-c", script, str(ROOT / "solutions")], cwd=ROOT, check=True,
                                        capture_output=True, text=True).stdout)
        walls.append(time.perf_counter() - start)
        cpus.append(cpu_seconds() - before)
        runs.append(out["marks"])
        got, most = out["points"]
        assert got == most, f"the reference did not earn every point: {got} / {most}"
    from grader.boundary.runner import LearnerProcess
    from grader.settings import Settings
    before, start = cpu_seconds(), time.perf_counter()
    with LearnerProcess(ROOT / "solutions" / "minitorch", Settings()) as w:
        w.call("call", function="broadcast_shapes", args=[[2, 1], [3]])
    process_wall, process_cpu = time.perf_counter() - start, cpu_seconds() - before
    wall, cpu = min(walls), min(cpus)
    print(f"one hand-in (check on the reference, best of {repeats}): {wall:.2f} s wall ({wall / 2:.2f}x the 2 s goal), "
          f"{cpu:.2f} CPU-seconds ({cpu / 2:.2f}x the goal)")
    marks = runs[walls.index(wall)]
    print("  where the wall time of that run went:")
    print(f"    {'Python starting and exiting':34s} {wall - marks[-1][1]:5.2f} s")
    print(f"    {'importing the grader':34s} {marks[0][1]:5.2f} s")
    for (before_, at_before), (name, at) in zip(marks, marks[1:]):
        if before_.isdigit():  # the stage that began at the previous mark ended here
            print(f"    {'stage ' + before_ + ' (its checks)':34s} {at - at_before:5.2f} s")
        elif not name.isdigit():
            print(f"    {name:34s} {at - at_before:5.2f} s")
    from grader.tasks import STAGES
    print(f"    {'(the process start, in the first stage)':34s} {process_wall:5.2f} s, {process_cpu:.2f} CPU-s "
          f"(one confined learner's process serves all {len(STAGES)} stages)")
    print(f"benchmarks/README.md: A hand-in is graded in {wall:.1f} s of wall time and {cpu:.1f} CPU-seconds "
          f"({len(STAGES)} stages, the reference, this machine).")


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
