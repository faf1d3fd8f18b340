"""A class compared, task by task and pair by pair.

Each task's code of each hand-in (and of the reference, a learner of its own named
``REFERENCE``) is fingerprinted by the engine; what more than a tenth of the class (and
more than ``COMMON_AT_LEAST`` hand-ins) holds is left out as common. A pair's score for a
task is the share of the smaller side's remaining fingerprints found in the other; the
pair's score is the mean of its task scores weighted by the smaller side's remaining
fingerprints, so that a task everyone writes one way weighs nothing and a long copied task
weighs most.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from grader.similarity import engine
from grader.similarity.code import Line, TaskCode

REFERENCE = "solutions/minitorch"   # no hand-in has this name: an entry's name never holds "/"
COMMON_SHARE = 0.1
COMMON_AT_LEAST = 3
FLAG = 0.5          # a pair with the reference at or above this is flagged as matching it


@dataclass
class TaskMatch:
    task: str
    score: float
    lines: tuple[list[Line], list[Line]]      # each side's matched lines
    weight: int


@dataclass
class Pair:
    a: str
    b: str
    tasks: list[TaskMatch] = field(default_factory=list)   # the tasks the two share code in
    weight: int = 0                                         # of every task both wrote
    written: int = 0                                        # how many tasks both wrote

    @property
    def score(self) -> float:
        return sum(t.score * t.weight for t in self.tasks) / self.weight if self.weight else 0.0

    @property
    def with_reference(self) -> bool:
        return REFERENCE in (self.a, self.b)

    @property
    def flagged(self) -> bool:
        return self.with_reference and self.score >= FLAG


def compare_class(codes: dict[str, dict[str, TaskCode]], prints: dict[str, dict[str, engine.Prints]]) -> list[Pair]:
    """Every pair of learners (``codes``: learner -> task -> code; ``prints``: its
    fingerprints) that both wrote a task, highest score first (ties by name)."""
    learners = sorted(codes)
    pairs = {(a, b): Pair(a, b) for a, b in combinations(learners, 2)}
    tasks = sorted({task for code in codes.values() for task in code}, key=_task_order)
    for task in tasks:
        holders = [learner for learner in learners if task in prints.get(learner, {})]
        common = engine.common_hashes((prints[h][task] for h in holders),
                                      max(COMMON_AT_LEAST, int(COMMON_SHARE * len(codes))))
        own = {h: frozenset(prints[h][task].lines.keys() - common) for h in holders}
        for i, a in enumerate(holders):
            own_a = own[a]
            for b in holders[i + 1:]:
                pair = pairs[a, b]
                pair.written += 1
                if own_a.isdisjoint(own[b]):
                    pair.weight += min(len(own_a), len(own[b]))
                    continue
                match = engine.compare(prints[a][task], prints[b][task], own_a, own[b])
                pair.weight += match.weight
                lines_a, lines_b = codes[a][task].lines, codes[b][task].lines
                pair.tasks.append(TaskMatch(task, match.score, ([lines_a[n] for n in match.lines[0]],
                                                                  [lines_b[n] for n in match.lines[1]]), match.weight))
    return sorted((p for p in pairs.values() if p.written), key=lambda p: (-p.score, p.a, p.b))


def _task_order(task: str) -> tuple[int, ...]:
    return tuple(int(n) for n in task.split("."))


def line_ranges(lines: list[Line]) -> str:
    """``autodiff.py:41-45,48 ops_binary.py:60``: where matched lines are, file by file."""
    by_file: dict[str, list[int]] = {}
    for _, file, number in lines:
        by_file.setdefault(file, []).append(number)
    shown = []
    for file, numbers in by_file.items():
        numbers = sorted(set(numbers))
        runs: list[list[int]] = []
        for n in numbers:
            if runs and n == runs[-1][1] + 1:
                runs[-1][1] = n
            else:
                runs.append([n, n])
        shown.append(f"{file}:" + ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs))
    return " ".join(shown)
