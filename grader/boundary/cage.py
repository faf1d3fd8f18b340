"""Isolation, the trusted side: the cage a learner's process runs in.

A ``Cage`` gives the learner's process a scratch folder that is the only place it may
write (a size-limited tmpfs when the grader runs as root) and, where the system allows it
(root, cgroup v1), control groups that bound the memory, the number of processes and the
CPU (one core) of the *whole* process tree and let the grader end every process the
learner started, however it detached itself. Without control groups, memory is bounded per process and the session's
processes are ended instead. A grader that is killed outright (SIGKILL, a machine's
out-of-memory killer) cannot close its cage; the next cage made on that machine finds it
by the dead grader's process id in its name and clears it, ending whatever still runs in
it. The learner's side of the boundary, the rules the process
confines itself with before it imports the learner's package, is ``confinement.py``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pathlib
import shutil
import signal
import tempfile
import time

from grader.boundary.users import end_processes_of, live_processes

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
CGROUP_ROOT = pathlib.Path("/sys/fs/cgroup")
PREFIX = "minitorch-cage-"
CONTROLLERS = ("memory", "pids", "freezer", "cpu")
OPTIONAL = ("cpu",)  # the cage works without it


class Cage:
    """Where one learner's code runs: ``popen`` starts a process inside it, ``sweep``
    ends everything running inside it, ``close`` removes it. With ``user`` (grader/platforms/)
    the learner's process becomes that user, and ``sweep`` ends every process of that user."""

    user: int | None = None

    def __init__(self, memory_mb: int, processes: int, disk_mb: int, user: int | None = None) -> None:
        self.memory_mb, self.processes, self.disk_mb, self.user = memory_mb, processes, disk_mb, user
        clear_abandoned()
        self.scratch = pathlib.Path(tempfile.mkdtemp(prefix=f"{PREFIX}{_owner()}-"))
        self.mounted = _mount_tmpfs(self.scratch, disk_mb)
        if user is not None:
            os.chown(self.scratch, user, user)
        self.groups = _make_cgroups(self.scratch.name, memory_mb, processes)
        self.sessions: list[int] = []

    def __enter__(self) -> Cage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def popen(self, argv: list[str], **kwargs):
        import subprocess
        process = subprocess.Popen(argv, preexec_fn=self._enter, start_new_session=True, **kwargs)
        self.sessions.append(process.pid)
        return process

    def _enter(self) -> None:  # in the child, between fork and exec
        for group in self.groups.values():
            (group / "cgroup.procs").write_text(str(os.getpid()))
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        limit = self.disk_mb * 2**20
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        if "memory" not in self.groups:
            memory = self.memory_mb * 2**20
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if self.user is not None:  # its processes, counted once it is that user; the first to go out of memory
            resource.setrlimit(resource.RLIMIT_NPROC, (self.processes, self.processes))
            with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as adjust:
                adjust.write("1000")

    def members(self) -> set[int]:
        found: set[int] = set()
        for group in self.groups.values():
            with contextlib.suppress(OSError):
                found |= {int(p) for p in (group / "cgroup.procs").read_text().split()}
        return found

    def crowded(self) -> bool:
        """Whether the learner's tree reached its process limit (a bomb): a fork its control group
        refused, or as many processes as allowed (its user's or its sessions', without groups)."""
        if (pids := self.groups.get("pids")) is None:
            return live_processes(self.user, set(self.sessions)) >= self.processes
        with contextlib.suppress(OSError, ValueError), open(f"{pids}/pids.events", "rb", 0) as e:  # after each answer
            with open(f"{pids}/pids.current", "rb", 0) as c:
                return int(dict(ln.split() for ln in e.read().splitlines()).get(b"max", 0)) > 0 or int(c.read()) >= self.processes
        return False

    def sweep(self) -> None:
        """End every process in the cage, including ones that left its session."""
        for pid in self.sessions:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
        freezer = self.groups.get("freezer")
        for _ in range(200):
            members = self.members()
            if not members:
                break
            if freezer is not None:
                with contextlib.suppress(OSError):
                    (freezer / "freezer.state").write_text("FROZEN")
            for pid in members:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            if freezer is not None:
                with contextlib.suppress(OSError):
                    (freezer / "freezer.state").write_text("THAWED")
            time.sleep(0.01)
        if self.user is not None:
            end_processes_of(self.user)
        _reap_orphans(set(self.sessions))

    def close(self) -> None:
        self.sweep()
        _remove(self.scratch, self.groups, self.mounted)


def _remove(scratch: pathlib.Path, groups: dict[str, pathlib.Path], mounted: bool) -> None:
    for group in groups.values():
        for _ in range(100):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.01)
    if mounted:
        _libc.umount2(str(scratch).encode(), 2)  # MNT_DETACH
    shutil.rmtree(scratch, ignore_errors=True)


def clear_abandoned(folder: pathlib.Path | None = None) -> list[pathlib.Path]:
    """Clear the cages of graders that died without closing them: end every process still
    in their control groups, remove the groups, unmount and delete the scratch folders.
    Returns the scratch folders cleared. A cage whose grader still runs is left alone."""
    cleared = []
    namespace = _owner().split(".")[0]
    for scratch in pathlib.Path(folder or tempfile.gettempdir()).glob(f"{PREFIX}{namespace}.*-*"):
        owner = scratch.name[len(PREFIX):].split("-", 1)[0].split(".")[1]
        if not owner.isdigit() or _alive(int(owner)):
            continue
        groups = {c: g for c in CONTROLLERS if (g := _group_of(c, scratch.name)) is not None and g.is_dir()}
        cage = Cage.__new__(Cage)  # the abandoned cage, rebuilt from what is on disk
        cage.scratch, cage.groups, cage.sessions = scratch, groups, []
        cage.sweep()
        _remove(scratch, groups, os.path.ismount(scratch))
        cleared.append(scratch)
    return cleared


def _owner() -> str:
    """This grader's place in a cage's name: its PID namespace and process id. A cage is
    only judged abandoned by a process that sees the same process ids (another container
    sharing the temporary folder does not)."""
    try:
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        namespace = 0
    return f"{namespace}.{os.getpid()}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def _reap_orphans(keep: set[int]) -> None:
    """Collect the exit status of dead processes that were handed to this one (it is a
    subreaper when grading a class), so that they do not linger as zombies; the
    processes in ``keep`` are left to their own ``wait``."""
    me = str(os.getpid())
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit() or int(entry) in keep:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == b"Z" and fields[1].decode() == me:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(int(entry), os.WNOHANG)


def _mount_tmpfs(folder: pathlib.Path, size_mb: int) -> bool:
    if os.geteuid() != 0:
        return False
    options = f"size={size_mb}m,mode=0700,nr_inodes=4096".encode()
    flags = 2 | 4 | 8  # MS_NOSUID | MS_NODEV | MS_NOEXEC
    return _libc.mount(b"tmpfs", str(folder).encode(), b"tmpfs", flags, options) == 0


def _own_cgroup(controller: str) -> pathlib.Path | None:
    """This process's control group in the v1 hierarchy of ``controller``."""
    with contextlib.suppress(OSError):
        for line in pathlib.Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            if controller in names.split(","):
                return CGROUP_ROOT / controller / path.lstrip("/")
    return None


def _group_of(controller: str, name: str) -> pathlib.Path | None:
    base = _own_cgroup(controller)
    return None if base is None else base / f"minitorch-{name}"


def _make_cgroups(name: str, memory_mb: int, processes: int) -> dict[str, pathlib.Path]:
    """Control groups (controller -> folder) that bound the memory and the processes of a
    whole tree and freeze it to end it, or {} where the system does not let this process
    make them (not root, no cgroup v1 hierarchy, read-only)."""
    if os.geteuid() != 0:
        return {}
    made: dict[str, pathlib.Path] = {}
    settings = {"memory": {"memory.limit_in_bytes": memory_mb * 2**20, "memory.swappiness": 0},
                "pids": {"pids.max": processes}, "freezer": {},
                # one core for the whole tree, however many processes it starts: a learner
                # spinning on every core would slow the learner graded beside it
                "cpu": {"cpu.cfs_period_us": 100_000, "cpu.cfs_quota_us": 100_000}}
    try:
        for controller, values in settings.items():
            group = _group_of(controller, name)
            if group is None or not group.parent.is_dir():
                if controller in OPTIONAL:
                    continue
                raise OSError(f"no {controller} cgroup")
            made[controller] = group
            group.mkdir()
            for key, value in values.items():
                with contextlib.suppress(OSError):
                    (made[controller] / key).write_text(str(value))
        return made
    except OSError:
        for group in made.values():
            with contextlib.suppress(OSError):
                group.rmdir()
        return {}
