"""What a platform's grader carries: the grader package (its hidden checks included), the
course's data files that grading puts beside each package, and the pins of what grading
needs. Never ``solutions/``: nothing is taken from outside the grader's own folder and
the data folder, and the tests look for solution text in what is written.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import pathlib
import re
import stat
import zipfile
from collections.abc import Iterator

from grader.intake.hand_in import DATA

GRADER = pathlib.Path(__file__).resolve().parents[1]
ROOT = GRADER.parent
LOCK = ROOT / "requirements.lock"
# What the learner's package may import (the course's package uses these three); with the
# packages they pull in, at the versions of requirements.lock, the environment `check` uses.
NEEDS = ("numpy", "scipy", "matplotlib")
SKIP = {"__pycache__", ".pytest_cache", ".mypy_cache"}


def shipped_files() -> Iterator[tuple[str, bytes]]:
    """(path in the shipped folder, content) of the grader and the course's data files,
    laid out as in this repository so that the grader finds its data where it looks."""
    for top in (GRADER, DATA):
        for path in sorted(top.rglob("*")):
            if SKIP.intersection(path.relative_to(top).parts) or path.suffix == ".pyc":
                continue
            if path.is_file() and not path.is_symlink():
                yield path.relative_to(ROOT).as_posix(), path.read_bytes()


def digest() -> str:
    """The grader's version as it runs: a digest of every file shipped (``shipped_files``),
    the same where it was written and in the platform's copy."""
    h = hashlib.sha256()
    for name, data in shipped_files():
        h.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()[:12]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def grading_lock() -> str:
    """The lines of requirements.lock that grading needs: ``NEEDS`` and what they require
    (read from the installed packages' metadata), pinned exactly as for ``check``."""
    from packaging.requirements import Requirement
    lines = [line.strip() for line in LOCK.read_text().splitlines()]
    pins = {_canonical(line.partition("==")[0]): line for line in lines if "==" in line and not line.startswith("#")}
    wanted: set[str] = set()
    todo = list(NEEDS)
    while todo:
        name = _canonical(todo.pop())
        if name in wanted:
            continue
        if name not in pins:
            raise ValueError(f"{name} is needed for grading but has no pin in {LOCK.name}")
        wanted.add(name)
        for text in importlib.metadata.requires(name) or []:
            need = Requirement(text)
            if need.marker is None or need.marker.evaluate({"extra": ""}):
                todo.append(need.name)
    header = ("# What grading needs (the course package's imports and what they pull in), pinned as in\n"
              "# the course's requirements.lock: written by python -m grader gradescope / prairielearn.\n")
    return header + "\n".join(pins[name] for name in sorted(wanted)) + "\n"


def add(archive: zipfile.ZipFile, name: str, data: bytes | str, executable: bool = False) -> None:
    """One file in a zip, with the permissions it needs once unpacked."""
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def write(folder: pathlib.Path, name: str, data: bytes | str, executable: bool = False) -> None:
    """One file in a folder, with the permissions it needs."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    path.chmod(0o755 if executable else 0o644)
