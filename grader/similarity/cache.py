"""Each hand-in's read (read.py: its code task by task, and what could not be read), kept in
the output folder so that a run after a few resubmissions reads only the new or changed
hand-ins; the comparison (compare.py) runs again over the whole class.

A kept read is found by its key: the learner, the hash of the hand-in's content
(grader/term/kept.py's ``content_of``) and the hash of what reading depends on (``reading``:
the check's code and the intake's, the reference, the released stubs, the Python that
parsed it). Its file names the key's hash and repeats the key inside, with a hash of what
it holds: a file that is damaged, cut short, made for another key or another version is
ignored and the hand-in read again. Its code is made from the columns when first needed
(``Lazy``); only a file written by hand with the right hash and values of the wrong types
can then stop the check, with a message. It holds no absolute path (a moved output folder keeps using it), is written to a
temporary file and renamed into place, and keeps only the reads of the latest run.

Each read is kept as columns of plain values (JSON, compressed): reading one back costs
about a millisecond and a half, its fingerprints included. The pairs' details (compare.py)
are kept too (details.py). The base code's fingerprints (the released
stubs', read.py's ``shape``) are kept the same way, under a key with no learner, in a file
ending ``.base``: about a second of every run's reading.
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
from collections.abc import Mapping

from grader.files import SIMILARITY_READS as FOLDER
from grader.similarity.code import TaskCode
from grader.similarity.engine import Prints

MAGIC = b"minitorch similarity read 2\n"
AT_MOST = 64 << 20           # bytes of a kept reading, as stored and unpacked: a larger one is not taken
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


def name_of(key: dict[str, str]) -> str:
    """A kept read's file name; the base code's fingerprints (no learner's) end in ``.base``."""
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:40] + (".read" if key["learner"] else ".base")


def load(out: pathlib.Path, key: dict[str, str]) -> tuple[Mapping[str, TaskCode], Prints, list[str]] | None:
    """The kept read of ``key`` (codes, fingerprints, notes), or None: none kept, or not one to trust."""
    try:
        kept = unpack(out / FOLDER / name_of(key))
        if kept is None or kept["key"] != key:
            return None
        tasks, files = _strings(kept["tasks"]), _strings(kept["files"])
        codes = Lazy({tasks[_index(t, tasks)]: rest for t, *rest in kept["codes"] if len(rest) == 7}, files)
        if len(codes) != len(kept["codes"]):
            return None
        values, at, starts = kept["prints"]
        if _ints(at, len(_ints(values))) and not 0 <= min(at) <= max(at) < len(tasks):
            raise IndexError("a task index out of range")
        return codes, LazyPrints(values, at, _ints(starts, len(values)), tasks), _strings(kept["notes"])
    except Exception:  # noqa: BLE001 - whatever is wrong with a kept reading, the hand-in is read again
        return None


class LazyPrints(Mapping[int, list[tuple[str, int]]]):
    """A kept read's fingerprints: their values at once (all that the comparison of a class
    needs), where each occurs made only when first asked for (a pair worked out again)."""

    def __init__(self, values: list[int], at: list[int], starts: list[int], tasks: list[str]) -> None:
        self._columns, self._values = (values, at, starts, tasks), dict.fromkeys(values)
        self._made: dict[int, list[tuple[str, int]]] | None = None

    def __getitem__(self, value: int) -> list[tuple[str, int]]:
        if self._made is None:
            values, at, starts, tasks = self._columns
            self._made = {}
            for one, task, start in zip(values, at, starts, strict=True):
                self._made.setdefault(one, []).append((tasks[task], start))
        return self._made[value]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, value: object) -> bool:
        return value in self._values

    def first_tasks(self) -> list[str]:
        """The task of each fingerprint's first occurrence (tables.py's sizes)."""
        values, at, _, tasks = self._columns
        first: dict[int, int] = {}
        for value, task in zip(values, at):
            first.setdefault(value, task)
        return [tasks[task] for task in first.values()]


class Lazy(Mapping[str, TaskCode]):
    """A kept read's code, task by task, made from its columns when first asked for: a
    re-run works out again only the pairs of a changed hand-in, and most reads' code is
    never asked for. Columns of the wrong types raise ``ValueError`` then, naming the file."""

    def __init__(self, columns: dict[str, list], files: list[str]) -> None:
        self._columns, self._files, self._made = columns, files, dict[str, TaskCode]()

    def __getitem__(self, task: str) -> TaskCode:
        made = self._made.get(task)
        if made is None:
            try:
                made = self._made[task] = _code(self._columns[task], self._files)
            except (TypeError, IndexError, ValueError) as error:
                raise ValueError(f"a kept read in {FOLDER}/ is not well formed ({error}): remove that folder "
                                 "and run again") from None
        return made

    def __iter__(self):
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)


def _strings(value, length: int | None = None) -> list[str]:
    if not isinstance(value, list) or not all(type(s) is str for s in value) or length not in (None, len(value)):
        raise TypeError("not a list of strings")
    return value


def _ints(value, length: int | None = None) -> list[int]:
    if not isinstance(value, list) or not all(type(n) is int for n in value) or length not in (None, len(value)):
        raise TypeError("not a list of integers")
    return value


def _index(n, within: list) -> int:
    if type(n) is not int or not 0 <= n < len(within):
        raise IndexError("an index out of range")
    return n


def _code(columns: list, files: list[str]) -> TaskCode:
    """One task's code from its columns, every value's type checked."""
    words, at, lines, wheres, counts, numbers, texts = columns
    n = len(_strings(words))
    if _ints(at, n) and not 0 <= min(at) <= max(at) < len(files):
        raise IndexError("a file index out of range")
    tokens = [(w, files[f], line) for w, f, line in zip(words, at, _ints(lines, n), strict=True)]
    shown: dict[str, list[tuple[int, str]]] = {}
    numbers, texts, first = _ints(numbers), _strings(texts, len(numbers)), 0
    for where, count in zip(_strings(wheres), _ints(counts, len(wheres)), strict=True):
        if count < 0 or first + count > len(numbers):
            raise IndexError("more lines than kept")
        shown[where] = list(zip(numbers[first:first + count], texts[first:first + count]))
        first += count
    return TaskCode(tokens, shown)


def store(out: pathlib.Path, key: dict[str, str], codes: Mapping[str, TaskCode], prints: Prints, notes: list[str],
          never: tuple[str, ...] = ()) -> None:
    """Keep one read, unless it mentions one of the absolute paths ``never`` (a scratch folder
    or the hand-in's own place, which a moved folder would not match). Any failure to write
    costs only the next run's time."""
    tasks = sorted(set(codes) | {task for places in prints.values() for task, _ in places})
    files = sorted({t[1] for code in codes.values() for t in code.tokens})
    task_at, file_at = {t: n for n, t in enumerate(tasks)}, {f: n for n, f in enumerate(files)}
    columns = [[task_at[task], [t[0] for t in code.tokens], [file_at[t[1]] for t in code.tokens],
                [t[2] for t in code.tokens], list(code.shown), [len(ls) for ls in code.shown.values()],
                [n for ls in code.shown.values() for n, _ in ls], [s for ls in code.shown.values() for _, s in ls]]
               for task, code in codes.items()]
    flat = [(value, task_at[task], start) for value, places in prints.items() for task, start in places]
    text = json.dumps({"key": key, "tasks": tasks, "files": files, "codes": columns,
                       "prints": [[v for v, _, _ in flat], [t for _, t, _ in flat], [s for _, _, s in flat]],
                       "notes": notes})
    if not any(place and place in text for place in never):
        pack(out, name_of(key), text)


def unpack(path: pathlib.Path):
    """The JSON value a kept file holds, or None: none there, or one damaged or cut short."""
    if not path.is_file() or path.stat().st_size > AT_MOST:
        return None
    data = path.read_bytes()
    if not data.startswith(MAGIC):
        return None
    digest, body = data[len(MAGIC):len(MAGIC) + 64], data[len(MAGIC) + 65:]
    if hashlib.sha256(body).hexdigest().encode() != digest:
        return None
    unpack = zlib.decompressobj()
    text = unpack.decompress(body, AT_MOST)
    if unpack.unconsumed_tail or not unpack.eof:
        return None
    return json.loads(text)


def pack(out: pathlib.Path, name: str, text: str) -> None:
    """Keep ``text`` compressed under ``name``, whole or not at all: written to a temporary
    file and renamed into place. Any failure to write costs only the next run's time."""
    body = zlib.compress(text.encode(), 1)
    folder = out / FOLDER
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, part = tempfile.mkstemp(prefix=".", suffix=".part", dir=folder)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
            os.replace(part, folder / name)
        except BaseException:
            pathlib.Path(part).unlink(missing_ok=True)
            raise
    except Exception:  # noqa: BLE001 - a reading not kept costs only the next run's time
        return


def keep_only(out: pathlib.Path, keys: list[dict[str, str]]) -> None:
    """Remove the kept reads of hand-ins no longer in the class (and parts a stopped run left)."""
    wanted = {name_of(key) for key in keys}
    try:
        for path in (out / FOLDER).iterdir():
            if path.name not in wanted and (path.suffix in (".read", ".base", ".part")) and path.is_file():
                path.unlink(missing_ok=True)
    except OSError:
        return
