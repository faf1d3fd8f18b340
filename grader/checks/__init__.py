"""The trusted checks: one module per stage, each part of each task one function.

    @part("2.3", "Mul")
    def mul(w, rng): ...

A part receives ``w``, the learner's process (``runner.LearnerProcess``), and a random
generator seeded by the part's name. It sends inputs to the learner's code through
probes, computes every expected value itself with NumPy, and raises ``CheckFailure``
(``common.py``) naming what is wrong. ``run_stage`` runs every part of a stage against
one package and returns a ``Verdict`` per part; nothing a learner's process says is
taken as a verdict.
"""

from __future__ import annotations

import hashlib
import importlib
import pathlib
import sys
import zlib
from typing import Callable

import numpy as np

from ..results import Verdict, failed_everywhere
from ..runner import LearnerProcess, Lost, Raised, Unimportable
from ..settings import Settings
from ..tasks import PARTS, STAGES, stage_of
from .common import CheckFailure, learner_raised

REGISTRY: dict[tuple[str, str], Callable] = {}


def part(task: str, name: str):
    if name not in PARTS.get(task, {}):
        raise KeyError(f"task {task} has no part {name!r} in tasks.PARTS")

    def register(fn: Callable) -> Callable:
        REGISTRY[(task, name)] = fn
        return fn
    return register


def load_all() -> None:
    for stage in STAGES:
        importlib.import_module(f"{__name__}.stage{stage}")


# Packages (by content) whose import hung or killed its process in an earlier stage of the
# hand-in being graded, and why: their import would do the same in every stage, each time
# costing the stage's whole time budget, so later stages are not run again.
_HUNG: dict[str, str] = {}


def new_hand_in() -> None:
    """Forget what earlier hand-ins did: each hand-in's stages are judged afresh."""
    _HUNG.clear()


def run_stage(package: pathlib.Path, stage: str, settings: Settings) -> list[Verdict]:
    """Every part of ``stage`` against the package at ``package`` (a ``minitorch/`` folder)."""
    load_all()
    digest = _digest(pathlib.Path(package))
    if digest in _HUNG:
        return failed_everywhere(f"{_HUNG[digest]} (in an earlier stage: this stage was not run again)",
                                 "crash or timeout", [stage])
    verdicts = []
    with LearnerProcess(package, settings) as w:
        for task, parts in PARTS.items():
            if stage_of(task) != stage:
                continue
            for name, points in parts.items():
                message, pitfall, keep = _run_part(REGISTRY[(task, name)], w, f"{task}/{name}")
                verdicts.append(Verdict(task, name, points, points * keep, message, pitfall))
    if verdicts and all(v.pitfall == "crash or timeout" for v in verdicts) \
            and "importing the package" in verdicts[0].message:
        _HUNG[digest] = verdicts[0].message
    return verdicts


def _digest(package: pathlib.Path) -> str:
    """The package's files, names and contents, as one hash."""
    h = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.is_file() and not p.is_symlink()):
        h.update(path.relative_to(package).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def _run_part(fn: Callable, w: LearnerProcess, seed_name: str) -> tuple[str, str, float]:
    rng = np.random.default_rng(zlib.crc32(seed_name.encode()))
    try:
        with np.errstate(all="ignore"):
            fn(w, rng)
        return "", "", 1.0
    except CheckFailure as failure:
        return str(failure), failure.pitfall, failure.keep
    except Unimportable as error:
        where = f" ({error.where})" if error.where else ""
        return (f"the package could not be imported: {error.type}: {error.message}{where}", "import error", 0.0)
    except Raised as error:
        failure = learner_raised(error, "the learner's code")
        return str(failure), failure.pitfall, 0.0
    except Lost as error:
        return str(error), "crash or timeout", 0.0
    except Exception as error:  # an answer this check could not handle: that part only, never the whole grading
        print(f"grader: part {seed_name} could not judge its answer: {type(error).__name__}: {error}"[:500],
              file=sys.stderr)
        return (f"this part could not judge what the package returned ({type(error).__name__}); check that it "
                "returns arrays of the shapes asked for", "unjudgeable answer", 0.0)
