"""Comparing a class: every pair of hand-ins, and every hand-in with the reference, on their
fingerprints (the base code's already left out), in one sparse product.

What a flag rests on, the same whoever else is in the class:

* a hand-in and the reference: the fingerprints they share, less only the base code. It is
  flagged when they cover at least ``REFERENCE_FLAG`` of the reference's own code. The
  class's common filter never applies here: learners who write a few easy tasks as the
  reference does cannot hide a copier of it.
* two learners: the fingerprints they share that neither the base code nor the reference
  holds (writing a task as the reference does is no evidence against a classmate). The
  pair is flagged when that amount is at least ``PAIR_FLAG`` fingerprints (about 50 lines of
  code): an amount, not a ratio, so two short tasks written alike are never enough.

What depends on the class, and never on a flag: ``uncommon``, the shared code less what
more than a tenth of the class holds (at least ``COMMON_AT_LEAST`` learners), on which the
pairs are ranked and scored, so that what many learners wrote alike weighs nothing there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from grader.similarity import engine
from grader.similarity.code import TaskCode
from grader.similarity.details import Detail
from grader.similarity.engine import Prints

REFERENCE = "solutions/minitorch"   # no hand-in has this name: an entry's name never holds "/"
COMMON_SHARE = 0.1
COMMON_AT_LEAST = 3
PAIR_FLAG = 500          # fingerprints two learners share, less the base code and the reference's (about 50 lines)
REFERENCE_FLAG = 0.6     # of the reference's own fingerprints that a hand-in shares with it
DETAILED = 1000          # pairs whose tasks and lines are worked out (and every flagged pair)


@dataclass
class Pair:
    a: str
    b: str
    amount: int                # shared fingerprints a flag rests on
    uncommon: int              # of them, those the class does not hold in common: the ranking's
    score: float               # uncommon / the smaller side's uncommon code, in [0, 1]
    flagged: bool
    tasks: dict[str, int] = field(default_factory=dict)                              # task -> shared fingerprints
    lines: tuple[dict, dict] = field(default_factory=lambda: ({}, {}))               # each side: task -> {(file, line)}

    @property
    def with_reference(self) -> bool:
        return REFERENCE in (self.a, self.b)

    @property
    def learner(self) -> str:
        """The pair's learner that is not the reference."""
        return self.b if self.a == REFERENCE else self.a

    def matched_lines(self) -> int:
        return min(sum(len(s) for s in side.values()) for side in self.lines)


@dataclass
class Compared:
    pairs: list[Pair]              # ranked: flagged first, then by uncommon shared code
    common: frozenset[int]         # the class's common fingerprints
    reference: frozenset[int]      # the reference's
    places: dict = field(default_factory=dict, repr=False, compare=False)   # engine.matched_lines's, kept per run
    details: dict[tuple[str, str], Detail] = field(default_factory=dict, repr=False, compare=False)


def compare_class(codes: dict[str, Mapping[str, TaskCode]], prints: dict[str, Prints], detailed: int = DETAILED,
                  names: dict[str, str] | None = None, kept: Mapping[tuple[str, str], Detail] | None = None) -> Compared:
    """Every pair that shares code, ranked, with its verdict; tasks and lines for the first
    ``detailed`` and every flagged pair (engine.matched_lines). A pair's details depend on its
    two reads alone: ``kept`` holds those of an earlier run, by the ``names`` of both sides'
    reads (cache.py), and ``Compared.details`` this run's."""
    learners = sorted(p for p in prints if p != REFERENCE)
    reference = frozenset(prints.get(REFERENCE, {}))
    each = [np.fromiter(prints[learner], dtype=np.int64, count=len(prints[learner])) for learner in learners]
    rows = np.repeat(np.arange(len(learners)), [len(values) for values in each])
    hashes, cols = np.unique(np.concatenate(each) if each else np.zeros(0, np.int64), return_inverse=True)
    held = sparse.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols.ravel())),
                             shape=(len(learners), len(hashes)))
    by_reference = np.isin(hashes, np.fromiter(reference, dtype=np.int64, count=len(reference)))
    most = max(COMMON_AT_LEAST, int(COMMON_SHARE * len(learners)))
    common = np.asarray(held.sum(axis=0)).ravel() > most
    alike = held[:, np.flatnonzero(~by_reference)]
    rare = held[:, np.flatnonzero(~by_reference & ~common)]
    amounts = (alike @ alike.T).toarray()
    uncommon = (rare @ rare.T).toarray()
    own = np.asarray(rare.sum(axis=1)).ravel()
    with_reference = np.asarray(held[:, np.flatnonzero(by_reference)].sum(axis=1)).ravel()
    sizes = np.asarray(held.sum(axis=1)).ravel()
    pairs = []
    for i, j in zip(*np.nonzero(np.triu(amounts, 1))):
        smaller = min(own[i], own[j])
        pairs.append(Pair(learners[i], learners[j], int(amounts[i, j]), int(uncommon[i, j]),
                          float(uncommon[i, j] / smaller) if smaller else 0.0, bool(amounts[i, j] >= PAIR_FLAG)))
    if reference:
        for i in np.flatnonzero(with_reference):
            shared = int(with_reference[i])
            a, b = sorted((learners[i], REFERENCE))
            pairs.append(Pair(a, b, shared, shared, shared / min(sizes[i], len(reference)),
                              shared >= REFERENCE_FLAG * len(reference)))
    pairs.sort(key=lambda p: (not p.flagged, -p.uncommon, -p.amount, p.a, p.b))
    found = Compared(pairs, frozenset(hashes[common].tolist()), reference)
    names, kept = names or {}, kept or {}
    for rank, pair in enumerate(pairs):
        if rank < detailed or pair.flagged:
            both = (names.get(pair.a, ""), names.get(pair.b, ""))
            got = None
            if all(both) and both in kept:
                try:
                    got = kept[both]
                except (TypeError, ValueError):   # a kept pair's lines of the wrong types: worked out again
                    got = None
            if got is not None:
                pair.tasks, pair.lines = got
            else:
                detail(pair, codes, prints, found)
            if all(both):   # (one kept is the same object: written back as it was read)
                found.details[both] = got if got is not None else (pair.tasks, pair.lines)
    return found


def detail(pair: Pair, codes: dict[str, Mapping[str, TaskCode]], prints: dict[str, Prints], found: Compared) -> None:
    """The pair's shared fingerprints task by task (on side a: the task of each one's first
    occurrence there), and each side's matched lines."""
    a, b = prints[pair.a], prints[pair.b]
    shared = a.keys() & b.keys()
    if not pair.with_reference:
        shared -= found.reference
    ordered = np.sort(np.fromiter(shared, dtype=np.int64, count=len(shared)))
    values, tasks, _, names = engine.occurrences(a, found.places)
    counts = np.bincount(tasks[np.searchsorted(values, ordered)], minlength=len(names))
    pair.tasks = dict(sorted(((names[t], int(c)) for t, c in enumerate(counts.tolist()) if c),
                             key=lambda t: (-t[1], t[0])))
    pair.lines = (engine.matched_lines(codes[pair.a], a, ordered, found.places),
                  engine.matched_lines(codes[pair.b], b, ordered, found.places))
