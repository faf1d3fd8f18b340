"""Reading a hand-in: a learner's folder or .zip, read without trusting anything in it.

Only the learner's package is graded (every task lives in ``minitorch/``); notebooks are
noted, never run or parsed. Links are never followed and special files (pipes, devices)
never opened; folders the grader does not grade (``.venv/``, ``__pycache__/``,
``.ipynb_checkpoints/``, ``build/``, ...) are skipped and named; sizes are bounded for what
is graded. The package's files are copied, under names the grader checked, into a fresh
folder: the learner's process only ever sees that copy. Whatever is wrong becomes a
sentence in ``problems`` and, if nothing can be graded, ``broken``; nothing here raises.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from grader.intake.unpack import MAX_FILE, File, damage, graded, printable, walk, zip_entries
from grader.tasks import STAGES

MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}(\.py)?$")
MAX_PACKAGE = 8 * 2**20       # all of a package's files
MAX_FILES = 200               # files in a package
DATA = Path(__file__).resolve().parents[2] / "minitorch" / "data"  # the course's data, not the learner's


@dataclass
class HandIn:
    learner: str
    packages: dict[str, Path] = field(default_factory=dict)   # stage -> the copied package it is graded with
    problems: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    broken: str | None = None                                  # why nothing can be graded


def read_hand_in(path: Path, learner: str, into: Path) -> HandIn:
    hand_in = HandIn(learner)
    name = printable(path.name)
    try:
        mode = os.lstat(path).st_mode
    except OSError as error:
        hand_in.broken = f"{name} could not be read ({error.strerror})"
        return _done(hand_in)
    if stat.S_ISLNK(mode):
        hand_in.broken = f"{name} is a symbolic link; hand in the folder or .zip itself"
    elif stat.S_ISDIR(mode):
        _collect(hand_in, walk(path, hand_in), into)
    elif stat.S_ISREG(mode) and path.name.lower().endswith(".zip"):
        try:
            with zipfile.ZipFile(path) as archive:
                _collect(hand_in, zip_entries(archive, hand_in), into)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError) as error:
            hand_in.broken = f"{name} is not a readable .zip file ({damage(error)})"[:300]
    else:
        hand_in.broken = f"{name} is not a folder or a .zip file"
    return _done(hand_in)


def _done(hand_in: HandIn) -> HandIn:
    if hand_in.broken:
        hand_in.packages.clear()
        hand_in.problems.insert(0, hand_in.broken)
    if hand_in.ignored:
        shown = ", ".join(hand_in.ignored[:8]) + (f" and {len(hand_in.ignored) - 8} more" if len(hand_in.ignored) > 8 else "")
        hand_in.problems.append(f"not graded, so ignored: {shown}")
    return hand_in


def _collect(hand_in: HandIn, files: Iterable[File], into: Path) -> None:
    """Group the package files by the ``minitorch/`` folder they are in, pick the package
    of each stage (the one in a folder named like the stage, else the shallowest), and
    copy the chosen ones into ``into``."""
    packages: dict[tuple, dict[tuple, File]] = {}
    notebooks = 0
    for f in files:
        if f.parts[-1].endswith(".ipynb"):
            notebooks += 1
        if not graded(f.parts):
            continue
        at = len(f.parts) - 1 - f.parts[::-1].index("minitorch", 1)
        root, inner = f.parts[:at + 1], f.parts[at + 1:]
        if not all(MODULE.match(p) for p in inner) or len(inner) > 3:
            hand_in.ignored.append("/".join(f.parts) + " (not a module name Python can import)")
            continue
        packages.setdefault(root, {})[inner] = f
    roots = sorted((r for r, fs in packages.items() if ("__init__.py",) in fs), key=lambda r: (len(r), r))
    hand_in.ignored += [f"{'/'.join(r)}/ (no __init__.py, so not a package)" for r in sorted(packages) if r not in roots]
    if not roots:
        hand_in.broken = "no minitorch/ package found (a folder minitorch/ holding __init__.py)"
        return
    copies: dict[tuple, Path | None] = {}
    for stage, name in STAGES.items():
        root = next((r for r in roots if name in r), roots[0])
        if root not in copies:
            copies[root] = _copy(packages[root], into / f"package{len(copies)}" / "minitorch", root, hand_in)
        copy = copies[root]
        if copy is not None:
            hand_in.packages[stage] = copy
    if len(copies) > 1 or roots[0] != ("minitorch",):
        used = sorted({"/".join(r) for r in copies})
        hand_in.problems.append(f"graded the package in {', '.join(used)}" if len(used) > 1 else
                                f"graded the package {used[0]}/")
    hand_in.ignored += [f"{'/'.join(r)}/ (another minitorch package: each stage grades the one in its own folder, "
                        "else the shallowest)" for r in roots if r not in copies]
    if not hand_in.packages and not hand_in.broken:
        hand_in.broken = "the minitorch/ package could not be read"


def _copy(files: dict[tuple, File], target: Path, root: tuple, hand_in: HandIn) -> Path | None:
    where = "/".join(root)
    if len(files) > MAX_FILES:
        hand_in.problems.append(f"{where}/ has more than {MAX_FILES} .py files: not graded")
        return None
    total = 0
    if target.exists():
        shutil.rmtree(target)
    for inner, f in sorted(files.items()):
        if f.size > MAX_FILE:
            hand_in.problems.append(f"{where}/{'/'.join(inner)} is larger than {MAX_FILE >> 20} MiB: not graded")
            continue
        data = f.read()
        if data is None:
            continue
        if len(data) > MAX_FILE or total + len(data) > MAX_PACKAGE:
            hand_in.problems.append(f"{where}/{'/'.join(inner)} would make the package larger than its limit: "
                                    "not graded")
            continue
        total += len(data)
        out = target.joinpath(*inner)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    add_course_data(target)
    return target if (target / "__init__.py").is_file() else None


def add_course_data(package: Path) -> None:
    """The course's data files go beside a package being graded, never the learner's own."""
    if DATA.is_dir():
        shutil.copytree(DATA, package / "data", dirs_exist_ok=True)
