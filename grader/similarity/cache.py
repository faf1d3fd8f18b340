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
can then stop the check, with a message. It holds no absolute path (a moved output folder
keeps using it), is written whole or not at all, and only the reads of the latest run are kept.

Each read is kept in four parts (framing.py): the key, names and notes (JSON); the
fingerprints, as three columns of 64-bit integers; the code's tokens and its numbered
source, as columns of plain values (JSON), each unpacked only when first needed (a pair
of the hand-in worked out again, or shown). Reading one back
costs a fraction of a millisecond. The pairs' details (compare.py) are kept too
(details.py). The base code's fingerprints (the released stubs', read.py's ``shape``) are
kept the same way, under a key with no learner, in a file ending ``.base``: about a second
of every run's reading.
"""

from __future__ import annotations

import functools
import hashlib
import json
import pathlib
import sys
from collections import Counter
from collections.abc import Mapping

import numpy as np

from grader.files import SIMILARITY_READS as FOLDER
from grader.similarity.code import TaskCode
from grader.similarity.engine import Prints
from grader.similarity.framing import pack_parts, parts_of, unpacked

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
        parts = parts_of(out / FOLDER / name_of(key), 4, packed=(2, 3))   # the code unpacked when first asked for
        if parts is None:
            return None
        head = json.loads(parts[0])
        if head["key"] != key:
            return None
        tasks, files, coded = _strings(head["tasks"]), _strings(head["files"]), _strings(head["coded"])
        if len(set(coded)) != len(coded):
            return None
        numbers = np.frombuffer(parts[1], dtype="<i8")
        if len(numbers) % 3:
            return None
        values, at, starts = (numbers[n * (len(numbers) // 3):(n + 1) * (len(numbers) // 3)] for n in range(3))
        if len(at) and not (0 <= at.min() <= at.max() < len(tasks) and 0 <= starts.min() <= starts.max() < 1 << 31):
            raise IndexError("a task index or a token's place out of range")
        if key["learner"] and not {tasks[t] for t in set(at.tolist())} <= set(coded):
            raise KeyError("fingerprints of a task with no code")
        return Lazy(coded, parts[2:], files), LazyPrints(values.tolist(), at.tolist(), starts.tolist(), tasks), \
            _strings(head["notes"])
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

    def occurrences(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
        """``engine.occurrences`` of these fingerprints, from the columns at once (a pair
        worked out again needs no mapping made)."""
        values, at, starts = (np.asarray(c, dtype=np.int64) for c in self._columns[:3])
        order = np.argsort(values, kind="stable")   # a value's occurrences stay in their order
        return values[order], at[order], starts[order], list(self._columns[3])

    def task_counts(self) -> Counter[str]:
        """How many fingerprints first occur in each task (tables.py's sizes)."""
        values, at, _, tasks = self._columns
        first = np.unique(np.asarray(values, dtype=np.int64), return_index=True)[1]
        counts = np.bincount(np.asarray(at, dtype=np.int64)[first], minlength=len(tasks)).tolist()
        return Counter({task: n for task, n in zip(tasks, counts) if n})


class Lazy(Mapping[str, TaskCode]):
    """A kept read's code, task by task, made from its columns when first asked for: a
    re-run works out again only the pairs of a changed hand-in, and most reads' code is
    never asked for (nor its columns unpacked). Columns of the wrong types raise
    ``ValueError`` then, naming the folder."""

    def __init__(self, tasks: list[str], packed: list[bytes], files: list[str]) -> None:
        self._tasks, self._packed, self._files = tasks, packed, files
        self._columns: list[dict[str, list] | None] = [None, None]   # the tokens', the numbered source's
        self._made, self._shown = dict[str, TaskCode](), dict[str, dict[str, list[tuple[int, str]]]]()

    def __getitem__(self, task: str) -> TaskCode:
        made = self._made.get(task)
        if made is None:
            made = self._made[task] = TaskCode(self._well_formed(0, _tokens, task), self.shown(task))
        return made

    def shown(self, task: str) -> dict[str, list[tuple[int, str]]]:
        """A task's numbered source alone (what similarity.html shows), its tokens left packed."""
        shown = self._shown.get(task)
        if shown is None:
            shown = self._shown[task] = self._well_formed(1, _shown, task)
        return shown

    def _well_formed(self, part: int, make, task: str):
        try:
            columns = self._columns[part]
            if columns is None:
                listed = json.loads(unpacked(self._packed[part]))
                if not isinstance(listed, list) or len(listed) != len(self._tasks):
                    raise ValueError("not one column list a task")
                columns = self._columns[part] = dict(zip(self._tasks, listed))
            return make(columns[task], self._files)
        except (TypeError, IndexError, ValueError, RecursionError) as error:
            raise ValueError(f"a kept read in {FOLDER}/ is not well formed ({error}): remove that folder "
                             "and run again") from None

    def __iter__(self):
        return iter(self._tasks)

    def __len__(self) -> int:
        return len(self._tasks)


def shown_of(codes: Mapping[str, TaskCode], task: str) -> dict[str, list[tuple[int, str]]] | None:
    """A task's numbered source in a hand-in's ``codes``, or None: no code for that task."""
    if isinstance(codes, Lazy):
        return codes.shown(task) if task in codes._tasks else None
    code = codes.get(task)
    return None if code is None else code.shown


def _strings(value, length: int | None = None) -> list[str]:
    if not isinstance(value, list) or not all(type(s) is str for s in value) or length not in (None, len(value)):
        raise TypeError("not a list of strings")
    return value


def _ints(value, length: int | None = None) -> list[int]:
    if not isinstance(value, list) or not all(type(n) is int for n in value) or length not in (None, len(value)):
        raise TypeError("not a list of integers")
    return value


def _tokens(columns: list, files: list[str]) -> list[tuple[str, str, int]]:
    """One task's tokens from its columns, every value's type checked."""
    words, at, lines = columns
    n = len(_strings(words))
    if _ints(at, n) and not 0 <= min(at) <= max(at) < len(files):
        raise IndexError("a file index out of range")
    return [(w, files[f], line) for w, f, line in zip(words, at, _ints(lines, n), strict=True)]


def _shown(columns: list, files: list[str]) -> dict[str, list[tuple[int, str]]]:
    """One task's numbered source from its columns, every value's type checked."""
    wheres, counts, numbers, texts = columns
    shown: dict[str, list[tuple[int, str]]] = {}
    numbers, texts, first = _ints(numbers), _strings(texts, len(numbers)), 0
    for where, count in zip(_strings(wheres), _ints(counts, len(wheres)), strict=True):
        if count < 0 or first + count > len(numbers):
            raise IndexError("more lines than kept")
        shown[where] = list(zip(numbers[first:first + count], texts[first:first + count]))
        first += count
    return shown


def store(out: pathlib.Path, key: dict[str, str], codes: Mapping[str, TaskCode], prints: Prints, notes: list[str],
          never: tuple[str, ...] = ()) -> None:
    """Keep one read, unless it mentions one of the absolute paths ``never`` (a scratch folder
    or the hand-in's own place, which a moved folder would not match). Any failure to write
    costs only the next run's time."""
    tasks = sorted(set(codes) | {task for places in prints.values() for task, _ in places})
    files = sorted({t[1] for code in codes.values() for t in code.tokens})
    task_at, file_at = {t: n for n, t in enumerate(tasks)}, {f: n for n, f in enumerate(files)}
    tokens = json.dumps([[[t[0] for t in code.tokens], [file_at[t[1]] for t in code.tokens],
                          [t[2] for t in code.tokens]] for code in codes.values()])
    shown = json.dumps([[list(code.shown), [len(ls) for ls in code.shown.values()],
                         [n for ls in code.shown.values() for n, _ in ls], [s for ls in code.shown.values() for _, s in ls]]
                        for code in codes.values()])
    flat = [(value, task_at[task], start) for value, places in prints.items() for task, start in places]
    head = json.dumps({"key": key, "tasks": tasks, "files": files, "coded": list(codes), "notes": notes})
    if not any(place and (place in head or place in tokens or place in shown) for place in never):
        numbers = np.array([[v for v, _, _ in flat], [t for _, t, _ in flat], [s for _, _, s in flat]], dtype="<i8")
        pack_parts(out, name_of(key), [head.encode(), numbers.tobytes(), tokens.encode(), shown.encode()])


def keep_only(out: pathlib.Path, keys: list[dict[str, str]]) -> None:
    """Remove the kept reads of hand-ins no longer in the class (and parts a stopped run left)."""
    wanted = {name_of(key) for key in keys}
    try:
        for path in (out / FOLDER).iterdir():
            if path.name not in wanted and (path.suffix in (".read", ".base", ".part")) and path.is_file():
                path.unlink(missing_ok=True)
    except OSError:
        return
