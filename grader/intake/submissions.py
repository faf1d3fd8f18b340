"""The submissions folder: which of its entries are hand-ins, and under which ids.

Every entry of the folder ends as a hand-in to grade or as a refusal with its reason, so
that hand-ins in = rows out + refusals named (grades.csv and the run's summary show both).
A learner id is the entry's name (less ``.zip``) as a person can read it: bytes that are
not UTF-8 and control characters are written as escapes (``\\xe9``, ``\\n``). Ids that
differ only in case or Unicode normalisation (``Ana``/``ana``; ``é`` as one character or
two) are a person's to tell apart: each is graded under its own full name, with a note,
and never shares a row, a safe id or a feedback file with another (safe ids are also
distinct ignoring case, as file names are on macOS and Windows).
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import re
import unicodedata
from dataclasses import dataclass

from grader.intake.unpack import printable


@dataclass(frozen=True)
class Found:
    learner: str                  # the id shown to people (grades.csv, feedback)
    sid: str                      # the safe id (nbgrader, file names)
    path: pathlib.Path
    notes: tuple[str, ...] = ()   # about this hand-in among the others


@dataclass(frozen=True)
class Refused:
    name: str                     # the entry's name, as a person can read it
    reason: str


def _key(name: str) -> str:
    """What two ids a person could take for one share."""
    return unicodedata.normalize("NFC", name).casefold()


def _nfc(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def find_learners(folder: pathlib.Path) -> tuple[list[Found], list[Refused]]:
    """Each entry of ``folder`` as a hand-in (a .zip named by its learner's id, or a folder)
    or a refusal with its reason: hidden entries (``.DS_Store``, macOS's ``._name`` copies,
    a name of dots) and any other file (``notes.txt``), which is not a hand-in."""
    entries: list[tuple[str, str, pathlib.Path]] = []   # (learner id, full name, path), as people read them
    refused = []
    for entry in sorted(os.scandir(folder), key=lambda e: os.fsencode(e.name)):
        name = printable(entry.name)
        if entry.name.startswith("."):
            refused.append(Refused(name, "its name starts with a dot, as hidden files' do (.DS_Store, macOS's ._ "
                                         "copies): not taken for a hand-in; rename it to the learner's id to grade it"))
            continue
        is_zip = entry.name.lower().endswith(".zip") and not entry.is_dir(follow_symlinks=False)
        if entry.is_symlink():
            refused.append(Refused(name, "a symbolic link, never followed (it could point anywhere): put the hand-in "
                                         "itself, a .zip or a folder named by the learner's id, in its place"))
            continue
        if not is_zip and not entry.is_dir(follow_symlinks=False):
            refused.append(Refused(name, "not a hand-in: a hand-in is a .zip or a folder named by the learner's id; "
                                         "move it out of the submissions folder"))
            continue
        entries.append((printable(entry.name[:-4]) if is_zip else name, name, pathlib.Path(entry.path)))
    groups: dict[str, list[int]] = {}
    for i, (learner, _, _) in enumerate(entries):
        groups.setdefault(_key(learner), []).append(i)
    shown: dict[int, str] = {i: entries[i][0] for members in groups.values() if len(members) == 1 for i in members}
    notes: dict[int, tuple[str, ...]] = {}
    taken = {_nfc(s) for s in shown.values()}
    for members in (m for m in groups.values() if len(m) > 1):
        names = [entries[i][1] for i in members]
        alike = len({_nfc(n) for n in names}) < len(names)
        for i in members:  # names alike even in full are shown with every character not ASCII escaped
            candidate = ascii(entries[i][2].name)[1:-1] if alike else entries[i][1]
            shown[i] = _claim(candidate, taken)
        listed = ", ".join(f"'{shown[i]}'" for i in members)
        same = "the same learner id" if len({entries[i][0] for i in members}) == 1 else \
            "learner ids that differ only in case or Unicode normalisation"
        note = (f"{COUNTS.get(len(members), len(members))} hand-ins have {same} ({listed}): each was graded under "
                "its own name; the instructor decides which one counts")
        notes.update((i, (note,)) for i in members)
    sids = assign_sids([shown[i] for i in range(len(entries))])
    found = [Found(shown[i], sids[shown[i]], path, notes.get(i, ())) for i, (_, _, path) in enumerate(entries)]
    return found, refused


COUNTS = {2: "two", 3: "three", 4: "four"}


def _claim(candidate: str, taken: set[str]) -> str:
    name, number = candidate, 1
    while _nfc(name) in taken:
        number += 1
        name = f"{candidate} ({number})"
    taken.add(_nfc(name))
    return name


def assign_sids(learners: list[str]) -> dict[str, str]:
    """A safe id per learner id, no two alike even ignoring case (``safe_id``'s hash makes a
    clash unlikely; a clash left is resolved here, in the order given)."""
    sids: dict[str, str] = {}
    taken: set[str] = set()
    for learner in learners:
        sid = safe_id(learner)
        number = 1
        while sid.casefold() in taken:
            number += 1
            sid = f"{safe_id(learner)}-{number}"
        taken.add(sid.casefold())
        sids[learner] = sid
    return sids


def summary(entries: int, folder: pathlib.Path, graded: int, refused: list[tuple[str, str]],
            shard: Shard | None = None) -> str:
    """The run's account of the folder: hand-ins in = rows out + refusals named."""
    here = f" (shard {shard} grades its share)" if shard else ""
    lines = [f"{entries} entr{'y' if entries == 1 else 'ies'} in {folder}{here}: {graded} graded (a row each in "
             f"grades.csv), {len(refused)} refused (named in grades.csv)"]
    return "\n".join(lines + [f"  refused {name!r}: {why}" for name, why in refused])


@dataclass(frozen=True)
class Shard:
    """``I/N`` of ``autograde --shard``: every N-th hand-in, starting with the I-th."""
    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        index, _, count = text.partition("/")
        if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
            raise ValueError(f"--shard {text!r}: expected I/N with 1 <= I <= N, for example 2/8")
        return cls(int(index), int(count))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def share(self, found: list[Found]) -> list[Found]:
        return [f for i, f in enumerate(found) if i % self.count == self.index - 1]


def safe_id(learner: str) -> str:
    """A learner id nbgrader, a command line and every file system can use, distinct for
    distinct ids even where case is ignored (macOS, Windows): an id is kept only when it
    is lower-case letters, digits, ``_`` and ``-`` not at its start; any other gets a hash
    of the original at its end, and an id that already ends like that is hashed too, so
    that no learner's own id can be another's changed one."""
    if PLAIN.match(learner) and not HASHED.search(learner):
        return learner
    clean = re.sub(r"[^A-Za-z0-9_-]", "_", learner)[:40].strip("_-") or "learner"
    digest = hashlib.sha1(learner.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{clean}-{digest}"


PLAIN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
HASHED = re.compile(r"-[0-9a-f]{8}$")
