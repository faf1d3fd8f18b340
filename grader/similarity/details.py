"""The pairs' details (compare.py's ``detail``: each task's shared fingerprints and each
side's matched lines) kept in the output folder, in ``pairs.details``, by the names of both
sides' reads (cache.py): a pair's details depend on its two reads alone, so a re-run works
out again only the pairs of the hand-ins that changed. Kept as cache.py keeps a read
(compressed JSON under its hash, written whole or not at all); details damaged, cut short
or of the wrong types are all ignored and worked out again."""

from __future__ import annotations

import json
import pathlib

from grader.similarity.cache import FOLDER
from grader.similarity.framing import pack, unpack

DETAILS = "pairs.details"
Detail = tuple[dict[str, int], tuple[dict[str, set[tuple[str, int]]], dict[str, set[tuple[str, int]]]]]


def load_details(out: pathlib.Path) -> dict[tuple[str, str], Detail]:
    """The details of the pairs the last run worked out (compare.py's ``detail``), by the
    names of both sides' reads: {} when none are kept or they are not to be trusted."""
    try:
        kept = unpack(out / FOLDER / DETAILS)
        found: dict[tuple[str, str], Detail] = {}
        for a, b, tasks, lines_a, lines_b in kept or []:
            if not (type(a) is str and type(b) is str and isinstance(tasks, dict)
                    and all(type(t) is str and type(n) is int for t, n in tasks.items())):
                return {}
            found[a, b] = (dict(tasks), (_lines(lines_a), _lines(lines_b)))
        return found
    except Exception:  # noqa: BLE001 - whatever is wrong with them, the pairs are worked out again
        return {}


def _lines(kept) -> dict[str, set[tuple[str, int]]]:
    if not isinstance(kept, dict) or not all(type(t) is str and isinstance(p, list) for t, p in kept.items()):
        raise TypeError("not a mapping of tasks to lines")
    found = {task: {(file, line) for file, line in places} for task, places in kept.items()}
    if not all(type(file) is str and type(line) is int for places in found.values() for file, line in places):
        raise TypeError("not a list of (file, line)")
    return found


def store_details(out: pathlib.Path, details: dict[tuple[str, str], Detail]) -> None:
    """Keep this run's pairs' details (replacing the last run's)."""
    pack(out, DETAILS, json.dumps([[a, b, tasks, {t: sorted(p) for t, p in lines[0].items()},
                                       {t: sorted(p) for t, p in lines[1].items()}]
                                      for (a, b), (tasks, lines) in details.items()]))
