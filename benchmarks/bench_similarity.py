"""The copying check on a class of 300 synthetic hand-ins: its time against the goal of 2
minutes on 2 cores.

    .venv/bin/python benchmarks/bench_similarity.py [--hand-ins 300] [--jobs 2] [--copies 5]

Each hand-in writes every region in one of seven ways, drawn at random (seeded) per
region: the six honest styles of the check's test class (tests/grader/similarity_styles.py)
or the reference; in half of its regions every number is then changed at random, so that
hand-ins share parts of a task rather than all or nothing (many partial matches: the costly
case). ``--copies`` more hand-ins each copy one of the others, disguised as the test
class's copies are (tests/grader/similarity_disguises.py: renamed, every body moved into a
helper, loops and comprehensions swapped, dead code added, reordered, laid out anew,
commented otherwise). Times ``python -m grader similarity`` on the class, prints each
copy's rank and verdict, and the size of the files.

This class is not a real one: a learner here takes a seventh of their regions from the
reference and shares each other region with a sixth of the class, so learners' pairs share
far more than independent learners do; its flags say nothing of precision (the test class
does: tests/grader/test_similarity.py).
"""

from __future__ import annotations

import argparse
import ast
import csv
import pathlib
import random
import re
import resource
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "grader"))

from similarity_class import reference_bodies  # noqa: E402
from similarity_disguises import build, disguise_all  # noqa: E402
from similarity_styles import STYLES  # noqa: E402

NUMBER = re.compile(r"(?<![\w.])\d+(\.\d+)?(?![\w.])")


def renumbered(body: str, rng: random.Random) -> str:
    changed = NUMBER.sub(lambda m: str(rng.randint(2, 9)), body)
    try:
        ast.parse(changed)
        return changed
    except SyntaxError:
        return body


def make_class(folder: pathlib.Path, count: int, copies: int, seed: int = 0) -> list[tuple[str, str]]:
    """``count`` hand-ins and ``copies`` disguised copies of some of them; the copies' pairs."""
    rng = random.Random(seed)
    ways = [*STYLES.values(), reference_bodies()]
    written = {}
    for n in range(count):
        bodies = {}
        for region in ways[0]:
            body = rng.choice(ways)[region]
            bodies[region] = renumbered(body, rng) if rng.random() < 0.5 else body
        written[f"learner{n:03d}"] = bodies
        build(bodies, folder / f"learner{n:03d}")
    planted = []
    for n in range(copies):
        original = f"learner{rng.randrange(count):03d}"
        build(disguise_all(written[original]), folder / f"copier{n}", helpers=f"_part{n}x", seed=n, unused=True)
        planted.append((original, f"copier{n}"))
    return planted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hand-ins", type=int, default=300)
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder, out = pathlib.Path(scratch) / "class", pathlib.Path(scratch) / "out"
        start = time.perf_counter()
        planted = make_class(folder, args.hand_ins - args.copies, args.copies)
        print(f"made {args.hand_ins} hand-ins ({args.copies} of them copies) in {time.perf_counter() - start:.0f} s")
        start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-m", "grader", "similarity", str(folder), "--out", str(out),
                               "--jobs", str(args.jobs)], cwd=ROOT, capture_output=True, text=True, check=True)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_seconds = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        load = pathlib.Path("/proc/loadavg").read_text().split()[:3]
        with (out / "similarity-pairs.csv").open() as file:
            rows = list(csv.DictReader(file))
        ranked = [frozenset((r["learner_a"], r["learner_b"])) for r in rows]
        for original, copier in planted:
            key = frozenset((original, copier))
            row = rows[ranked.index(key)] if key in ranked else None
            print(f"  {copier} copies {original}: " + (f"rank {ranked.index(key) + 1}, shared {row['shared']}, "
                                                      f"{'flagged' if row['flagged'] else 'NOT flagged'}"
                                                      if row else "not among the pairs listed"))
        planted_pairs = {frozenset(p) for p in planted}
        others = [r for r in rows if frozenset((r["learner_a"], r["learner_b"])) not in planted_pairs
                  and "solutions/minitorch" not in (r["learner_a"], r["learner_b"])]
        print(f"  learners' pairs that are not a planted copy: the most shared "
              f"{max((int(r['shared']) for r in others), default=0)}, flagged {sum(1 for r in others if r['flagged'])}")
        html = (out / "similarity.html").read_text()
        print(f"similarity-pairs.csv: {len(rows)} rows; similarity.csv: "
              f"{(out / 'similarity.csv').stat().st_size / 2**20:.1f} MiB; similarity.html: {len(html) / 2**20:.1f} MiB")
        print(next(line for line in done.stdout.splitlines() if line.startswith("Similarity:")))
        flagged = [line for line in done.stdout.splitlines() if "matches the reference:" in line]
        print(f"  flagged as matching the reference: {len(flagged)} (each hand-in took a seventh of its regions from it)")
        print(f"python -m grader similarity, {args.hand_ins} hand-ins, --jobs {args.jobs}: {seconds:.1f} s of wall time, "
              f"{cpu_seconds:.1f} CPU-seconds (goal: at most 120 s on 2 cores; load average {' '.join(load)})")


if __name__ == "__main__":
    main()
