"""What a probe call may reach, checked on the grader's side before it is sent: the
package names it uses (against the manifest's declaration for the task being checked) and
the given helpers it swaps in (which ``runner.py`` then lends to the call's stand-ins).
Read from ``probe_declarations.py`` and the manifest; nothing of the learner zone."""

from __future__ import annotations

from typing import Any

from grader.boundary.failures import Undeclared
from grader.probe_declarations import PROBES
from grader.tasks import GIVEN, is_declared


def names_used(probe: str, args: dict[str, Any]) -> list[str]:
    """The package names a probe call reaches: the probe's own (filled from its arguments)
    and those its declaration and its ``swaps`` argument replace."""
    if probe not in PROBES:
        raise Undeclared(f"no probe named {probe!r}")
    names = []
    for template in PROBES[probe].uses:
        try:
            names.append(template.format(**{k: v for k, v in args.items() if isinstance(v, str)}))
        except (KeyError, IndexError):
            raise Undeclared(f"probe {probe!r} uses {template!r}, but was called without that argument") from None
    return names + list(PROBES[probe].swaps) + [str(name) for name in (args.get("swaps") or {})]


def lent_helpers(probe: str, args: dict[str, Any]) -> set[str]:
    """The given helpers a probe call swaps in, each for a name the manifest gives it to."""
    if probe not in PROBES:
        raise Undeclared(f"no probe named {probe!r}")
    swaps = {**PROBES[probe].swaps, **(args.get("swaps") or {})}
    wrong = [f"{name} -> {helper}" for name, helper in swaps.items() if GIVEN.get(name) != helper]
    if wrong:
        raise Undeclared(f"probe {probe!r} swaps {', '.join(wrong)}, which [given] in grader/tasks.toml does not pair")
    return set(swaps.values())


def check_declared(task: str, probe: str, args: dict[str, Any]) -> None:
    undeclared = [name for name in names_used(probe, args) if not is_declared(name, task)]
    if undeclared:
        raise Undeclared(f"a check of task {task} uses {', '.join(undeclared)} (through probe {probe!r}), which "
                         f"the manifest (grader/tasks.toml) does not declare for task {task}: add it to its calls or swaps")
