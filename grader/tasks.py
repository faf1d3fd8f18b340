"""The course's tasks, read from the one manifest, ``tasks.toml`` beside this file.

Everything that needs a task list, a part's points or the course total takes it from here
(the grader) or from ``tasks.toml`` itself (the release builder, which imports nothing of
the grader, and the tests' markers). Each task's points are split into *parts* (one rule,
one case, one property), each checked on its own, so that a one-op mistake costs that op's
share, not the whole task.

The manifest also declares the graded surface: the names of the learner's package that
each task's checks call (``CALLS``) or swap for given versions while checking it
(``SWAPS``; ``GIVEN`` names the helper that takes each swapped name's place). A check may
use only its task's names (``declared``); ``boundary.runner`` refuses any other.
"""

from __future__ import annotations

import pathlib
import tomllib
from typing import Any

MANIFEST = pathlib.Path(__file__).resolve().parent / "tasks.toml"


class ManifestError(ValueError):
    """The manifest is not well formed; the message names the task and the field."""


def load(path: pathlib.Path = MANIFEST) -> dict[str, Any]:
    """The manifest as plain data, checked: every task in a declared stage, every part's
    points a positive multiple of 0.5, every swapped name with its given helper."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ManifestError(f"{path}: {error}") from None
    stages, tasks, given = data.get("stage", {}), data.get("task", {}), data.get("given", {})
    for task, spec in tasks.items():
        where = f"{path.name}: task {task!r}"
        if task.split(".")[0] not in stages or task.count(".") != 1:
            raise ManifestError(f"{where}: its id must be STAGE.N with a [stage.STAGE] declared")
        if not spec.get("title") or not spec.get("parts"):
            raise ManifestError(f"{where}: needs a title and at least one part")
        for part, points in spec["parts"].items():
            if not isinstance(points, (int, float)) or points <= 0 or (points * 2) % 1:
                raise ManifestError(f"{where}, part {part!r}: points must be a positive multiple of 0.5, "
                                    f"not {points!r}")
        for name in spec.get("swaps", []):
            if name not in given:
                raise ManifestError(f"{where}: swaps {name!r}, which has no helper in [given]")
    return data


_DATA = load()

STAGES: dict[str, str] = {stage: spec["notebook"] for stage, spec in _DATA["stage"].items()}
STAGE_TITLES: dict[str, str] = {stage: spec["title"] for stage, spec in _DATA["stage"].items()}
TASKS: dict[str, str] = {task: spec["title"] for task, spec in _DATA["task"].items()}
PARTS: dict[str, dict[str, float]] = {task: dict(spec["parts"]) for task, spec in _DATA["task"].items()}
POINTS: dict[str, float] = {task: sum(parts.values()) for task, parts in PARTS.items()}
TOTAL: float = sum(POINTS.values())
CALLS: dict[str, list[str]] = {task: list(spec.get("calls", [])) for task, spec in _DATA["task"].items()}
SWAPS: dict[str, list[str]] = {task: list(spec.get("swaps", [])) for task, spec in _DATA["task"].items()}
GIVEN: dict[str, str] = dict(_DATA.get("given", {}))
ALWAYS: list[str] = list(_DATA.get("always", []))


def stage_of(task: str) -> str:
    return task.split(".")[0]


def tasks_of(stage: str) -> list[str]:
    return [t for t in TASKS if stage_of(t) == stage]


def marker(task: str) -> str:
    """The pytest marker and nbgrader grade id of a task: "2.3" -> "task2_3"."""
    return "task" + task.replace(".", "_")


def declared(task: str) -> set[str]:
    """The package names the checks of ``task`` may use: its calls and swaps, and what
    every check may use (``ALWAYS``). A name covers what is inside it: declaring
    ``nn.Linear`` allows ``nn.Linear.forward``."""
    return {*CALLS.get(task, []), *SWAPS.get(task, []), *ALWAYS}


def is_declared(name: str, task: str) -> bool:
    allowed = declared(task)
    parts = name.split(".")
    return any(".".join(parts[:i]) in allowed for i in range(1, len(parts) + 1))


def markdown_table() -> str:
    """The docs' task table (the release writes it into docs/CURRICULUM.md)."""
    from grader.release.task_table import markdown_table as table
    return table(_DATA)
