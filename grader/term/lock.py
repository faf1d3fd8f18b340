"""One run at a time in an output folder: ``autograde`` and ``merge`` hold ``term.lock``
while they run. The lock is the kernel's (``flock``), so a run that is killed, even by
SIGKILL, lets go of it at once; the file's text names the run holding it (pid, host,
start time), for the message of a run refused, and is emptied when the run ends.

A lock whose text is left (the run was killed) is taken over: on this host when its pid
is not running (or runs another program since), always announced. A run of another host
is never presumed dead: a shared folder may not pass ``flock`` between machines, so the
message says to remove the file by hand once that run is known to be gone."""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import pathlib
import socket

import grader.files as files


class Busy(RuntimeError):
    """Another run holds the output folder."""


def _started(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (ticks since boot), or None when it is not running."""
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _describe(holder: dict) -> str:
    return (f"pid {holder.get('pid')} on {holder.get('host')}, started {holder.get('started')} "
            f"({holder.get('command', 'a run')})")


class Lock:
    def __init__(self, out: pathlib.Path, command: str) -> None:
        self.path, self.command, self.fd = out / files.LOCK, command, -1
        self.taken_over: dict | None = None   # the text of a run killed while it held the folder

    def __enter__(self) -> Lock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def acquire(self) -> None:
        """Hold the folder, or raise ``Busy`` naming the run that does (nothing written)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            raise Busy(f"{self.path.parent} is in use by another run: {_describe(holder) if holder else 'starting'}; "
                       "nothing was changed: run again when it has finished") from None
        holder = _read(fd)
        if holder and holder.get("host") != socket.gethostname():
            os.close(fd)
            raise Busy(f"{self.path.parent} was held by a run of another host, {_describe(holder)}, which did not "
                       f"let go of it; if that run is gone, remove {self.path} and run again (nothing was changed)")
        pid = holder.get("pid") if holder else None
        if isinstance(pid, int) and pid != os.getpid() and _started(pid) == holder.get("ticks") \
                and _started(pid) is not None:
            os.close(fd)   # running, though the kernel's lock is free (a folder shared oddly): never taken from it
            raise Busy(f"{self.path.parent} is in use by another run: {_describe(holder)}; nothing was changed")
        self.taken_over, self.fd = holder or None, fd
        me = {"pid": os.getpid(), "ticks": _started(os.getpid()), "host": socket.gethostname(),
              "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "command": self.command}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(me).encode(), 0)
        os.fsync(fd)

    def release(self) -> None:
        if self.fd >= 0:
            os.ftruncate(self.fd, 0)
            os.close(self.fd)   # the kernel lets go of the lock with it
            self.fd = -1

    def note(self) -> str | None:
        """The line announcing a lock taken over from a run that was killed."""
        if not self.taken_over:
            return None
        return (f"the last run into this folder, {_describe(self.taken_over)}, was cut short; its lock is taken "
                "over and its record completed")


def _read(fd: int) -> dict:
    try:
        text = os.pread(fd, 4096, 0)
        data = json.loads(text) if text.strip() else {}
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {"pid": "?", "host": "?", "started": "?", "command": "an unreadable lock file"}
