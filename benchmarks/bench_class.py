"""A class of N near the machine's limit, phase by phase, against one hand-in's ``check``
measured in the same run: graded locally, on a queue with two workers, and again after a
few learners hand in again.

    .venv/bin/python benchmarks/bench_class.py                 # 300 learners: minutes of both cores
    .venv/bin/python benchmarks/bench_class.py --learners 30   # quicker, while developing
    .venv/bin/python benchmarks/bench_class.py --no-queue      # locally only

Each learner hands in the reference package, or one of a few variants that lose points
(a went wrong backward rule, a task left as released), with a line of their own, so that no
two hand-ins share content (and so verdicts), and its time in ``timestamp.txt``. The goals (docs/SCALE.md):

* the class graded with ``--jobs 2`` takes at most 0.6 x N x one ``check`` (two cores make
  0.5 the floor: each hand-in costs about one ``check`` of one core);
* the same on the queue (``redis-server`` on a free port and two ``python -m grader
  worker``, as ``bench_queue.py`` starts them);
* a run after ``--resubmit`` learners hand in again takes at most 5% of the first. It is timed
  ``--again`` times (3), other learners handing in each time, and the median is judged: a run
  of ten seconds on a shared machine varies by a tenth from one to the next.

``check`` is timed three times, before, between and after the class runs, and its mean is
the unit. Each ``autograde`` prints where its time went (``Where the time went: ...``); the
benchmark prints those phases side by side.
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
BUG = ("        return grad * out * (1 - out)", "        return grad * out")   # sigmoid's backward, went wrong


def hand_in(folder: pathlib.Path, learner: str, number: int, version: int = 1) -> None:
    """The reference, or every fifth learner a variant, with the learner's own line."""
    target = folder / learner / "minitorch"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(ROOT / "solutions" / "minitorch", target, ignore=shutil.ignore_patterns("__pycache__"))
    if number % 5 == 1:
        rule = target / "ops_unary.py"
        rule.write_text(rule.read_text().replace(*BUG))
    elif number % 5 == 3:   # stage 1's engine left as released
        shutil.copyfile(ROOT / "minitorch" / "autodiff.py", target / "autodiff.py")
    init = target / "__init__.py"
    init.write_text(init.read_text() + f"\n# hand-in of {learner}, version {version}\n")
    # its time, as nbgrader's submitted folders state it (file times would all be the copy's)
    (folder / learner / "timestamp.txt").write_text(f"2026-11-{18 + version} {number // 60:02d}:{number % 60:02d}:00 UTC")


def check(one: pathlib.Path, out: pathlib.Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "grader", "check", str(one), "--out", str(out)], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def autograde(submissions: pathlib.Path, out: pathlib.Path, *extra: str) -> tuple[float, dict[str, float], str]:
    """(wall seconds, each phase's seconds, the `Grading ...` and `Similarity: ...` lines).
    What an earlier run wrote is on disk first (not counted): a run is timed alone, not
    beside the kernel writing out the hundreds of megabytes of the run before it."""
    os.sync()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(submissions), "--out", str(out),
                           "--jobs", "2", *extra], cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"autograde failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("Where the time went: "))
    phases = {name: float(s) for name, s in re.findall(r"([a-z -]+?) ([0-9.]+) s", line.split(": ", 1)[1])}
    said = next(ln for ln in done.stdout.splitlines() if ln.startswith("Grading "))
    similar = next((ln for ln in done.stdout.splitlines() if ln.startswith("Similarity: ")), "")
    said += f"\n    {similar.split(';')[0]}" if similar else ""   # how many hand-ins it read, and kept
    return seconds, {k.strip(" ,"): v for k, v in phases.items()}, said


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def on_queue(submissions: pathlib.Path, out: pathlib.Path, scratch: pathlib.Path) -> tuple[float, dict, str]:
    port = free_port()
    broker = f"redis://127.0.0.1:{port}/0"
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", str(scratch)], stdout=subprocess.DEVNULL)
    workers = [subprocess.Popen([sys.executable, "-m", "grader", "worker", "--broker", broker, "--concurrency", "1",
                                 "--name", f"w{n}@bench"], cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True) for n in range(2)]
    try:
        time.sleep(5)   # the workers connect (not counted)
        return autograde(submissions, out, "--broker", broker)
    finally:
        for worker in workers:
            os.killpg(worker.pid, signal.SIGTERM)
        for worker in workers:
            worker.wait(60)
        redis.terminate()
        redis.wait()


def row(name: str, seconds: float, phases: dict[str, float], n: int, unit: float) -> str:
    shown = ", ".join(f"{k} {v:.1f}" for k, v in phases.items())
    return (f"  {name:<22} {seconds:7.1f} s = {seconds / (n * unit):.2f} x N x check "
            f"({seconds / n:.2f} s a hand-in); phases (s): {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--learners", type=int, default=300)
    parser.add_argument("--resubmit", type=int, default=10)
    parser.add_argument("--again", type=int, default=3, help="re-runs after --resubmit learners hand in again")
    parser.add_argument("--no-queue", action="store_true")
    args = parser.parse_args()
    if not args.no_queue and shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed (apt-get install redis-server), or give --no-queue")
    n = args.learners
    with tempfile.TemporaryDirectory(prefix="bench-class-") as scratch:
        scratch = pathlib.Path(scratch)
        submissions = scratch / "class"
        learners = [f"learner{i:03d}" for i in range(n)]
        for i, learner in enumerate(learners):
            hand_in(submissions, learner, i)
        checks = [check(submissions / learners[0], scratch / "check")]
        local = autograde(submissions, scratch / "local")
        checks.append(check(submissions / learners[0], scratch / "check"))
        queued = None if args.no_queue else on_queue(submissions, scratch / "queued", scratch)
        same = queued is None or (scratch / "local" / "grades.csv").read_bytes() == \
            (scratch / "queued" / "grades.csv").read_bytes()
        agains = []
        for round_ in range(args.again):   # each time, the next learners hand in again
            for i in range(round_ * args.resubmit, (round_ + 1) * args.resubmit):
                hand_in(submissions, learners[i % n], i % n, version=2 + i // n)
            agains.append(autograde(submissions, scratch / "local"))
        checks.append(check(submissions / learners[0], scratch / "check"))
    unit = sum(checks) / len(checks)
    load = os.getloadavg()[0]
    print(f"a class of {n} with --jobs 2 on this machine ({os.cpu_count()} cores, load average {load:.1f} at the end)")
    print(f"  one check:             {unit:7.2f} s (mean of {', '.join(f'{c:.2f}' for c in checks)})")
    print(row("local --jobs 2:", local[0], local[1], n, unit) + f"\n    {local[2]}")
    if queued is not None:
        print(row("queue, 2 workers:", queued[0], queued[1], n, unit) + f"\n    {queued[2]}")
        print(f"  same grades.csv locally and on the queue: {same}")
    for again in agains:
        print(row(f"again, {args.resubmit} resubmitted:", again[0], again[1], n, unit) + f"\n    {again[2]}")
    goal = local[0] <= 0.6 * n * unit
    print(f"  local: {local[0] / (n * unit):.2f} x N x check (goal: at most 0.6): {'met' if goal else 'NOT met'}")
    if queued is not None:
        met = queued[0] <= 0.6 * n * unit
        print(f"  queue: {queued[0] / (n * unit):.2f} x N x check (goal: at most 0.6): {'met' if met else 'NOT met'}")
    shares = sorted(again[0] / local[0] for again in agains)
    share = shares[len(shares) // 2]
    print(f"  again: {100 * share:.1f}% of the first run, the median of {', '.join(f'{100 * s:.1f}%' for s in shares)} "
          f"(goal: at most 5%): {'met' if share <= 0.05 else 'NOT met'}")


if __name__ == "__main__":
    main()
