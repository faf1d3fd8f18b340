"""The similarity engine: fingerprints of a hand-in's normalised tokens, as MOSS and JPlag
take them (every run of ``K`` tokens hashed; the winnowing window is 1, so every run is
kept and nothing depends on which runs a window picks).

Two hand-ins share a fingerprint where they share a run of ``K`` tokens of canonical code
(normal.py: names abstracted, loops and comprehensions alike, dead code gone, helpers
inlined). A fingerprint remembers where it occurs (task, first token), so that the matched
lines can be shown. Token values are CRC-32s and a run's hash is the hash of a tuple of
ints, which Python does not salt: a class fingerprinted in several processes, or twice,
gets the same fingerprints.

Why not copydetect any more (it was the engine until issue 48): it fingerprints text, one
task at a time, so the code a learner moved out of a task's function was never compared;
tokens of the syntax tree let the check inline helpers and undo a rewritten loop before
fingerprinting, and the comparison of a whole class is one sparse product (compare.py).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping

import numpy as np

from grader.similarity.code import TaskCode, Token

K = 12            # tokens per fingerprint: about one line of code

Prints = Mapping[int, list[tuple[str, int]]]     # fingerprint -> where it occurs: (task, index of its first token)

_IDS: dict[str, int] = {}


def _id(token: str) -> int:
    found = _IDS.get(token)
    if found is None:
        found = _IDS[token] = zlib.crc32(token.encode("utf-8", "replace"))
    return found


def runs(tokens: list[Token]) -> Iterable[tuple[int, int]]:
    """(hash, start) of every run of ``K`` tokens."""
    ids = [_id(t[0]) for t in tokens]
    for start in range(len(ids) - K + 1):
        yield hash(tuple(ids[start:start + K])), start


def fingerprint(codes: dict[str, TaskCode], base: frozenset[int] = frozenset()) -> Prints:
    """The fingerprints of a hand-in's code, task by task, less the ``base`` ones (the released stubs')."""
    prints: dict[int, list[tuple[str, int]]] = {}
    for task, code in codes.items():
        for value, start in runs(code.tokens):
            if value not in base:
                prints.setdefault(value, []).append((task, start))
    return prints


def matched_lines(codes: Mapping[str, TaskCode], prints: Prints, shared: np.ndarray,
                  places: dict | None = None) -> dict[str, set[tuple[str, int]]]:
    """The lines (file, number) the ``shared`` fingerprints (a sorted array) cover, task by
    task. ``places`` keeps what is worked out once per hand-in (``occurrences``, each task's
    token places) for the next pair of the same run."""
    values, tasks, starts, names = occurrences(prints, places)
    chosen = np.isin(values, shared, assume_unique=False)
    found: dict[str, set[tuple[str, int]]] = {}
    for t in np.unique(tasks[chosen]).tolist():
        code = codes[names[t]]
        kept = places.get(id(code)) if places is not None else None
        if kept is None or kept[0] is not code:
            kept = (code, *_places(code))
            if places is not None:
                places[id(code)] = kept
        _, keys, files = kept
        n, begin = len(keys), starts[chosen & (tasks == t)]
        cover = np.bincount(begin, minlength=n + 1) - np.bincount(np.minimum(begin + K, n), minlength=n + 1)
        lines = np.unique(keys[np.cumsum(cover[:-1]) > 0])
        found[names[t]] = {(files[k >> 32], k & 0xFFFFFFFF) for k in lines.tolist()}
    return found


def occurrences(prints: Prints, places: dict | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """A hand-in's fingerprints as arrays, one entry per occurrence, sorted by fingerprint
    (a fingerprint's first entry is its first occurrence): its value, task (an index into
    the task names returned last) and first token; kept in ``places`` for the run."""
    kept = places.get(id(prints)) if places is not None else None
    if kept is not None and kept[0] is prints:
        return kept[1]
    if hasattr(prints, "occurrences"):   # a kept read's (cache.LazyPrints): its columns are these already
        found = prints.occurrences()
        if places is not None:
            places[id(prints)] = (prints, found)
        return found
    values: list[int] = []
    tasks: list[int] = []
    starts: list[int] = []
    names: dict[str, int] = {}
    for value, where in prints.items():
        for task, start in where:
            values.append(value)
            tasks.append(names.setdefault(task, len(names)))
            starts.append(start)
    order = np.argsort(np.asarray(values, dtype=np.int64), kind="stable")
    found = (np.asarray(values, dtype=np.int64)[order], np.asarray(tasks, dtype=np.int64)[order],
             np.asarray(starts, dtype=np.int64)[order], list(names))
    if places is not None:
        places[id(prints)] = (prints, found)
    return found


def _places(code: TaskCode) -> tuple[np.ndarray, list[str]]:
    """Each token's place as one number (its file's index, then its line), and the files."""
    files: dict[str, int] = {}
    keys = np.fromiter(((files.setdefault(t[1], len(files)) << 32) | t[2] for t in code.tokens), dtype=np.int64,
                       count=len(code.tokens))
    return keys, list(files)
