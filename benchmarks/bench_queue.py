"""A class graded through the queue and locally, side by side in one run.

    .venv/bin/python benchmarks/bench_queue.py [--copies 100] [--workers 2]

Makes a class of N copies of the reference, grades it locally (``autograde --jobs W``),
then through a queue on this machine: Debian's ``redis-server`` as the broker (on a free
port, started and stopped here) and W ``python -m grader worker`` processes, one hand-in
at a time each. Prints both times, the ratio, and checks that both wrote the same
grades.csv. On one machine the queue can only cost time (the instructor's side records
each result in the gradebook while the workers grade): what it buys is more machines.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def autograde(submissions: pathlib.Path, out: pathlib.Path, *extra: str) -> tuple[float, float]:
    """(seconds in all, seconds grading after the course set-up)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(submissions), "--out", str(out), *extra],
                          cwd=ROOT, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return time.perf_counter() - start, float(re.search(r"Done in ([0-9.]+) s", done.stdout).group(1))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed (apt-get install redis-server)")
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        for i in range(args.copies):
            shutil.copytree(ROOT / "solutions" / "minitorch", scratch / "class" / f"learner{i:03d}" / "minitorch",
                            ignore=shutil.ignore_patterns("__pycache__"))
        local = autograde(scratch / "class", scratch / "local", "--jobs", str(args.workers))
        port = free_port()
        broker = f"redis://127.0.0.1:{port}/0"
        redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                  "--dir", str(scratch)], stdout=subprocess.DEVNULL)
        workers = [subprocess.Popen([sys.executable, "-m", "grader", "worker", "--broker", broker, "--concurrency", "1",
                                     "--name", f"w{n}@bench"], cwd=ROOT, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True)
                   for n in range(args.workers)]
        try:
            time.sleep(5)  # the workers connect
            queued = autograde(scratch / "class", scratch / "queued", "--broker", broker)
        finally:
            for worker in workers:
                os.killpg(worker.pid, signal.SIGTERM)
            for worker in workers:
                worker.wait(60)
            redis.terminate()
            redis.wait()
        same = (scratch / "local" / "grades.csv").read_bytes() == (scratch / "queued" / "grades.csv").read_bytes()
    print(f"a class of {args.copies}, {args.workers} processes grading, on this machine:")
    print(f"  local --jobs {args.workers}:         {local[0]:7.1f} s in all, {local[1]:7.1f} s grading "
          f"({local[1] / args.copies:.2f} s per hand-in)")
    print(f"  queue, {args.workers} workers:      {queued[0]:7.1f} s in all, {queued[1]:7.1f} s grading "
          f"({queued[1] / args.copies:.2f} s per hand-in)")
    print(f"  queue / local (grading): {queued[1] / local[1]:.2f}x; same grades.csv: {same}")


if __name__ == "__main__":
    main()
