"""Grading one hand-in inside a platform's container (Gradescope, PrairieLearn).

There the grader runs as root next to the learner's code, with the hidden checks in a
folder of the container, and the container may lack Landlock and control groups. The
trusted side here, before any learner code runs:

1. closes the platform's folders (the grader's source, the upload, the job's data) to
   every user but root, and keeps its own temporary files in a folder only root writes;
2. gives the learner's code a user of its own (``Settings.learner_user``) when it can: that
   user cannot read those folders, write the results folder or signal the grader, with or
   without Landlock, and every process of that user is ended whenever its process is
   replaced and when grading ends;
3. reads the hand-in and grades it with ``read_hand_in`` and ``grade_stages``, the path of
   ``python -m grader check``, with check's limits, so parts, points and reasons are its;
4. ends every process of the learner's user once more; only then does the platform's
   module write results.json (``write_results``), whole, over anything found there.

Its log (the container's output, for the instructor) starts with the grader's version (a
digest of its files), the Python it runs on and which guarantees hold here.
"""

from __future__ import annotations

import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from grader.boundary.cage import Cage
from grader.boundary.confinement import landlock_abi
from grader.boundary.users import end_processes_of
from grader.grading.hand_ins import become_subreaper, grade_stages
from grader.intake.hand_in import MAX_FILE, HandIn, read_hand_in
from grader.platforms import shipping
from grader.results import LearnerResult
from grader.settings import Settings
from grader.tasks import STAGES

LEARNER = "you"   # as `check` names the learner: its table and reasons read the same


def learner_user() -> int | None:
    """A user id for the learner's code, when this process (root) can become it: one of
    60000-64999, from this grader's process id, so graders side by side differ."""
    if os.geteuid() != 0:
        return None
    user = 60000 + os.getpid() % 5000
    try:
        done = subprocess.run([sys.executable, "-I", "-c", ""], user=user, group=user, extra_groups=[], cwd="/",
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=60, env={})
    except (OSError, subprocess.SubprocessError):
        return None
    return user if done.returncode == 0 else None


def lock_down(closed: dict[pathlib.Path, int], results: pathlib.Path) -> list[str]:
    """Set the modes of ``closed`` (path -> mode); make the results folder, writable by
    root only. Returns what could not be done."""
    failed = []
    for path, mode in closed.items():
        try:
            if path.exists():
                os.chmod(path, mode)
        except OSError as error:
            failed.append(f"{path}: {error.strerror}")
    try:
        results.mkdir(parents=True, exist_ok=True)
        os.chmod(results, 0o755)
    except OSError as error:
        failed.append(f"{results}: {error.strerror}")
    return failed


def guarantees(settings: Settings, closed: list[pathlib.Path], failed: list[str]) -> list[str]:
    """What keeps the learner's code from the checks and the results here, in words."""
    abi = landlock_abi()
    with Cage(settings.memory_mb, settings.processes, settings.disk_mb) as probe:
        groups, tmpfs = sorted(probe.groups), probe.mounted
    user = settings.learner_user
    names = ", ".join(str(p) for p in closed)
    lines = [
        f"own user: holds: the learner's code runs as user {user}, which cannot read {names}, write the results "
        "folder or signal the grader; every process of that user is ended when grading ends" if user is not None
        else "own user: MISSING: the grader does not run as root or cannot change user",
        f"Landlock: holds (ABI {abi}): the learner's code reads only Python and its own package copy and writes "
        "only its scratch folder" if abi else "Landlock: MISSING in this container's kernel or seccomp profile",
        "seccomp: holds: no chmod, mounts, ptrace, namespaces or network sockets" if platform.machine() == "x86_64"
        else f"seccomp: MISSING on {platform.machine()}",
        f"control groups: holds ({', '.join(groups)}): memory and processes bounded for the whole tree" if groups
        else "control groups: MISSING: memory is bounded per process, processes by number for the learner's user",
        f"scratch: a {settings.disk_mb} MiB tmpfs" if tmpfs else f"scratch: a plain folder, each file at most "
        f"{settings.disk_mb} MiB",
    ]
    lines += [f"could not close: {f}" for f in failed]
    if user is None and not abi:
        lines.append("WARNING: neither an own user nor Landlock: here the learner's code could read the checks and "
                     "write results.json; grade only work you trust in this container")
    return lines


def find_hand_in(upload: pathlib.Path, staging: pathlib.Path) -> tuple[pathlib.Path | None, list[str]]:
    """What to grade in the platform's upload folder: a .zip (handin.zip first), the folder
    itself when it holds more than loose files, or loose package files (``__init__.py``
    and the rest, uploaded one by one) put into a package ``minitorch/``. None: nothing."""
    try:
        entries = sorted(os.scandir(upload), key=lambda e: e.name)
    except OSError:
        return upload, []
    if not entries:
        return None, []
    zips = [e for e in entries if e.name.lower().endswith(".zip") and e.is_file(follow_symlinks=False)]
    if zips and not any(e.is_dir(follow_symlinks=False) and e.name == "minitorch" for e in entries):
        chosen = next((e for e in zips if e.name == "handin.zip"), zips[0])
        others = [e.name for e in zips if e is not chosen]
        return pathlib.Path(chosen.path), [f"graded {chosen.name}; not graded: {', '.join(others)}"] if others else []
    loose = [e for e in entries if e.name.endswith(".py") and e.is_file(follow_symlinks=False)]
    if any(e.name == "__init__.py" for e in loose) and not any(e.is_dir(follow_symlinks=False) for e in entries):
        package = staging / "uploaded" / "minitorch"
        package.mkdir(parents=True)
        for entry in loose:
            fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as source:
                (package / entry.name).write_bytes(source.read(MAX_FILE + 1))
        return package.parent, [f"graded the {len(loose)} uploaded .py file(s) as the package minitorch/ (files in "
                                "its subfolders, such as minitorch/nn/, cannot be uploaded one by one: upload the "
                                "handin.zip that `make handin` writes)"]
    return upload, []


def grade_upload(upload: pathlib.Path, closed: dict[pathlib.Path, int], results: pathlib.Path,
                 stages: list[str] | None = None, log: Callable[[str], None] = print) -> tuple[LearnerResult, str | None]:
    """Grade what was uploaded to ``upload`` (``stages``: all by default) behind the
    boundary above. Returns the result (every part of every stage, as ``check``) and, when
    nothing could be graded, why."""
    start = time.perf_counter()
    os.umask(0o022)
    become_subreaper()
    failed = lock_down(closed, results)
    private = pathlib.Path(tempfile.mkdtemp(prefix="minitorch-grading-"))
    private.chmod(0o711)   # the learner's user may pass through to its package copy and scratch, not list
    tempfile.tempdir = str(private)
    try:
        settings = Settings(learner_user=learner_user())
        log(f"minitorch grader: version {shipping.digest()} (a digest of its files; `python -m grader gradescope` "
            "and `prairielearn` print the one they wrote)")
        log(f"minitorch grader: Python {platform.python_version()} ({sys.version_info.releaselevel}) at "
            f"{sys.executable}, {platform.platform()}")
        for line in guarantees(settings, [p for p, mode in closed.items() if mode & 0o007 == 0], failed):
            log(f"minitorch grader: {line}")
        found, notes = find_hand_in(upload, private)
        if found is None:
            nothing = "nothing was uploaded: upload the handin.zip that `make handin` writes"
            hand_in = HandIn(LEARNER, problems=[nothing], broken=nothing)
        else:
            hand_in = read_hand_in(found, LEARNER, private / "hand-in")
            at = 1 if hand_in.broken else 0   # after why nothing could be graded, if so
            hand_in.problems[at:at] = notes
        if stages is not None:
            hand_in.packages = {s: p for s, p in hand_in.packages.items() if s in stages}
        graded = list(stages or STAGES)

        def progress(stage: str) -> None:
            if stage in graded:
                log(f"minitorch grader: stage {stage} ({STAGES[stage]})")
        result = grade_stages(hand_in, settings, progress)
        if settings.learner_user is not None:
            end_processes_of(settings.learner_user)
        got, most = (sum(part) for part in zip(*(result.stage_score(s) for s in graded)))
        log(f"minitorch grader: graded in {time.perf_counter() - start:.1f} s: {got:g} / {most:g}"
            + (f" ({hand_in.broken})" if hand_in.broken else ""))
        return result, hand_in.broken
    finally:
        tempfile.tempdir = None
        shutil.rmtree(private, ignore_errors=True)


def write_results(path: pathlib.Path, data: dict) -> None:
    """results.json, written whole or not at all: a new file renamed over whatever is
    there (a link or a folder planted in its place is removed first)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".results-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(data, file, indent=1, ensure_ascii=False)
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)
