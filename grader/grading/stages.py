"""Running a stage's checks against one package: every part, each judged on its own.

``run_stage`` starts the learner's process (``boundary.runner.LearnerProcess``), runs every
part of the stage's tasks, and returns a ``Verdict`` per part. ``HandInMemory`` is what the
stages of one hand-in learn about it as they go, a value the caller holds for one hand-in,
never a module global: the learner's process, kept for the next stage when it grades the
same files; whether the package's import hung or killed its process, in which case a later
stage gives the import one short try of its own (``retry_seconds``) instead of its whole
budget again, since nothing makes it certain that it would fail the same way there; and
the notes for the learner that no part's verdict holds (a file with a syntax error that
was never imported).
"""

from __future__ import annotations

import hashlib
import pathlib
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from grader.boundary.failures import Lost, Raised, Undeclared, Unimportable
from grader.boundary.runner import LearnerProcess
from grader.checks import load_all
from grader.checks.common import CheckFailure, failure_of
from grader.checks.mistakes import evidence
from grader.results import Failure, Verdict, failed_everywhere
from grader.settings import Settings
from grader.tasks import PARTS, stage_of


def retry_seconds(settings: Settings) -> float:
    """The import's time in a stage after one where it hung: a quarter of a call's, at
    least 5 s (an import takes about 1 s), never more than a call's."""
    return min(settings.call_seconds, max(5.0, settings.call_seconds / 4))


@dataclass
class HandInMemory:
    """What earlier stages of this hand-in found: whose import hung or killed its process
    (package digest -> why; a later stage gives it one short try), the files no stage
    imported that do not compile, and the learner's process they used, kept for the next
    stage when it grades the same files (starting a confined process costs more than most
    stages' checks)."""
    hung: dict[str, str] = field(default_factory=dict)
    process: LearnerProcess | None = None
    digest: str = ""
    unused: dict[str, set[tuple[str, ...]]] = field(default_factory=dict)  # digest -> broken files never imported

    def process_for(self, package: pathlib.Path, digest: str, settings: Settings) -> LearnerProcess:
        if self.process is not None and (self.digest != digest or self.process.settings != settings):
            self.close()
        if self.process is None:
            self.process, self.digest = LearnerProcess(package, settings), digest
        else:
            self.process.new_stage(package)
        return self.process

    def notes(self) -> list[str]:
        """For the learner: each file that does not compile and that no stage imported."""
        found = sorted(set().union(*self.unused.values()))
        return [f"{file} has {why}{f' at line {line}' if line != '0' else ''} and was not used (never imported), "
                "so it cost nothing" for file, line, why in found]

    def close(self) -> None:
        if self.process is not None:
            self.process.close()
        self.process, self.digest = None, ""


def run_stage(package: pathlib.Path, stage: str, settings: Settings,
              memory: HandInMemory | None = None) -> list[Verdict]:
    """Every part of ``stage`` against the package at ``package`` (a ``minitorch/`` folder)."""
    registry = load_all()
    own = memory is None  # a caller without a memory gets a process for this stage only
    memory = memory if memory is not None else HandInMemory()
    digest = _digest(pathlib.Path(package))
    verdicts = []
    w = memory.process_for(pathlib.Path(package), digest, settings)
    try:
        if digest in memory.hung:
            seconds = retry_seconds(settings)
            try:
                w.start(import_seconds=seconds)
            except Lost as error:
                return failed_everywhere(f"{error} (as in an earlier stage: this stage gave the import one short "
                                         f"try of {seconds:g} s, not its whole budget)", failure_of(error).kind,
                                         [stage])
            except Unimportable:
                pass  # each part says so
        for task, parts in PARTS.items():
            if stage_of(task) != stage:
                continue
            w.task = task
            for name, points in parts.items():
                failure = _run_part(registry[(task, name)], w, f"{task}/{name}")
                verdicts.append(Verdict(task, name, points, points * 1.0) if failure is None else
                                Verdict(task, name, points, points * failure.keep, str(failure), failure.mistake,
                                        failure.kind))
        _look_at_unused_files(w, digest, memory)
    finally:
        if own:
            memory.close()
    if verdicts and all(v.kind is not None and v.kind.lost for v in verdicts) \
            and verdicts[0].kind is Failure.IMPORT_LOST:
        memory.hung[digest] = verdicts[0].message
    return verdicts


def _look_at_unused_files(w: LearnerProcess, digest: str, memory: HandInMemory) -> None:
    """The package's files that this stage's process has not imported and that do not
    compile: they cost nothing, but the learner should know. A file counts only if no
    stage imported it (a package may import a module only when a later stage uses it)."""
    if w.process is None:
        return
    w.task = None
    try:
        found = w.call("unused_files", doing="looking for files that were never imported", package=str(w.package))
    except (Lost, Raised, Unimportable):
        return
    seen = {tuple(str(x)[:200] for x in item) for item in (found if isinstance(found, list) else [])
            if isinstance(item, list) and len(item) == 3}
    memory.unused[digest] = memory.unused[digest] & seen if digest in memory.unused else seen


def _digest(package: pathlib.Path) -> str:
    """The package's files, names and contents, as one hash."""
    h = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.is_file() and not p.is_symlink()):
        h.update(path.relative_to(package).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def _run_part(fn: Callable, w: LearnerProcess, seed_name: str) -> CheckFailure | None:
    """Run one part: None when it passed, else its failure."""
    rng = np.random.default_rng(zlib.crc32(seed_name.encode()))
    try:
        with np.errstate(all="ignore"), evidence.fresh():  # a part's own cases are its evidence for naming a mistake
            fn(w, rng)
        return None
    except CheckFailure as failure:
        return failure
    except (Unimportable, Raised, Lost) as error:
        return failure_of(error)
    except Undeclared:
        raise  # the grader's own mistake: stop loudly, never charge a learner for it
    except Exception as error:  # noqa: BLE001 - an answer this check could not handle costs that part only
        print(f"grader: part {seed_name} could not judge its answer: {type(error).__name__}: {error}"[:500],
              file=sys.stderr)
        return CheckFailure(f"this part could not judge what the package returned ({type(error).__name__}); check "
                            "that it returns arrays of the shapes asked for", kind=Failure.UNJUDGEABLE)
