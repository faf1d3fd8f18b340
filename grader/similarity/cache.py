"""Each hand-in's read (read.py: its code task by task, and what could not be read), kept in
the output folder so that a run after a few resubmissions reads only the new or changed
hand-ins; the comparison (compare.py) runs again over the whole class.

A kept read is found by its key: the learner, the hash of the hand-in's content
(grader/term/kept.py's ``content_of``) and the hash of what reading depends on (``reading``:
the check's code and the intake's, the reference, the released stubs, the Python that
parsed it). Its file names the key's hash and repeats the key inside, with a hash of what
it holds: a file that is damaged, cut short, made for another key or another version is
ignored and the hand-in read again, so the cache can never change a verdict or stop the
check. It holds no absolute path (a moved output folder keeps using it), is written to a
temporary file and renamed into place, and keeps only the reads of the latest run.

The fingerprints are not kept: they are computed again from the kept tokens (engine.py),
which costs a few milliseconds a hand-in.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pathlib
import sys
import tempfile
import zlib

from grader.files import SIMILARITY_READS as FOLDER
from grader.similarity.code import TaskCode

MAGIC = b"minitorch similarity read 1\n"
ROOT = pathlib.Path(__file__).resolve().parents[2]
_READ_BY = ("grader/similarity", "grader/intake", "grader/release", "grader/tasks.py", "grader/tasks.toml",
            "solutions/minitorch", "minitorch")


@functools.cache
def reading() -> str:
    """The hash of everything a hand-in's read depends on, besides the hand-in."""
    digest = hashlib.sha256(f"{sys.version}\0{sys.hash_info.width}\0{sys.hash_info.algorithm}\0".encode())
    for name in _READ_BY:
        place = ROOT / name
        for path in sorted(place.rglob("*") if place.is_dir() else [place]):
            if path.is_file() and path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
                body = path.read_bytes()
                digest.update(f"{path.relative_to(ROOT).as_posix()}\0{len(body)}\0".encode() + body)
    return digest.hexdigest()


def key_of(learner: str, content: str) -> dict[str, str]:
    return {"learner": learner, "content": content, "reading": reading()}


def _name(key: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:40] + ".read"


def load(out: pathlib.Path, key: dict[str, str]) -> tuple[dict[str, TaskCode], list[str]] | None:
    """The kept read of ``key`` (codes, notes), or None: none kept, or not one to trust."""
    try:
        data = (out / FOLDER / _name(key)).read_bytes()
        if not data.startswith(MAGIC):
            return None
        digest, body = data[len(MAGIC):len(MAGIC) + 64], data[len(MAGIC) + 65:]
        if hashlib.sha256(body).hexdigest().encode() != digest:
            return None
        kept = json.loads(zlib.decompress(body))
        if kept["key"] != key:
            return None
        return _codes(kept["codes"]), _strings(kept["notes"])
    except (OSError, ValueError, KeyError, TypeError, zlib.error, RecursionError):
        return None


def _strings(value) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise TypeError("not a list of strings")
    return value


def _codes(value) -> dict[str, TaskCode]:
    """The codes as read.py made them, every value's type checked."""
    if not isinstance(value, dict):
        raise TypeError("not a mapping")
    codes: dict[str, TaskCode] = {}
    for task, (tokens, shown) in value.items():
        if not isinstance(shown, dict) or not all(
                isinstance(t, list) and len(t) == 3 and isinstance(t[0], str) and isinstance(t[1], str)
                and type(t[2]) is int for t in tokens):
            raise TypeError(f"task {task}: not tokens")
        for where, lines in shown.items():
            if not all(isinstance(n, list) and len(n) == 2 and type(n[0]) is int and isinstance(n[1], str)
                       for n in lines):
                raise TypeError(f"task {task}: not numbered lines at {where}")
        codes[task] = TaskCode([tuple(t) for t in tokens], {w: [tuple(n) for n in ls] for w, ls in shown.items()})
    return codes


def store(out: pathlib.Path, key: dict[str, str], codes: dict[str, TaskCode], notes: list[str],
          never: tuple[str, ...] = ()) -> None:
    """Keep one read, unless it mentions one of the absolute paths ``never`` (a scratch folder
    or the hand-in's own place, which a moved folder would not match). Any failure to write
    costs only the next run's time."""
    text = json.dumps({"key": key, "codes": {t: [c.tokens, c.shown] for t, c in codes.items()}, "notes": notes})
    if any(place and place in text for place in never):
        return
    body = zlib.compress(text.encode(), 1)
    folder = out / FOLDER
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, part = tempfile.mkstemp(prefix=".", suffix=".part", dir=folder)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
            os.replace(part, folder / _name(key))
        except BaseException:
            pathlib.Path(part).unlink(missing_ok=True)
            raise
    except OSError:
        return


def keep_only(out: pathlib.Path, keys: list[dict[str, str]]) -> None:
    """Remove the kept reads of hand-ins no longer in the class (and parts a stopped run left)."""
    wanted = {_name(key) for key in keys}
    try:
        for path in (out / FOLDER).iterdir():
            if path.name not in wanted and (path.suffix in (".read", ".part")) and path.is_file():
                path.unlink(missing_ok=True)
    except OSError:
        return
