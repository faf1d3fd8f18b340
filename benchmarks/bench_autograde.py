"""Seconds per full six-stage submission when autograding, against bare kernel start-up.

    .venv/bin/python benchmarks/bench_autograde.py [--copies 12] [--jobs 2]
    .venv/bin/python benchmarks/bench_autograde.py --copies 100    # the class-of-100 goal

Autogrades N copies of the reference submission as a class (``python -m grader
autograde``, in one run), and times starting and stopping a bare Python kernel (the
ordinary way, ``python -m ipykernel_launcher``) as many times as grading one submission
starts kernels (6), in the same run. Grading starts its kernels from a fork server
(``grader/forkserver.py``), which is why it can cost less than six bare kernels.
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
    parser.add_argument("--copies", type=int, default=12)
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
        done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(submissions), "--jobs",
                               str(args.jobs), "--out", str(pathlib.Path(scratch) / "out")], cwd=ROOT, check=True,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        total = time.perf_counter() - start
    grading = float(re.search(r"Done in ([0-9.]+) s", done.stdout).group(1))  # after the course set-up
    kernel = bare_kernel_seconds(6)
    per_submission = grading / args.copies
    print(f"{args.copies} submissions, {args.jobs} job(s): {total:.1f} s in all, "
          f"{total - grading:.1f} s of it setting up the course")
    print(f"  wall time per submission:      {per_submission:6.2f} s (grading only)")
    print(f"  CPU-seconds per submission:    {per_submission * args.jobs:6.2f} s (wall time x jobs)")
    print(f"  bare kernel start + stop:      {kernel:6.2f} s; 6 of them: {6 * kernel:.2f} s")
    print(f"  ratio, per submission (CPU) / 6 bare kernels: {per_submission * args.jobs / (6 * kernel):.2f}")
    print(f"  a class of 100 would take about {(total - grading + 100 * per_submission) / 60:.1f} min")


if __name__ == "__main__":
    main()
