"""A class as an LMS's bulk download arrives (``autograde --from canvas|moodle``): the
download (its .zip, or the folder it unzips to) and the LMS's own roster file. Each file
of the download is its learner's, found by the ids the LMS writes into its name
(``canvas.py``, ``moodle.py``); a learner's files become one hand-in in the staging
folder, named by the learner's id: their newest .zip (``counted``), the older ones and
any file beside it refused and named; with no .zip, a folder of their files when a
minitorch/ package is among them, else nothing (a notebook alone is no hand-in). A file
whose learner the roster lacks is refused, naming the roster's nearest names; nothing is
ever graded as a stranger. Links are never followed, and sizes are bounded."""

from __future__ import annotations

import datetime as dt
import difflib
import functools
import os
import shutil
import stat
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Protocol

from grader.files import ONLY_IF_HANDED_IN
from grader.intake.submissions import Refused
from grader.intake.unpack import printable

MAX_MEMBER = 256 * 2**20       # one file of the download
MAX_DOWNLOAD = 8 * 2**30       # all of them


@dataclass(frozen=True)
class Member:
    parts: tuple[str, ...]             # its path in the download
    size: int
    open: Callable[[], IO[bytes]]      # a binary file object to copy from


@dataclass(frozen=True)
class Owned:
    key: str                           # the LMS's id of the learner, as the file's name gives it
    called: str                        # the learner's name, as the file's name gives it
    inner: tuple[str, ...]             # the file's path inside the hand-in
    note: str = ""                     # what the LMS says about it (Canvas's LATE)
    order: int = 0                     # among one learner's files, a newer one's is larger (Canvas's file id)


@dataclass
class Roster:
    learners: dict[str, dict[str, str]]          # learner id -> the roster row (exports read its identities)
    by_key: dict[str, str]                       # the LMS's id in file names -> learner id
    names: dict[str, str]                        # learner id -> the name the LMS shows
    times: dict[str, dt.datetime] = field(default_factory=dict)   # learner id -> when the LMS says they handed in
    source: str = ""                             # where those times come from, for people


class Lms(Protocol):
    NAME: str
    ROSTER: str                        # the roster file, in the LMS's words

    def read_roster(self, path: Path, zone: dt.tzinfo) -> Roster: ...

    def owner(self, parts: tuple[str, ...]) -> Owned | None: ...


@dataclass
class Download:
    lms: str                                                     # its name, for people
    roster: Roster
    names: dict[str, list[str]] = field(default_factory=dict)    # learner -> their files' names in the download
    notes: dict[str, list[str]] = field(default_factory=dict)    # learner -> what the LMS marked
    refused: list[Refused] = field(default_factory=list)


def members(download: Path) -> Iterator[Member]:
    """The files of the download (a .zip or a folder), without following links; hidden
    files (``.DS_Store``, ``__MACOSX/``) are not a learner's."""
    if download.is_file() and download.suffix.lower() == ".zip":
        archive = zipfile.ZipFile(download)
        for info in archive.infolist():
            parts = tuple(p for p in PurePosixPath(info.filename.replace("\\", "/")).parts if p not in ("", "/", "."))
            kind = (info.external_attr >> 16) & 0o170000
            if info.is_dir() or not parts or ".." in parts or (kind and kind != stat.S_IFREG) or _hidden(parts):
                continue
            yield Member(parts, info.file_size, functools.partial(archive.open, info))
        return
    if not download.is_dir():
        raise ValueError(f"{download} is neither the LMS's .zip nor the folder it unzips to")
    for folder, dirs, names in os.walk(download, followlinks=False):
        dirs.sort()
        for name in sorted(names):
            path = Path(folder, name)
            parts = path.relative_to(download).parts
            if stat.S_ISREG(os.lstat(path).st_mode) and not _hidden(parts):
                yield Member(parts, os.lstat(path).st_size, functools.partial(_open, path))


def _open(path: Path) -> IO[bytes]:
    return path.open("rb")


def _hidden(parts: tuple[str, ...]) -> bool:
    return any(p.startswith(".") or p == "__MACOSX" for p in parts)


def nearest(called: str, roster: Roster) -> str:
    """The roster's three names nearest to ``called``, for a refusal (compared as letters
    and digits only, so Canvas's ``fischertom`` is near "Fischer, Tom")."""
    simple = {"".join(ch for ch in name.lower() if ch.isalnum()): name for learner, name in roster.names.items()
              if not roster.learners.get(learner, {}).get(ONLY_IF_HANDED_IN)}   # never Canvas's Test Student
    close = difflib.get_close_matches("".join(ch for ch in called.lower() if ch.isalnum()), list(simple), n=3,
                                      cutoff=0.0)
    return ", ".join(repr(simple[c]) for c in close) or "the roster is empty"


def counted(lms: str, files: list[tuple[Owned, Member]]) -> tuple[list[tuple[Owned, Member]], list[Refused]]:
    """What of one learner's files (oldest first) is their hand-in: their newest .zip, the
    older ones refused as superseded, and any other file beside it; with no .zip, their
    files as a folder when a minitorch/ package is among them, else nothing."""
    zips = [f for f in files if f[0].inner[-1].lower().endswith(".zip")]
    shown = [printable("/".join(m.parts)) for _, m in files]
    if zips:
        newest = zips[-1]
        why = {id(f): (f"an older hand-in of the same learner; the newest, {newest[0].inner[-1]!r}, counts"
                       if f in zips else f"not a hand-in .zip; {newest[0].inner[-1]!r} counts") for f in files}
        return [newest], [Refused(name, f"{lms}'s download: {why[id(f)]}")
                          for name, f in zip(shown, files) if f is not newest]
    if any("minitorch" in o.inner[:-1] for o, _ in files):
        return files, []
    return [], [Refused(name, f"{lms}'s download: not a zip or a folder, and a {Path(o.inner[-1]).suffix or 'file'} "
                              "alone holds no minitorch/ package: the learner has no hand-in (a .zip of "
                              "minitorch/ and notebooks/, as `make handin` writes it)")
                for name, (o, _) in zip(shown, files)]


def read(lms: Lms, download: Path, roster_file: Path, zone: dt.tzinfo, into: Path) -> Download:
    """Read ``download`` against the roster and stage one hand-in per learner in ``into``
    (emptied first). Raises ValueError, naming what is wrong, for a roster it cannot read."""
    roster = lms.read_roster(roster_file, zone)
    result = Download(lms.NAME, roster)
    own: dict[str, list[tuple[Owned, Member]]] = {}
    strangers: dict[str, tuple[str, list[str]]] = {}
    for member in members(download):
        shown = printable("/".join(member.parts))
        owned = lms.owner(member.parts)
        if owned is None:
            result.refused.append(Refused(shown, f"not named as {lms.NAME} names a submission's files: not "
                                                 "taken for anyone's"))
        elif owned.key not in roster.by_key:
            strangers.setdefault(owned.key, (owned.called, []))[1].append(shown)
        else:
            own.setdefault(roster.by_key[owned.key], []).append((owned, member))
    for key, (called, files_shown) in strangers.items():
        for name in files_shown:
            result.refused.append(Refused(name, f"{lms.NAME}'s learner {called!r} ({key}) is not in the roster: "
                                                f"not graded; the roster's nearest names: {nearest(called, roster)}"))
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    total = 0
    for learner, every in sorted(own.items()):
        files, superseded = counted(lms.NAME, sorted(every, key=lambda f: f[0].order))   # stable: ties keep the download's order
        result.refused += superseded
        result.notes[learner] = sorted({o.note for o, _ in files if o.note})
        result.notes[learner] += [f"{r.name}: {r.reason}" for r in superseded]
        if not files:
            continue
        result.names[learner] = sorted({n for o, m in files for n in (m.parts[-1], o.inner[-1])})
        alone = len(files) == 1 and files[0][0].inner[-1].lower().endswith(".zip")
        for owned, member in files:
            total += member.size
            if member.size > MAX_MEMBER or total > MAX_DOWNLOAD:
                raise ValueError(f"{'/'.join(member.parts)}: larger than a hand-in can be ({member.size} bytes)")
            target = into / f"{learner}.zip" if alone else into / learner / Path(*owned.inner)
            target.parent.mkdir(parents=True, exist_ok=True)
            with member.open() as source, target.open("wb") as copy:
                shutil.copyfileobj(source, copy)
    return result


def lms_named(name: str) -> Lms:
    from grader.intake import canvas, moodle
    choices: dict[str, Lms] = {"canvas": canvas, "moodle": moodle}
    return choices[name]


def staged(source: str, download: Path, roster: Path | None, zone: str | None, deadline: dt.datetime | None,
           into: Path) -> Download:
    """``autograde --from SOURCE``: the download read against its roster file, staged in
    ``into``; times the LMS writes without an offset read in ``zone``, else the deadline's."""
    import zoneinfo
    lms = lms_named(source)
    if roster is None:
        raise ValueError(f"--from {source} needs --roster: {lms.ROSTER}")
    try:
        tz = zoneinfo.ZoneInfo(zone) if zone else deadline.tzinfo if deadline else dt.UTC
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"--timezone {zone!r}: not a time zone this machine knows (for example Europe/Paris)") from None
    try:
        return read(lms, download, roster, tz or dt.UTC, into)
    except zipfile.BadZipFile as error:
        raise ValueError(f"{download}: not a readable .zip ({error})") from None
