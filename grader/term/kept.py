"""Every hand-in the grader has seen, kept under the output folder by its content and never
overwritten: ``hand-ins/<safe id>/<content hash>.zip`` (or a folder of that name), listed
with its time in ``hand-ins/<safe id>/index.json``. A hand-in handed in again unchanged is
the same entry (a time stated later, in ``submitted.csv``, replaces one not known). Links
are kept as links, never followed; special files and the folders the grader never grades
(``.venv/``...) are left out.

Which hand-in counts is the course's setting (``COUNTS``): the last before the learner's
deadline (when none is, the first after it, with its late penalty), the last of all, or the
best (every kept hand-in is graded; the highest final counts)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import pathlib
import shutil
import stat
import time
from dataclasses import asdict, dataclass, replace

import grader.files as files
from grader.intake.unpack import SKIPPED
from grader.term.faults import point

COUNTS = ("last-before-deadline", "last", "best")


@dataclass(frozen=True)
class Kept:
    content: str           # the hash of what was handed in
    name: str              # the entry's name in the submissions folder
    at: str | None         # when it was handed in (ISO 8601), if known
    source: str            # where that time was read
    file: str              # the kept copy, relative to the output folder

    @property
    def when(self) -> dt.datetime | None:
        return dt.datetime.fromisoformat(self.at) if self.at else None


def _files(root: pathlib.Path | str, relative: str = ""):
    """(relative path, kind, path) of a folder, links not followed: kind "file", "link", or
    "left-out" for what the intake skips (its SKIPPED folders, pipes and other special
    files), which is named but neither read nor kept. In ``os.walk``'s order (a folder's
    entries sorted, then each of its folders in turn), with one ``scandir`` a folder."""
    folder = os.path.join(root, relative) if relative else os.fspath(root)
    try:
        with os.scandir(folder) as found:
            entries = {e.name: e for e in found}
    except OSError:   # as os.walk: a folder that cannot be listed is passed over
        return
    dirs = [n for n, e in entries.items() if _is_dir(e)]
    for name in sorted(d for d in dirs if d in SKIPPED):
        yield f"{relative}{name}", "left-out", os.path.join(folder, name)
    for name in sorted({n for n in entries if n not in dirs} | {n for n, e in entries.items() if e.is_symlink()}):
        e = entries[name]
        kind = "link" if e.is_symlink() else "file" if e.is_file(follow_symlinks=False) else "left-out"
        yield f"{relative}{name}", kind, os.path.join(folder, name)
    for name in sorted(d for d in dirs if d not in SKIPPED and not entries[d].is_symlink()):
        yield from _files(root, f"{relative}{name}/")


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _read(path: str | os.PathLike) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


_AHEAD: dict[str, str] = {}   # path -> content hash, worked out as the run starts (``hash_ahead``)
_MARKS: dict[str, list[str]] = {}   # entry name -> [its files' stat mark, content hash], for the next run
MARKS = "marks.json"   # under KEPT: the last run's marks (a cache: losing it only costs reading again)
SETTLED_NS = 2_000_000_000   # a file changed this recently may change again within its time's tick


def hash_ahead(paths, out: pathlib.Path | None = None) -> None:
    """Work out the content hashes of the hand-ins at ``paths`` now, once for the run: the
    next ``content_of`` of each takes its hash from here (in a process forked after, too).
    A hand-in whose files have the names, sizes, inodes and change times that the last run
    of ``out`` saw (``save_marks``) takes that run's hash instead of being read again (as
    git's index does); one changed in the last two seconds is read."""
    _AHEAD.clear()
    _MARKS.clear()
    try:
        known = json.loads((out / files.KEPT / MARKS).read_text(encoding="utf-8")) if out else {}
    except (OSError, ValueError):
        known = {}
    for path in paths:
        try:
            mark, name = _mark(pathlib.Path(path)), pathlib.Path(path).name
            cached = known.get(name) if isinstance(known, dict) else None
            if mark is not None and isinstance(cached, list) and len(cached) == 2 and cached[0] == mark:
                content = str(cached[1])
            else:
                content = content_of(path)
            _AHEAD[os.fspath(path)] = content
            if mark is not None:
                _MARKS[name] = [mark, content]
        except (OSError, ValueError):
            continue


def save_marks(out: pathlib.Path) -> None:
    """Keep this run's marks (``hash_ahead``) for the next run of ``out``."""
    if _MARKS and (out / files.KEPT).is_dir():
        write_json(out / files.KEPT / MARKS, _MARKS)


def _mark(path: pathlib.Path) -> str | None:
    """What stat says of a hand-in's files, hashed; None when one changed too recently."""
    recent, digest = time.time_ns() - SETTLED_NS, hashlib.sha256()
    listed = _files(path) if stat.S_ISDIR(os.lstat(path).st_mode) else [("", "top", path)]
    for relative, kind, full in listed:
        if kind == "left-out":   # counted by its name only, as content_of counts it
            digest.update(f"{kind}:{relative}\0".encode())
            continue
        st = os.lstat(full)
        if max(st.st_mtime_ns, st.st_ctime_ns) > recent:
            return None
        digest.update(f"{kind}:{relative}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:{st.st_dev}"
                      "\0".encode())
    return digest.hexdigest()[:32]


def content_of(path: pathlib.Path) -> str:
    """The hash of a hand-in's content (a .zip's bytes, or a folder's names and files, and
    the names of what the intake leaves out of it); taken once from ``hash_ahead``'s."""
    ahead = _AHEAD.pop(os.fspath(path), None)
    if ahead is not None:
        return ahead
    digest = hashlib.sha256()
    if stat.S_ISREG(os.lstat(path).st_mode):
        digest.update(_read(path))
    elif stat.S_ISDIR(os.lstat(path).st_mode):
        for relative, kind, full in _files(path):   # what the intake leaves out counts by its name: it names it
            body = b"" if kind == "left-out" else os.readlink(full).encode() if kind == "link" else _read(full)
            digest.update(f"{kind}:{relative}:{len(body)}\0".encode() + body)
    else:
        digest.update(b"link:" + os.readlink(path).encode())
    return digest.hexdigest()[:20]


def keep(out: pathlib.Path, sid: str, path: pathlib.Path, at: dt.datetime | None, source: str) -> Kept:
    """Keep the hand-in at ``path`` (once per content) and list it; returns its entry. A
    hand-in that cannot be read whole is graded as it is (the intake names what is wrong)
    and not kept: its entry is not listed."""
    try:
        return _keep(out, sid, path, at, source)
    except OSError as error:
        unread = f"unread-{error.errno}-{time.time_ns()}"   # never the same twice: graded again each run
        return Kept(unread, path.name, at.isoformat() if at else None, source, "")


def _keep(out: pathlib.Path, sid: str, path: pathlib.Path, at: dt.datetime | None, source: str) -> Kept:
    content = content_of(path)
    home = out / files.KEPT / sid
    listed = entries(out, sid)
    same = next((k for k in listed if k.content == content), None)
    if same is not None:   # handed in again unchanged: one entry; a time stated now replaces one not known
        if at is not None and (same.at is None or source == files.SUBMITTED) and same.at != at.isoformat():
            same = replace(same, at=at.isoformat(), source=source)
            _write(home / "index.json", [same if k.content == content else k for k in listed])
        return same
    is_dir = stat.S_ISDIR(os.lstat(path).st_mode)
    target = home / (content if is_dir else f"{content}.zip")
    home.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")   # a copy cut short is never taken for a kept one
    shutil.rmtree(part, ignore_errors=True)
    if is_dir:
        part.mkdir()
        for relative, kind, full in _files(path):
            if kind == "left-out":
                continue
            copy = part / relative
            copy.parent.mkdir(parents=True, exist_ok=True)
            if kind == "link":
                os.symlink(os.readlink(full), copy)
            else:
                copy.write_bytes(_read(full))
    elif stat.S_ISREG(os.lstat(path).st_mode):
        part.write_bytes(_read(path))
    if part.exists():
        if target.is_dir() and not target.is_symlink():   # left by a run cut short, never listed
            shutil.rmtree(target)
        os.replace(part, target)
    point("a hand-in kept, not yet listed")
    entry = Kept(content, path.name, at.isoformat() if at else None, source, target.relative_to(out).as_posix())
    _write(home / "index.json", [*listed, entry])
    return entry


def _write(index: pathlib.Path, listed: list[Kept]) -> None:
    write_json(index, [asdict(k) for k in listed], indent=1)


def write_json(path: pathlib.Path, value: object, indent: int | None = None) -> None:
    """Write ``value`` whole or not at all: a run cut short never leaves half a file."""
    part = path.with_suffix(".part")
    part.write_text(json.dumps(value, indent=indent), encoding="utf-8")
    os.replace(part, path)


def entries(out: pathlib.Path, sid: str) -> list[Kept]:
    index = out / files.KEPT / sid / "index.json"
    return [Kept(**k) for k in json.loads(index.read_text(encoding="utf-8"))] if index.is_file() else []


def counting(listed: list[Kept], counts: str, deadline: dt.datetime | None) -> list[Kept]:
    """The kept hand-ins that may count, in the order handed in (for ``best`` all of them,
    else the one that counts)."""
    timed = sorted((k for k in listed if k.when is not None), key=lambda k: k.when or 0)
    order = [k for k in listed if k.when is None] + timed   # no time: in the order seen
    if not order or counts == "best":
        return order
    if counts == "last" or deadline is None:
        return order[-1:]
    on_time = [k for k in order if k.when is None or k.when <= deadline]
    return on_time[-1:] or order[:1]


