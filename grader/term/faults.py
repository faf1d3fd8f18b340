"""Fault injection for the term's tests: with ``MINITORCH_KILL_AT=N`` in the environment,
the run kills itself (SIGKILL: nothing is flushed or cleaned up) at the Nth of the points
below that it reaches, each just before or in the middle of a write to the term's record.
``MINITORCH_KILL_LOG=FILE`` appends the name of each point reached, so a test knows how many
a run has and what was being written when it died. Without them, ``point`` does nothing."""

from __future__ import annotations

import multiprocessing
import os
import signal

_reached = [0]


def point(name: str) -> None:
    at, trail = os.environ.get("MINITORCH_KILL_AT"), os.environ.get("MINITORCH_KILL_LOG")
    if not at and not trail or multiprocessing.parent_process() is not None:   # the run's own process only
        return
    _reached[0] += 1
    if trail:
        with open(trail, "a", encoding="utf-8") as file:
            file.write(f"{_reached[0]} {name}\n")
    if at and _reached[0] == int(at):
        os.kill(os.getpid(), signal.SIGKILL)
