"""Isolation, the learner's side: the rules a learner's process confines itself with.

``learner/process.py`` calls ``confine_self`` inside the learner's process before it imports the
learner's package: Linux Landlock (reads only of the Python installation and the learner's
own package copy; writes only to the scratch folder and /dev/null; no TCP; no signals or
abstract sockets beyond its own domain), a seccomp filter (no chmod, chown, utime, xattrs,
mount, ptrace, namespaces, io_uring, file handles, or non-Unix sockets), and no
capabilities, even after exec. None of it can be lifted from inside. The trusted side, the
cage around the process, is ``cage.py``.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

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


def confine_self(readable: list[str], writable: list[str], user: int | None = None) -> dict[str, object]:
    """Confine this process and its future children for good. Returns what was applied
    (nothing on a system other than Linux). With ``user`` (a process started as root), it
    first becomes that user and group for good: the file permissions of a platform's
    container then keep it from the grader's files even where Landlock is missing."""
    if not sys.platform.startswith("linux"):
        return {"landlock": 0, "seccomp": False}
    if _libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "no_new_privs")
    if user is not None:
        os.setgroups([])
        os.setresgid(user, user, user)
        os.setresuid(user, user, user)
    files = {"/dev/null": _FILE_RIGHTS, "/dev/urandom": _FS["read_file"], "/etc/ld.so.cache": _FS["read_file"]}
    abi = _landlock(readable, writable, files)
    _drop_capabilities()
    return {"landlock": abi, "seccomp": _seccomp(), "user": user}


def python_readable() -> list[str]:
    """What a Python process needs to read: its installation, and the system libraries."""
    places = {sys.prefix, sys.base_prefix, sys.exec_prefix, *(p for p in sys.path if p and os.path.isdir(p))}
    places |= {"/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib"}
    return sorted(p for p in places if os.path.exists(p))
