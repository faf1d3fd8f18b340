"""Confine a process that runs a learner's code: bounded memory, and no writing to files
outside the folders it is given (Linux Landlock, kernel 5.13 or newer, no privileges
needed). Reading stays allowed everywhere: the kernel needs Python, NumPy and its own
package.

A confined process and everything it starts can write only below ``writable`` (its own
stage folder and a scratch folder) and to ``/dev`` (``/dev/null``, terminals); it cannot
touch the grader's checks, the gradebook, other learners' folders or the submissions.
Where the kernel allows it (Landlock ABI 6, Linux 6.12), it also cannot send signals to
processes outside its confinement, such as the grader that runs it. The rules cannot be
lifted from inside. Without Landlock nothing is confined but memory.
"""

from __future__ import annotations

import ctypes
import os
import sys

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # syscall numbers (same on x86_64 and arm64)
_VERSION = 1          # LANDLOCK_CREATE_RULESET_VERSION
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# The write-like rights (bits of handled_access_fs); reading and executing stay unhandled.
_WRITE_FILE, _REMOVE_DIR, _REMOVE_FILE = 1 << 1, 1 << 4, 1 << 5
_MAKE = sum(1 << bit for bit in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
_REFER, _TRUNCATE = 1 << 13, 1 << 14          # ABI 2, ABI 3
_SCOPE_SIGNAL = 1 << 1                         # ABI 6: signals only within the domain


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def landlock_abi() -> int:
    """The Landlock ABI version of the running kernel, or 0 without Landlock."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        version = _libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def restrict_writes(writable: list[str]) -> bool:
    """Allow this process (and its future children) to write only below ``writable`` and
    ``/dev``, and to signal only processes confined with it. Returns False, changing
    nothing, when the kernel has no Landlock."""
    abi = landlock_abi()
    if abi < 1:
        return False
    libc = _libc()
    handled = _WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE
    if abi >= 2:
        handled |= _REFER
    if abi >= 3:
        handled |= _TRUNCATE
    # struct landlock_ruleset_attr: handled_access_fs, handled_access_net (ABI 4), scoped (ABI 6)
    attr = (ctypes.c_uint64 * 3)(handled, 0, _SCOPE_SIGNAL if abi >= 6 else 0)
    size = 24 if abi >= 6 else 8
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for folder in [*writable, "/dev"]:
            if not os.path.isdir(folder):
                continue
            fd = os.open(folder, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneath(handled, fd)
                if libc.syscall(_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                                ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {folder}")
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if libc.syscall(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return True


def limit_memory(megabytes: int) -> None:
    import resource
    limit = int(megabytes) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def limit_cpu(seconds: int) -> None:
    """CPU time per process (each child has its own): whatever the learner's code leaves
    running after its kernel is gone ends by itself."""
    import resource
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))


def confine(environ=os.environ) -> None:
    """Apply what the grader asked for in the environment: ``MINITORCH_MEMORY_LIMIT_MB``,
    ``MINITORCH_CPU_SECONDS`` and ``MINITORCH_WRITABLE`` (folders separated by os.pathsep)."""
    if environ.get("MINITORCH_MEMORY_LIMIT_MB"):
        limit_memory(int(environ["MINITORCH_MEMORY_LIMIT_MB"]))
    if environ.get("MINITORCH_CPU_SECONDS"):
        limit_cpu(int(environ["MINITORCH_CPU_SECONDS"]))
    if environ.get("MINITORCH_WRITABLE"):
        restrict_writes([p for p in environ["MINITORCH_WRITABLE"].split(os.pathsep) if p])
