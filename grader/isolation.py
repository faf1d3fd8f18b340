"""Isolation: the cage a learner's code runs in, and the rules it confines itself with.

Two halves, side by side so that one reader sees the whole boundary:

* ``Cage`` (used by the trusted grader): a scratch folder that is the only place the
  learner's process may write (a size-limited tmpfs when the grader runs as root), and,
  where the system allows it (root, cgroup v1), control groups that bound the memory
  and the number of processes of the *whole* process tree and let the grader end every
  process the learner started, however it detached itself. Without control groups, memory
  is bounded per process and the session's processes are ended instead.
* ``confine_self`` (run inside the learner's process by ``worker.py`` before it imports
  the learner's package): Linux Landlock (reads only of the Python installation and the
  learner's own package copy; writes only to the scratch folder and /dev/null; no TCP; no
  signals or abstract sockets beyond its own domain), a seccomp filter (no chmod, chown,
  utime, xattrs, mount, ptrace, namespaces, io_uring, file handles, or non-Unix sockets),
  and no capabilities, even after exec. None of it can be lifted from inside.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pathlib
import platform
import shutil
import signal
import struct
import sys
import tempfile
import time

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
CGROUP_ROOT = pathlib.Path("/sys/fs/cgroup")


# ---- the trusted side: a cage per learner process ------------------------------------
class Cage:
    """Where one learner's code runs: ``popen`` starts a process inside it, ``sweep``
    ends everything running inside it, ``close`` removes it."""

    def __init__(self, memory_mb: int, processes: int, disk_mb: int) -> None:
        self.memory_mb, self.processes, self.disk_mb = memory_mb, processes, disk_mb
        self.scratch = pathlib.Path(tempfile.mkdtemp(prefix="minitorch-cage-"))
        self.mounted = _mount_tmpfs(self.scratch, disk_mb)
        self.groups = _make_cgroups(self.scratch.name, memory_mb, processes)
        self.sessions: list[int] = []

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

    def members(self) -> set[int]:
        found: set[int] = set()
        for group in self.groups.values():
            with contextlib.suppress(OSError):
                found |= {int(p) for p in (group / "cgroup.procs").read_text().split()}
        return found

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
        _reap_orphans(set(self.sessions))

    def close(self) -> None:
        self.sweep()
        for group in self.groups.values():
            for _ in range(100):
                try:
                    group.rmdir()
                    break
                except OSError:
                    time.sleep(0.01)
        if self.mounted:
            _libc.umount2(str(self.scratch).encode(), 2)  # MNT_DETACH
        shutil.rmtree(self.scratch, ignore_errors=True)


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


def _make_cgroups(name: str, memory_mb: int, processes: int) -> dict[str, pathlib.Path]:
    """Control groups (controller -> folder) that bound the memory and the processes of a
    whole tree and freeze it to end it, or {} where the system does not let this process
    make them (not root, no cgroup v1 hierarchy, read-only)."""
    if os.geteuid() != 0:
        return {}
    made: dict[str, pathlib.Path] = {}
    settings = {"memory": {"memory.limit_in_bytes": memory_mb * 2**20, "memory.swappiness": 0},
                "pids": {"pids.max": processes}, "freezer": {}}
    try:
        for controller, values in settings.items():
            base = _own_cgroup(controller)
            if base is None or not base.is_dir():
                raise OSError(f"no {controller} cgroup")
            made[controller] = base / f"minitorch-{name}"
            made[controller].mkdir()
            for key, value in values.items():
                with contextlib.suppress(OSError):
                    (made[controller] / key).write_text(str(value))
        return made
    except OSError:
        for group in made.values():
            with contextlib.suppress(OSError):
                group.rmdir()
        return {}


# ---- the learner's side: confining oneself -------------------------------------------
_FS = {name: 1 << bit for bit, name in enumerate(
    ["execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file", "make_char",
     "make_dir", "make_reg", "make_sock", "make_fifo", "make_block", "make_sym", "refer", "truncate",
     "ioctl_dev"])}
_ABI_FS_BITS = {1: 13, 2: 14, 3: 15, 4: 15, 5: 16}  # how many of _FS each ABI handles
_READ = _FS["execute"] | _FS["read_file"] | _FS["read_dir"]
_FILE_RIGHTS = _FS["execute"] | _FS["write_file"] | _FS["read_file"] | _FS["truncate"] | _FS["ioctl_dev"]


def landlock_abi() -> int:
    """The Landlock ABI version of the running kernel, or 0 without Landlock."""
    if not sys.platform.startswith("linux"):
        return 0
    return max(int(_libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))), 0)


def _landlock(readable: list[str], writable: list[str], files: dict[str, int]) -> int:
    abi = landlock_abi()
    if abi < 1:
        return 0
    handled = sum(list(_FS.values())[:_ABI_FS_BITS.get(abi, 16)])
    net = 3 if abi >= 4 else 0            # bind and connect TCP: none allowed
    scoped = 3 if abi >= 6 else 0         # abstract unix sockets and signals: own domain only
    attr = struct.pack("QQQ", handled, net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = _libc.syscall(444, ctypes.c_char_p(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        rules = [(p, _READ) for p in readable] + [(p, handled) for p in writable] + list(files.items())
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            rights &= handled
            if not os.path.isdir(path):
                rights &= _FILE_RIGHTS
            rule = struct.pack("=Qi", rights, fd)
            result = _libc.syscall(445, ctypes.c_int(ruleset), ctypes.c_int(1), ctypes.c_char_p(rule),
                                   ctypes.c_uint32(0))
            os.close(fd)
            if result != 0:
                raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
        if _libc.syscall(446, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


# x86_64 system calls that a learner's code never needs and that could reach past the
# Landlock rules (metadata, mounts, other processes' memory, namespaces, file handles).
_DENIED_X86_64 = [90, 91, 92, 93, 94, 260, 268, 452, 132, 235, 261, 280, 188, 189, 190, 197, 198, 199,
                  463, 466, 165, 166, 155, 161, 101, 310, 311, 272, 308, 321, 298, 250, 248, 249, 246, 320,
                  175, 313, 176, 169, 167, 168, 164, 227, 170, 171, 425, 426, 427, 133, 259, 428, 429, 430,
                  431, 432, 433, 442, 323, 163, 179, 303, 304, 135]
_SOCKET_X86_64 = 41


def _seccomp() -> bool:
    """Refuse (EPERM) the system calls above, and sockets other than Unix ones."""
    if platform.machine() != "x86_64":
        return False
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    program = [(ld, 0, 0, 4), (jeq, 1, 0, 0xC000003E), (ret, 0, 0, deny), (ld, 0, 0, 0)]
    checks = [(jge, 0x40000000)] + [(jeq, nr) for nr in _DENIED_X86_64]
    tail = [(jeq, 0, 3, _SOCKET_X86_64), (ld, 0, 0, 16), (jeq, 1, 0, 1), (ret, 0, 0, deny),
            (ret, 0, 0, allow), (ret, 0, 0, deny)]
    for n, (code, k) in enumerate(checks):
        to_deny = len(checks) - n - 1 + len(tail) - 1  # jump to the final deny
        program.append((code, to_deny, 0, k))
    program += tail
    filters = b"".join(struct.pack("HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(filters)
    fprog = struct.pack("HxxxxxxQ", len(program), ctypes.addressof(buffer))
    if _libc.prctl(22, 2, ctypes.c_char_p(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        raise OSError(ctypes.get_errno(), "seccomp")
    return True


def _drop_capabilities() -> None:
    """No capabilities now, and none regained by exec (for a process running as root)."""
    if os.geteuid() == 0:
        for cap in range(64):
            _libc.prctl(24, cap, 0, 0, 0)                  # PR_CAPBSET_DROP
        _libc.prctl(28, 0x2F, 0, 0, 0)                     # PR_SET_SECUREBITS: noroot, locked
    _libc.prctl(47, 4, 0, 0, 0)                            # PR_CAP_AMBIENT_CLEAR_ALL
    header = struct.pack("Ii", 0x20080522, 0)
    _libc.capset(ctypes.c_char_p(header), ctypes.c_char_p(bytes(24)))


def confine_self(readable: list[str], writable: list[str]) -> dict[str, object]:
    """Confine this process and its future children for good. Returns what was applied
    (nothing on a system other than Linux)."""
    if not sys.platform.startswith("linux"):
        return {"landlock": 0, "seccomp": False}
    if _libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "no_new_privs")
    files = {"/dev/null": _FILE_RIGHTS, "/dev/urandom": _FS["read_file"], "/etc/ld.so.cache": _FS["read_file"]}
    abi = _landlock(readable, writable, files)
    _drop_capabilities()
    return {"landlock": abi, "seccomp": _seccomp()}


def python_readable() -> list[str]:
    """What a Python process needs to read: its installation, and the system libraries."""
    places = {sys.prefix, sys.base_prefix, sys.exec_prefix, *(p for p in sys.path if p and os.path.isdir(p))}
    places |= {"/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib"}
    return sorted(p for p in places if os.path.exists(p))
