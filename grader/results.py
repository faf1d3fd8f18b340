"""Verdicts and scores: what the checks decided, and the points that follow from it.

A ``Verdict`` is one part of one task (``tasks.PARTS``); a part that did not pass carries
its ``Failure`` kind, a value that code may branch on (its message is for people only).
Scores are computed here and only here, from verdicts; the course, the reports and the
feedback all read them from a ``LearnerResult``.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field

from grader.tasks import PARTS, POINTS, STAGES, TASKS, stage_of


class Failure(enum.StrEnum):
    """What happened to a part that did not pass. ``WRONG``: the check judged the answer
    and named the mistake itself (``Verdict.mistake``); every other kind has its own
    mistake, the name the class report counts it under (``mistake``)."""
    WRONG = "wrong"
    NOT_IMPLEMENTED = "not implemented"     # the learner's code raised NotImplementedError
    RAISED = "raised"                       # ... raised another exception
    BORROWED = "borrowed"                   # ... called a given helper it was not lent (boundary/given.py)
    TIMED_OUT = "timed out"                 # a call took longer than its time
    CRASHED = "crashed"                     # the learner's process died, garbled or forked a bomb
    NOT_RUN = "not run"                     # the stage's time or restarts were used up, or no confinement
    IMPORT_LOST = "import lost"             # the package's import hung or killed its process
    IMPORT_FAILED = "import failed"         # the package's import raised
    OVERSIZED = "oversized answer"          # an answer too large to send back
    UNJUDGEABLE = "unjudgeable"             # the check could not judge what came back
    NO_PACKAGE = "no package"               # the hand-in had no package for the stage
    NOT_GRADED = "not graded"               # the grading process itself failed

    @property
    def mistake(self) -> str:
        return MISTAKE_NAMES[self]

    @property
    def lost(self) -> bool:
        """The learner's process was lost (timed out, died, not run)."""
        return self in (Failure.TIMED_OUT, Failure.CRASHED, Failure.NOT_RUN, Failure.IMPORT_LOST)


MISTAKE_NAMES = {Failure.WRONG: "wrong result", Failure.NOT_IMPLEMENTED: "not implemented",
            Failure.RAISED: "raised an error", Failure.BORROWED: "called the grader's version",
            Failure.TIMED_OUT: "crash or timeout", Failure.CRASHED: "crash or timeout",
            Failure.NOT_RUN: "crash or timeout", Failure.IMPORT_LOST: "crash or timeout",
            Failure.IMPORT_FAILED: "import error", Failure.OVERSIZED: "oversized answer",
            Failure.UNJUDGEABLE: "unjudgeable answer", Failure.NO_PACKAGE: "no package",
            Failure.NOT_GRADED: "grading error"}


@dataclass
class Verdict:
    task: str
    part: str
    points: float
    earned: float
    message: str = ""     # for the learner; empty when the part passed
    mistake: str = ""     # a short name of the mistake, for the class report
    kind: Failure | None = None   # what happened, when the part did not pass

    def __post_init__(self) -> None:
        if self.kind is not None:
            self.kind = Failure(self.kind)   # from JSON: its value

    @property
    def passed(self) -> bool:
        return self.earned == self.points


@dataclass
class TaskResult:
    task: str
    verdicts: list[Verdict]
    corrected: float | None = None   # the instructor's score for the task (a correction or a manual grade)
    reason: str = ""                 # ... and why

    @property
    def checked(self) -> float:
        """The points the checks gave."""
        return sum(v.earned for v in self.verdicts)

    @property
    def score(self) -> float:
        return self.checked if self.corrected is None else self.corrected

    @property
    def max_score(self) -> float:
        return POINTS[self.task]

    @property
    def message(self) -> str:
        failed = [v for v in self.verdicts if not v.passed]
        if failed and all(v.kind is Failure.NOT_IMPLEMENTED for v in failed) and len(failed) == len(self.verdicts):
            return failed[0].message
        return " | ".join(f"{v.part}: {v.message}" for v in failed)


@dataclass
class LearnerResult:
    learner: str
    sid: str = ""                                        # the safe id of files and the course (intake.submissions.safe_id)
    tasks: dict[str, TaskResult] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)   # about the hand-in as a whole
    late_days: int = 0                                   # after the deadline (lateness.LatePolicy.apply)
    penalty: float = 0.0                                 # percent of the total taken for it

    def stage_score(self, stage: str) -> tuple[float, float]:
        rows = [r for t, r in self.tasks.items() if stage_of(t) == stage]
        return sum(r.score for r in rows), sum(r.max_score for r in rows)

    @property
    def total(self) -> tuple[float, float]:
        return sum(r.score for r in self.tasks.values()), sum(r.max_score for r in self.tasks.values())

    @property
    def final(self) -> float:
        """The total after the late penalty, to two decimals."""
        return round(self.total[0] * (1 - self.penalty / 100), 2)

    def to_json(self) -> dict:
        return {"learner": self.learner, "sid": self.sid, "problems": self.problems, "late_days": self.late_days,
                "penalty": self.penalty, "verdicts": [asdict(v) for r in self.tasks.values() for v in r.verdicts],
                "corrections": {t: [r.corrected, r.reason] for t, r in self.tasks.items() if r.corrected is not None}}

    @classmethod
    def from_json(cls, data: dict) -> LearnerResult:
        result = cls(data["learner"], str(data.get("sid", "")), problems=list(data.get("problems", [])),
                     late_days=int(data.get("late_days", 0)), penalty=float(data.get("penalty", 0.0)))
        result.add([Verdict(**v) for v in data["verdicts"]])
        for task, (points, reason) in data.get("corrections", {}).items():
            result.correct(task, float(points), str(reason))
        return result

    def correct(self, task: str, points: float, reason: str) -> None:
        """The instructor's score for ``task`` in place of the checks' (the verdicts stay)."""
        self.tasks[task].corrected, self.tasks[task].reason = points, reason

    def all_verdicts(self) -> list[Verdict]:
        return [v for r in self.tasks.values() for v in r.verdicts]

    def add(self, verdicts: list[Verdict]) -> None:
        for v in verdicts:
            self.tasks.setdefault(v.task, TaskResult(v.task, [])).verdicts.append(v)


def failed_everywhere(why: str, kind: Failure, stages: list[str] | None = None) -> list[Verdict]:
    """Every part of ``stages`` (default: all) failed for one reason."""
    stages = stages or list(STAGES)
    return [Verdict(t, p, pts, 0.0, why, kind.mistake, kind) for t in TASKS if stage_of(t) in stages
            for p, pts in PARTS[t].items()]
