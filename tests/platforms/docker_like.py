"""Run a command as root the way a default Docker container runs it, where the platforms
grade: only Docker's default capabilities (no CAP_SYS_ADMIN: no mounts, no tmpfs) and a
seccomp filter that refuses Landlock (ENOSYS, as Docker's older default profiles and
kernels without Landlock do). Control groups are hidden by the caller (a tmpfs over
/sys/fs/cgroup, as a container without its own writable cgroup tree sees it).

    python docker_like.py COMMAND [ARG...]
"""

import ctypes
import os
import platform
import struct
import sys

# Docker's default capability set (moby's defaults): everything else is dropped.
DOCKER_CAPS = {0, 1, 3, 4, 5, 6, 7, 8, 10, 13, 18, 27, 29, 31}
LANDLOCK = (444, 445, 446)   # landlock_create_ruleset, _add_rule, _restrict_self (x86_64)
ENOSYS = 38


def refuse_landlock(libc) -> None:
    ld, jeq, ret = 0x20, 0x15, 0x06
    allow, refuse = 0x7FFF0000, 0x00050000 | ENOSYS
    program = [(ld, 0, 0, 4), (jeq, 0, 4, 0xC000003E), (ld, 0, 0, 0),
               (jeq, 3, 0, LANDLOCK[0]), (jeq, 2, 0, LANDLOCK[1]), (jeq, 1, 0, LANDLOCK[2]),
               (ret, 0, 0, allow), (ret, 0, 0, refuse)]
    filters = b"".join(struct.pack("HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(filters)
    fprog = struct.pack("HxxxxxxQ", len(program), ctypes.addressof(buffer))
    if libc.prctl(22, 2, ctypes.c_char_p(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        raise OSError(ctypes.get_errno(), "seccomp")


def main() -> None:
    assert platform.machine() == "x86_64" and os.geteuid() == 0, "needs root on x86_64"
    libc = ctypes.CDLL(None, use_errno=True)
    refuse_landlock(libc)
    for cap in range(64):
        if cap not in DOCKER_CAPS:
            libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP: root's capabilities after exec are the rest
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
