"""The similarity engine: copydetect (winnowing, as MOSS) on each task's normalised code.

copydetect tokenises the code (every name becomes ``V``, every string ``S``, layout and
comments go) and hashes every run of ``K`` characters of those tokens (its winnowing window
is 1 here: every hash is kept, so that no choice of fingerprints depends on the salt of
Python's ``hash``, and a class compared twice scores the same). Two hand-ins share a
fingerprint where they share such a run. Fingerprints that many hand-ins of the class hold
(``common``: the one way to write ``return grad * out``) are the course's, not a copy's, and
are dropped before comparing, as boilerplate. Hashes are only comparable within a process,
so every fingerprint of a class is made in the one process that compares them.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from copydetect import CodeFingerprint, compare_files

K = 25          # characters of tokens per fingerprint (copydetect's noise threshold)
WINDOW = 1      # winnowing window: 1 keeps every fingerprint, so no choice depends on Python's salted hash


@dataclass(frozen=True)
class Match:
    score: float                              # in [0, 1]
    lines: tuple[list[int], list[int]]        # each side's matched lines (indexes into its normalised lines)


def fingerprint(text: str, boilerplate: Iterable[int] = ()) -> CodeFingerprint:
    common = np.array(sorted(boilerplate), dtype=np.int64)
    return CodeFingerprint("task.py", K, WINDOW, boilerplate=common, filter=True, language="python",
                           fp=io.StringIO(text))


def common_hashes(prints: Iterable[CodeFingerprint], most: int) -> set[int]:
    """The fingerprints held by more than ``most`` of ``prints``."""
    held = Counter(h for p in prints for h in p.hashes)
    return {h for h, n in held.items() if n > most}


def shares(a: CodeFingerprint, b: CodeFingerprint) -> bool:
    return not a.hashes.isdisjoint(b.hashes)


def compare(a: CodeFingerprint, b: CodeFingerprint) -> Match:
    """How much of the smaller of the two is in the other, and where on each side."""
    if not shares(a, b) or not a.token_coverage or not b.token_coverage:
        return Match(0.0, ([], []))
    _, (share_a, share_b), (slices_a, slices_b) = compare_files(a, b)
    return Match(float(min(1.0, max(share_a, share_b))), (_lines(a.raw_code, slices_a), _lines(b.raw_code, slices_b)))


def _lines(text: str, slices: np.ndarray) -> list[int]:
    """The line indexes of ``text`` that the character slices ``slices`` touch."""
    if slices.size == 0:
        return []
    starts = np.cumsum([0] + [len(line) + 1 for line in text.split("\n")])
    found: set[int] = set()
    for begin, end in zip(slices[0], slices[1]):
        first = int(np.searchsorted(starts, begin, side="right")) - 1
        last = int(np.searchsorted(starts, max(begin, end - 1), side="right")) - 1
        found.update(range(first, last + 1))
    return sorted(found)
