"""The similarity engine: copydetect (winnowing, as MOSS) on each task's normalised code.

copydetect tokenises the code (every name becomes ``V``, every string ``S``, layout and
comments go), hashes every run of ``K`` characters of those tokens and keeps the smallest
hash of each ``WINDOW`` in a row (winnowing). Two hand-ins share a fingerprint where they
share such a run. Fingerprints that many hand-ins of the class hold (``common``: the one
way to write ``return grad * out``) are the course's, not a copy's, and are dropped before
comparing, as boilerplate. Python salts ``hash`` per process, so every fingerprint of a
class is made in the one process that compares them.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from copydetect import CodeFingerprint, compare_files

K = 25          # characters of tokens per fingerprint (copydetect's noise threshold)
WINDOW = 4      # winnowing window: the guarantee threshold is K + WINDOW - 1


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
