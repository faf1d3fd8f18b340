"""Reading a class for the copying check: each hand-in through the grader's intake (zips and
folders, links refused, sizes bounded), its tasks' code parsed, never run; and the
reference, ``solutions/minitorch``, as one more learner."""

from __future__ import annotations

import functools
import pathlib
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from grader.intake.hand_in import read_hand_in
from grader.intake.submissions import Found
from grader.similarity.compare import REFERENCE
from grader.similarity.code import TaskCode, Unit, read_tasks, units
from grader.tasks import stage_of

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOLUTIONS, RELEASED = ROOT / "solutions" / "minitorch", ROOT / "minitorch"


@functools.cache
def shape() -> tuple[list[Unit], dict[str, Counter[str]]]:
    """The functions each task fills, and each task's lines of the released stubs (given)."""
    wanted = units(SOLUTIONS)
    stubs, _ = read_tasks(RELEASED, wanted, {})
    return wanted, {task: Counter(line[0] for line in code.lines) for task, code in stubs.items()}


def read_reference() -> dict[str, TaskCode]:
    wanted, given = shape()
    return read_tasks(SOLUTIONS, wanted, given)[0]


def read_one(found: Found) -> tuple[str, dict[str, TaskCode], list[str]]:
    """One hand-in's tasks, and what could not be read (a sentence each)."""
    wanted, given = shape()
    with tempfile.TemporaryDirectory(prefix="similarity-") as scratch:
        hand_in = read_hand_in(found.path, found.learner, pathlib.Path(scratch))
        if hand_in.broken:
            return found.learner, {}, [hand_in.broken]
        codes: dict[str, TaskCode] = {}
        notes: list[str] = []
        by_package: dict[pathlib.Path, list[Unit]] = {}
        for unit in wanted:
            package = hand_in.packages.get(stage_of(unit.task))
            if package is not None:
                by_package.setdefault(package, []).append(unit)
        for package, its_units in by_package.items():
            read, why = read_tasks(package, its_units, given)
            codes.update(read)
            notes += [n for n in why if n not in notes]
        return found.learner, codes, notes


def read_class(found: list[Found], jobs: int = 1) -> tuple[dict[str, dict[str, TaskCode]], dict[str, list[str]]]:
    """Every hand-in's tasks (the reference's too) and the notes on what could not be read."""
    codes: dict[str, dict[str, TaskCode]] = {}
    notes: dict[str, list[str]] = {}
    if jobs > 1 and len(found) > jobs:
        with ProcessPoolExecutor(jobs) as pool:
            read = list(pool.map(read_one, found, chunksize=8))
    else:
        read = [read_one(f) for f in found]
    for learner, code, why in read:
        codes[learner] = code
        if why:
            notes[learner] = why
        if not code and not why:
            notes[learner] = ["no task's code found (every region as released)"]
    codes[REFERENCE] = read_reference()
    return codes, notes
