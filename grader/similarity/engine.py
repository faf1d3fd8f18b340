"""The similarity engine: copydetect's fingerprints (winnowing, as MOSS) of each task's
normalised code.

copydetect tokenises the code with Pygments (every name becomes ``V``, every string ``S``,
layout and comments go) and hashes every run of ``K`` characters of those tokens; its
winnowing window is 1 here, so every hash is kept and no choice of fingerprints depends on
the salt of Python's ``hash`` (a class compared twice scores the same). Two hand-ins share
a fingerprint where they share such a run. Each fingerprint keeps the lines its run covers,
for the report. Fingerprints that many hand-ins of the class hold (the one way to write
``return grad * out``) are the course's, not a copy's: ``compare`` leaves them out.

Why copydetect (measured on tests/grader/similarity_class.py, 27 November 2026): on the
normalised code it told the disguised copies (0.83, 0.73) from the best honest pair (0.18)
as well as Dolos 3.5.1 on the same lines (0.82, 0.81 against 0.21), and both did worse on
the raw source; it is two small pure-Python packages on top of what this environment has,
where Dolos is 455 MB of Node modules, twenty tree-sitter parsers compiled at install
(4 minutes here) and a Node process beside the grader.

Hashes are comparable only between processes that share Python's hash salt: the class is
fingerprinted in the process that compares it, or in processes forked from it.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from copydetect import CodeFingerprint

K = 25          # characters of tokens per fingerprint (copydetect's noise threshold)
WINDOW = 1      # winnowing window: 1 keeps every fingerprint


@dataclass(frozen=True)
class Prints:
    lines: dict[int, tuple[int, ...]]     # fingerprint -> the lines (indexes) its run of tokens covers

    @property
    def hashes(self) -> set[int]:
        return set(self.lines)


def fingerprint(text: str) -> Prints:
    """The fingerprints of ``text`` (a task's normalised lines joined), each with its lines."""
    code = CodeFingerprint("task.py", K, WINDOW, filter=True, language="python", fp=io.StringIO(text))
    if not code.hash_idx:
        return Prints({})
    values = list(code.hash_idx)
    counts = [len(code.hash_idx[v]) for v in values]
    firsts = np.concatenate([np.asarray(code.hash_idx[v], dtype=np.int64) for v in values])
    starts = np.cumsum([0] + [len(line) + 1 for line in text.split("\n")])
    first_line = np.searchsorted(starts, _raw(code, firsts), side="right") - 1
    last_line = np.searchsorted(starts, _raw(code, firsts + K - 1), side="right") - 1
    lines: dict[int, tuple[int, ...]] = {}
    at = 0
    for value, count in zip(values, counts):
        found = {n for i in range(at, at + count) for n in range(int(first_line[i]), int(last_line[i]) + 1)}
        lines[int(value)] = tuple(sorted(found))
        at += count
    return Prints(lines)


def _raw(code: CodeFingerprint, at: np.ndarray) -> np.ndarray:
    """The offsets in the raw text of the filtered text's characters ``at`` (as copydetect's
    ``compare_files`` maps its slices)."""
    offsets = code.offsets
    if len(offsets) == 0:
        return at
    return at + offsets[:, 1][np.clip(np.searchsorted(offsets[:, 0], at), 0, offsets.shape[0] - 1)]


def common_hashes(prints: Iterable[Prints], most: int) -> set[int]:
    """The fingerprints held by more than ``most`` of ``prints``."""
    held = Counter(h for p in prints for h in p.lines)
    return {h for h, n in held.items() if n > most}


@dataclass(frozen=True)
class Match:
    score: float                           # in [0, 1]
    weight: int                            # uncommon fingerprints of the smaller side
    lines: tuple[list[int], list[int]]     # each side's matched lines (indexes)


def compare(a: Prints, b: Prints, own_a: frozenset[int], own_b: frozenset[int]) -> Match:
    """The share of the smaller side's uncommon fingerprints (``own_a``, ``own_b``: each
    side's less the class's common ones) that the other holds too."""
    smaller = min(len(own_a), len(own_b))
    shared = own_a & own_b
    if not shared:
        return Match(0.0, smaller, ([], []))
    lines_a = sorted({n for h in shared for n in a.lines[h]})
    lines_b = sorted({n for h in shared for n in b.lines[h]})
    return Match(len(shared) / smaller, smaller, (lines_a, lines_b))
