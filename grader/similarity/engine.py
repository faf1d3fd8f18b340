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
from collections.abc import Iterable
from itertools import compress

import numpy as np

from grader.similarity.code import TaskCode, Token

K = 12            # tokens per fingerprint: about one line of code

Prints = dict[int, list[tuple[str, int]]]     # fingerprint -> where it occurs: (task, index of its first token)

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
    prints: Prints = {}
    for task, code in codes.items():
        for value, start in runs(code.tokens):
            if value not in base:
                prints.setdefault(value, []).append((task, start))
    return prints


def matched_lines(codes: dict[str, TaskCode], prints: Prints, shared: Iterable[int]) -> dict[str, set[tuple[str, int]]]:
    """The lines (file, number) the ``shared`` fingerprints cover, task by task."""
    starts: dict[str, list[int]] = {}
    for value in shared:
        for task, start in prints.get(value, ()):
            starts.setdefault(task, []).append(start)
    found: dict[str, set[tuple[str, int]]] = {}
    for task, at in starts.items():
        tokens = codes[task].tokens
        cover = np.zeros(len(tokens) + 1, dtype=np.int32)
        np.add.at(cover, np.asarray(at), 1)
        np.add.at(cover, np.minimum(np.asarray(at) + K, len(tokens)), -1)
        marked = np.cumsum(cover[:-1]) > 0
        found[task] = {(t[1], t[2]) for t in compress(tokens, marked.tolist())}
    return found
