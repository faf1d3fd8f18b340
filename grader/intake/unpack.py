"""The files of a hand-in, from a folder or a .zip, read without trusting anything in it.

Links are never followed and special files (pipes, devices) never opened; folders the
grader does not grade (``.venv/``, ``__pycache__/``, ...) are skipped. Whatever is skipped
or cannot be read is named with its reason, in the learner's words (``Notes``): a damaged
zip member says how it is damaged ("CRC mismatch"), never just that there was an error.
"""

from __future__ import annotations

import functools
import os
import stat
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

SKIPPED = {".venv", "venv", "env", "__pycache__", ".ipynb_checkpoints", "build", "dist", ".git", "node_modules",
           ".pytest_cache", ".hypothesis", ".mypy_cache", "__MACOSX", "site-packages", ".tox", "grader-output"}
MAX_FILE = 1 * 2**20          # one package file
MAX_ENTRIES = 200_000         # entries looked at in a folder or zip
MAX_DEPTH = 16


class Notes(Protocol):
    """Where a hand-in's reading is explained (``hand_in.HandIn``)."""
    problems: list[str]   # sentences for the learner
    ignored: list[str]    # things not graded, each with why in brackets


@dataclass
class File:
    parts: tuple[str, ...]
    size: int
    read: Callable[[], bytes | None]  # None: unreadable, already explained in the notes


def printable(name: str) -> str:
    """``name`` as a person can read it: bytes that were not UTF-8 (``os.fsdecode``'s
    surrogates) as ``\\xNN``, control and format characters as escapes (``\\n``, ``\\u200b``)."""
    out = []
    for ch in name:
        if "\udc80" <= ch <= "\udcff":
            out.append(f"\\x{ord(ch) - 0xdc00:02x}")
        elif unicodedata.category(ch).startswith("C"):
            out.append(ascii(ch)[1:-1] if ch not in "\n\t\r" else {"\n": "\\n", "\t": "\\t", "\r": "\\r"}[ch])
        else:
            out.append(ch)
    return "".join(out)


def graded(parts: tuple) -> bool:
    return "minitorch" in parts[:-1] and parts[-1].endswith(".py")


def walk(top: Path, notes: Notes) -> Iterator[File]:
    """Regular files below ``top``, without following links; the rest is noted."""
    stack: list[tuple[Path, tuple[str, ...]]] = [(top, ())]
    seen = 0
    while stack:
        folder, parts = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as error:
            notes.ignored.append(printable("/".join(parts)) + f"/ (unreadable: {error.strerror})")
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                notes.problems.append(f"more than {MAX_ENTRIES} files: the rest was not looked at")
                return
            here = (*parts, printable(entry.name))
            if entry.is_symlink():
                notes.ignored.append("/".join(here) + " (a symbolic link)")
            elif entry.is_dir(follow_symlinks=False):
                if entry.name in SKIPPED or entry.name.startswith(".") or len(here) > MAX_DEPTH:
                    notes.ignored.append("/".join(here) + "/")
                else:
                    stack.append((Path(entry.path), here))
            elif entry.is_file(follow_symlinks=False):
                size = entry.stat(follow_symlinks=False).st_size
                yield File(here, size, functools.partial(_read_regular, entry.path, here, notes))
            elif graded(here):
                notes.ignored.append("/".join(here) + " (not a regular file)")


def _read_regular(path: str, parts: tuple, notes: Notes) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        notes.problems.append(f"{'/'.join(parts)} could not be read ({error.strerror})")
        return None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            notes.problems.append(f"{'/'.join(parts)} was replaced by something that is not a regular file while "
                                  "it was read: not graded")
            return None
        return file.read(MAX_FILE + 1)


def zip_entries(archive: zipfile.ZipFile, notes: Notes) -> Iterator[File]:
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        notes.problems.append(f"more than {MAX_ENTRIES} entries: the rest was not looked at")
    for info in infos[:MAX_ENTRIES]:
        name = printable(info.filename.replace("\\", "/"))  # zips made on Windows
        parts = tuple(p for p in PurePosixPath(name).parts if p not in ("", "/", "."))
        if not parts or info.is_dir():
            continue
        if ".." in parts:
            notes.problems.append(f"{name}: a path leading out of the zip, skipped")
            continue
        if any(p in SKIPPED or p.startswith(".") for p in parts[:-1]):
            top = next(p for p in parts[:-1] if p in SKIPPED or p.startswith("."))
            label = "/".join(parts[:parts.index(top) + 1]) + "/"
            if label not in notes.ignored:
                notes.ignored.append(label)
            continue
        kind = (info.external_attr >> 16) & 0o170000
        if kind and kind != stat.S_IFREG:
            if graded(parts):
                notes.ignored.append(f"{name} (a link or special file)")
            continue
        if info.flag_bits & 0x1:
            if graded(parts):
                notes.problems.append(f"{name} is encrypted and cannot be read")
            continue

        def read(info=info, parts=parts):
            try:
                with archive.open(info) as file:
                    return file.read(MAX_FILE + 1)
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError, NotImplementedError,
                    ValueError) as error:
                notes.problems.append(f"the zip's member {'/'.join(parts)} is damaged ({damage(error)}): not graded")
                return None
        yield File(parts, info.file_size, read)


def damage(error: BaseException) -> str:
    """What is wrong with a zip or one of its members, in words."""
    text = str(error)
    if isinstance(error, zlib.error):
        return "its compressed data is corrupt"
    if isinstance(error, EOFError) or "Truncated" in text or "truncated" in text:
        return "it is cut short"
    if isinstance(error, NotImplementedError) or "compression method" in text:
        return f"it uses a compression method this grader cannot unpack: {text}"[:200]
    if "CRC" in text:
        return "CRC mismatch: its bytes are not the ones that were zipped"
    if "not a zip file" in text:
        return "no zip directory found: not a zip, or one cut short or damaged at its end"
    if "magic number" in text or "Overlapped" in text or "header" in text:
        return f"its headers are damaged: {text}"[:200]
    return f"{type(error).__name__}: {text}"[:200]
