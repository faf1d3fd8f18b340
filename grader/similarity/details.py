"""The pairs' details (compare.py's ``detail``: each task's shared fingerprints and each
side's matched lines) kept in the output folder, in ``pairs.details``, by the names of both
sides' reads (cache.py): a pair's details depend on its two reads alone, so a re-run works
out again only the pairs of the hand-ins that changed. Kept as cache.py keeps a read
(compressed JSON under its hash, written whole or not at all); details damaged, cut short
or of the wrong types are all ignored and worked out again."""

from __future__ import annotations

import json
import pathlib
from collections.abc import Mapping, MutableMapping

from grader.similarity.cache import FOLDER
from grader.similarity.framing import pack, unpack

DETAILS = "pairs.details"
Detail = tuple[dict[str, int], tuple[dict[str, set[tuple[str, int]]], dict[str, set[tuple[str, int]]]]]


def load_details(out: pathlib.Path) -> Kept:
    """The details of the pairs the last run worked out (compare.py's ``detail``), by the
    names of both sides' reads: none when none are kept or they are not to be trusted. A
    pair's lines are made when it is first asked for (most pairs of a re-run are only
    written back, as they were read)."""
    try:
        kept = unpack(out / FOLDER / DETAILS)
        rows: dict[tuple[str, str], list] = {}
        for a, b, tasks, lines_a, lines_b in kept or []:
            if not (type(a) is str and type(b) is str and isinstance(tasks, dict)
                    and all(type(t) is str and type(n) is int for t, n in tasks.items())):
                return Kept({})
            rows[a, b] = [tasks, lines_a, lines_b]
        return Kept(rows)
    except Exception:  # noqa: BLE001 - whatever is wrong with them, the pairs are worked out again
        return Kept({})


class Kept(MutableMapping[tuple[str, str], Detail]):
    """Kept pairs' details, each made from its row when first asked for; a pair's lines of
    the wrong types raise ``TypeError`` then (that pair is worked out again)."""

    def __init__(self, rows: dict[tuple[str, str], list]) -> None:
        self._rows, self._made = rows, dict[tuple[str, str], Detail]()

    def __getitem__(self, both: tuple[str, str]) -> Detail:
        made = self._made.get(both)
        if made is None:
            tasks, lines_a, lines_b = self._rows[both]
            made = self._made[both] = (dict(tasks), (_lines(lines_a), _lines(lines_b)))
        return made

    def __setitem__(self, both: tuple[str, str], detail: Detail) -> None:
        self._rows[both], self._made[both] = [], detail

    def __delitem__(self, both: tuple[str, str]) -> None:
        del self._rows[both]
        self._made.pop(both, None)

    def __iter__(self):
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def row(self, both: tuple[str, str], detail: Detail) -> list | None:
        """The row ``detail`` was made from, as it was read: written back as it is."""
        return self._rows.get(both) if self._made.get(both) is detail else None


def _lines(kept) -> dict[str, set[tuple[str, int]]]:
    if not isinstance(kept, dict) or not all(type(t) is str and isinstance(p, list) for t, p in kept.items()):
        raise TypeError("not a mapping of tasks to lines")
    found = {task: {(file, line) for file, line in places} for task, places in kept.items()}
    if not all(type(file) is str and type(line) is int for places in found.values() for file, line in places):
        raise TypeError("not a list of (file, line)")
    return found


def store_details(out: pathlib.Path, details: Mapping[tuple[str, str], Detail], kept: Kept | None = None) -> None:
    """Keep this run's pairs' details (replacing the last run's); those taken from ``kept``
    are written back as they were read."""
    rows = []
    for (a, b), detail in details.items():
        row = kept.row((a, b), detail) if kept is not None else None
        if row is None:
            tasks, lines = detail
            row = [tasks, {t: sorted(p) for t, p in lines[0].items()}, {t: sorted(p) for t, p in lines[1].items()}]
        rows.append([a, b, *row])
    pack(out, DETAILS, json.dumps(rows))
