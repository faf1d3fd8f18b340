"""The limits of grading, in one place: one ``Settings`` travels from the command line (or
a course's ``nbgrader_config.py``) to every learner's process.

Each field is one command-line flag (``--call-seconds``...; ``add_flags``) and one
traitlet of the course's nbgrader preprocessor (``GradeFromChecks.call_seconds``...), both
made from the fields below, so the three can never disagree.
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field
from typing import Any


def _limit(default: Any, help: str) -> Any:
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class Settings:
    call_seconds: float = _limit(20.0, "time for one call into the learner's code (import included)")
    stage_seconds: float = _limit(90.0, "time for all of one stage's calls into the learner's code")
    memory_mb: int = _limit(2048, "memory of the learner's whole process tree, in MiB")
    processes: int = _limit(16, "processes and threads the learner's code may have at once")
    disk_mb: int = _limit(32, "what the learner's code may write (its scratch folder), in MiB")
    restarts: int = _limit(3, "new learner processes per stage after one died or hung")
    confine: bool = _limit(True, "refuse to run learner code unconfined where Landlock exists")
    # Not a limit (no flag, no traitlet): as root, the learner's code runs as this user id, so
    # file permissions keep it from the grader's files even without Landlock (grader/platforms/).
    learner_user: int | None = None

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """The limits by name (what a course's config and a queue's message carry)."""
        return {f.name: getattr(self, f.name) for f in self.fields()}

    @classmethod
    def fields(cls) -> list[dataclasses.Field]:
        """The limits: each one flag and one traitlet."""
        return [f for f in dataclasses.fields(cls) if "help" in f.metadata]

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Settings:
        return cls(**{f.name: getattr(args, f.name) for f in cls.fields()})


def markdown_table() -> str:
    """The limits as the docs' table (``docs/INSTRUCTOR.md`` holds it; a test compares)."""
    rows = ["| flag of `check` and `autograde` | traitlet of `GradeFromChecks` | default | what it limits |",
            "| --- | --- | --- | --- |"]
    for f in Settings.fields():
        flag = "--" + f.name.replace("_", "-")
        flag = f"{flag}/--no-{flag[2:]}" if f.type in (bool, "bool") else flag
        rows.append(f"| `{flag}` | `{f.name}` | {f.default} | {f.metadata['help']} |")
    return "\n".join(rows)


def add_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per setting: ``--call-seconds``, ..., ``--confine/--no-confine``."""
    for f in Settings.fields():
        flag = "--" + f.name.replace("_", "-")
        help_text = f"{f.metadata['help']} (default: {f.default})"
        if f.type in (bool, "bool"):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default, help=help_text)
        else:
            kind = float if f.type in (float, "float") else int
            parser.add_argument(flag, type=kind, default=f.default, help=help_text)
