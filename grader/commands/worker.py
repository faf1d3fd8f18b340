"""``python -m grader worker --broker URL``: grade hand-ins from a queue until stopped."""

from __future__ import annotations

import sys

from grader.settings import Settings


def main(*, broker: str, concurrency: int, lease: float | None = None, name: str | None = None) -> int:
    from grader.boundary.confinement import landlock_abi
    from grader.queue.worker import lease_for, run_worker
    if landlock_abi() < 1:
        print("warning: this system has no Linux Landlock, so the code being graded is not confined; run workers "
              "only where it is", file=sys.stderr)
    run_worker(broker, concurrency, lease or lease_for(Settings()), name)
    return 0
