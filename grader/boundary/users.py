"""The learner's own user (``Settings.learner_user``, given on the platforms): every
process running as that user is the learner's, so ending them all ends whatever it
started, however it detached itself, with or without control groups. Without control
groups, counting its processes (or, without a user of its own, its sessions') tells a
process bomb."""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import signal
import time


def end_processes_of(user: int) -> None:
    """End every live process of ``user`` (its zombies are the reaper's)."""
    for _ in range(500):
        found = [pid for pid, (uid, state) in processes().items() if uid == user and state != "Z"]
        if not found:
            return
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def processes() -> dict[int, tuple[int, str]]:
    """Every process's real user id and state, from /proc."""
    seen = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError, TypeError):
            text = pathlib.Path(f"/proc/{entry}/status").read_text()
            uid, state = re.search(r"^Uid:\s+(\d+)", text, re.M), re.search(r"^State:\s+(\S)", text, re.M)
            seen[int(entry)] = (int(uid[1]), state[1])   # type: ignore[index]
    return seen


def live_processes(user: int | None, sessions: set[int]) -> int:
    """How many live processes run as ``user``, or without one, in ``sessions``."""
    if user is not None:
        return sum(uid == user and state != "Z" for uid, state in processes().values())
    count = 0
    for entry in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError, IndexError, ValueError), open(f"/proc/{entry}/stat", "rb") as stat:
            count += int(stat.read().rsplit(b")", 1)[1].split()[3]) in sessions
    return count
