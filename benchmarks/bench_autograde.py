"""Seconds per full six-stage submission when autograding, against bare kernel start-up.

    .venv/bin/python benchmarks/bench_autograde.py [--copies 4] [--jobs 2]

Autogrades N copies of the reference submission as a class (``python -m grader
autograde``, in one run), and times starting and stopping a bare Python kernel the same
number of times as grading starts kernels (6 per submission), in the same run.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def bare_kernel_seconds(count: int) -> float:
    from jupyter_client.manager import start_new_kernel
    start = time.perf_counter()
    for _ in range(count):
        manager, client = start_new_kernel(kernel_name="python3")
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return (time.perf_counter() - start) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        submissions = pathlib.Path(scratch) / "submissions"
        for i in range(args.copies):
            folder = submissions / f"learner{i:03d}"
            shutil.copytree(ROOT / "solutions" / "minitorch", folder / "minitorch",
                            ignore=shutil.ignore_patterns("__pycache__"))
            shutil.copytree(ROOT / "notebooks", folder / "notebooks")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "grader", "autograde", str(submissions), "--jobs", str(args.jobs),
                        "--out", str(pathlib.Path(scratch) / "out")], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        total = time.perf_counter() - start
    kernel = bare_kernel_seconds(6)
    per_submission = total / args.copies
    print(f"{args.copies} submissions, {args.jobs} job(s): {total:.1f} s in all, including the course set-up")
    print(f"  wall time per submission:      {per_submission:6.2f} s")
    print(f"  CPU-seconds per submission:    {per_submission * args.jobs:6.2f} s (wall time x jobs)")
    print(f"  bare kernel start + stop:      {kernel:6.2f} s; 6 of them: {6 * kernel:.2f} s")
    print(f"  ratio, per submission / 6 bare kernels: {per_submission * args.jobs / (6 * kernel):.2f}")
    print(f"  a class of 100 would take about {100 * per_submission / 60:.1f} min")


if __name__ == "__main__":
    main()
