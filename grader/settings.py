"""The limits of grading, in one place: one ``Settings`` travels from the command line (or
a course's ``nbgrader_config.py``) to every learner's process."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    call_seconds: float = 20.0    # one call into the learner's code (import included)
    stage_seconds: float = 90.0   # everything one stage's checks may spend in the learner's code
    memory_mb: int = 2048         # the learner's whole process tree
    processes: int = 16           # processes and threads it may have at once
    disk_mb: int = 32             # what it may write (its scratch folder)
    restarts: int = 3             # new processes per stage after one died or hung
    confine: bool = True          # refuse to run learner code unconfined where Landlock exists
    learner_user: int | None = None   # as root: run learner code as this user id (grader/platforms/)

    def replace(self, **changes) -> "Settings":
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)
