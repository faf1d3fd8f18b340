"""The copying check's two tables, for the instructor only (never a feedback page):

* ``similarity-pairs.csv``: a row per pair that shares code (the ``compare.DETAILED``
  highest and every flagged one): ``learner_a``, ``learner_b``, ``flagged``, ``score``,
  ``shared`` (the amount the flag rests on), ``matched_lines``, ``tasks``, and each side's
  hand-in time, with ``first``, who handed in first;
* ``similarity.csv``: a row per such pair and task they share code in: the task's
  ``score`` and the matched ``lines``, each side's file and line numbers.
"""

from __future__ import annotations

import pathlib
from collections import Counter

from grader.outputs.tables import SafeWriter
from grader.similarity.cache import LazyPrints
from grader.similarity.code import OTHER
from grader.similarity.compare import Compared, Pair
from grader.similarity.engine import Prints
from grader.similarity.when import HandedIn, first, stamp

PAIR_COLUMNS = ["learner_a", "learner_b", "flagged", "score", "shared", "matched_lines", "tasks",
                "handed_in_a", "handed_in_b", "first"]
TASK_COLUMNS = ["learner_a", "learner_b", "task", "score", "lines"]


def task_sizes(prints: dict[str, Prints]) -> dict[str, Counter[str]]:
    """Each learner's fingerprints per task (where each first occurs)."""
    return {learner: found.task_counts() if isinstance(found, LazyPrints) else
            Counter(where[0][0] for where in found.values()) for learner, found in prints.items()}


def detailed(compared: Compared) -> list[Pair]:
    return [p for p in compared.pairs if p.tasks or p.lines[0]]


def tasks_of(pair: Pair) -> str:
    return " ".join(f"{task}({n})" for task, n in pair.tasks.items() if n >= 3)


def write_pairs(compared: Compared, times: dict[str, HandedIn], target: pathlib.Path) -> None:
    with target.open("w", newline="", encoding="utf-8") as file:
        writer = SafeWriter(file)
        writer.writerow(PAIR_COLUMNS)
        for p in detailed(compared):
            a, b = times.get(p.a), times.get(p.b)
            writer.writerow([p.a, p.b, "yes" if p.flagged else "", f"{p.score:.3f}", p.amount, p.matched_lines(),
                             tasks_of(p), stamp(a.at) if a and a.at else "", stamp(b.at) if b and b.at else "",
                             first(a, b, p.a, p.b)])


def write_tasks(compared: Compared, prints: dict[str, Prints], target: pathlib.Path) -> None:
    sizes = task_sizes(prints)
    with target.open("w", newline="", encoding="utf-8") as file:
        writer = SafeWriter(file)
        writer.writerow(TASK_COLUMNS)
        ranges: dict[tuple[str, str, frozenset], str] = {}   # a side's, by learner, task and lines

        def of(side: int, p: Pair, task: str) -> str:
            key = ((p.a, p.b)[side], task, frozenset(p.lines[side].get(task, ())))
            if key not in ranges:   # (the reference's lines are one set in many pairs)
                ranges[key] = line_ranges(key[2])
            return ranges[key]
        for p in detailed(compared):
            for task, n in p.tasks.items():
                smaller = min(sizes[p.a][task], sizes[p.b][task]) or n
                writer.writerow([p.a, p.b, task, f"{min(1.0, n / smaller):.3f}", f"{of(0, p, task)} | {of(1, p, task)}"])


def line_ranges(lines) -> str:
    """``autodiff.py:41-45,48 ops_binary.py:60``: where matched lines are, file by file."""
    by_file: dict[str, list[int]] = {}
    for file, number in sorted(lines):
        by_file.setdefault(file, []).append(number)
    shown = []
    for file, numbers in by_file.items():
        runs: list[list[int]] = []
        for n in sorted(set(numbers)):
            if runs and n == runs[-1][1] + 1:
                runs[-1][1] = n
            else:
                runs.append([n, n])
        shown.append(f"{file}:" + ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs))
    return " ".join(shown)


def task_name(task: str) -> str:
    return "code no task's function calls" if task == OTHER else f"Task {task}"
