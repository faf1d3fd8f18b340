"""Reading a class for the copying check: each hand-in through the grader's intake (zips and
folders, links refused, sizes bounded), its tasks' code parsed (never run) and
fingerprinted; and the reference, ``solutions/minitorch``, as one more learner.

Hand-ins are read in processes forked from this one, which share its hash salt, so their
fingerprints compare with the ones made here (engine.py)."""

from __future__ import annotations

import functools
import multiprocessing
import pathlib
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from grader.intake.hand_in import read_hand_in
from grader.intake.submissions import Found
from grader.similarity import engine
from grader.similarity.code import TaskCode, Unit, read_tasks, units
from grader.similarity.compare import REFERENCE
from grader.tasks import stage_of

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOLUTIONS, RELEASED = ROOT / "solutions" / "minitorch", ROOT / "minitorch"


@dataclass
class Read:
    learner: str
    codes: dict[str, TaskCode]
    prints: dict[str, engine.Prints]
    notes: list[str]


@dataclass
class Class:
    codes: dict[str, dict[str, TaskCode]]
    prints: dict[str, dict[str, engine.Prints]]
    notes: dict[str, list[str]]                  # learner -> what could not be read


@functools.cache
def shape() -> tuple[list[Unit], dict[str, Counter[str]]]:
    """The functions each task fills, and each task's lines of the released stubs (given)."""
    wanted = units(SOLUTIONS)
    stubs, _ = read_tasks(RELEASED, wanted, {})
    return wanted, {task: Counter(line[0] for line in code.lines) for task, code in stubs.items()}


def read_reference() -> dict[str, TaskCode]:
    wanted, given = shape()
    return read_tasks(SOLUTIONS, wanted, given)[0]


def _fingerprinted(learner: str, codes: dict[str, TaskCode], notes: list[str]) -> Read:
    prints = {task: engine.fingerprint("\n".join(line[0] for line in code.lines)) for task, code in codes.items()}
    return Read(learner, codes, prints, notes)


def read_one(found: Found) -> Read:
    """One hand-in's tasks, and what could not be read (a sentence each); a hand-in that
    breaks the reading is named with what broke it, and costs no other its comparison."""
    try:
        return _read_one(found)
    except Exception as error:  # noqa: BLE001 - one hand-in, never the class
        return Read(found.learner, {}, {}, [f"could not be read ({type(error).__name__}: {str(error)[:200]})"])


def _read_one(found: Found) -> Read:
    wanted, given = shape()
    with tempfile.TemporaryDirectory(prefix="similarity-") as scratch:
        hand_in = read_hand_in(found.path, found.learner, pathlib.Path(scratch))
        if hand_in.broken:
            return Read(found.learner, {}, {}, [hand_in.broken])
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
        if not codes and not notes:
            notes.append("no task's code found (every region as released)")
        return _fingerprinted(found.learner, codes, notes)


def read_class(found: list[Found], jobs: int = 1) -> Class:
    """Every hand-in's tasks and fingerprints (the reference's too), and what could not be read."""
    shape()   # once, before the processes fork
    if jobs > 1 and len(found) > jobs:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            reads = list(pool.map(read_one, found, chunksize=4))
    else:
        reads = [read_one(f) for f in found]
    reads.append(_fingerprinted(REFERENCE, read_reference(), []))
    return Class({r.learner: r.codes for r in reads}, {r.learner: r.prints for r in reads},
                 {r.learner: r.notes for r in reads if r.notes})
