"""The term's audit log, ``log.jsonl`` in the output folder: one JSON line per change to a
learner's score, appended and never rewritten. Each line says when, which run, the learner,
what changed (a task's score, the final, or the learner's row appearing), the values before
and after, and why (a new hand-in, a correction, a manual grade, an extension, a grader
change, a regrade), with the late penalty and where the hand-in's time was read. grades.csv's
scores can be rebuilt from it (``rebuild``).

A run's changes are measured from what the log says (``rebuild``), not from the grades.csv
it finds: a run killed after it wrote grades.csv and before it logged leaves its changes to
the next run, which logs them with its own. A line cut short by a kill is cut off (``repair``)."""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import pathlib

import grader.files as files
from grader.tasks import TASKS
from grader.term.faults import point

FIELDS = ["row", "final", *[f"task{t}" for t in TASKS]]
GENERIC = "a new run of the grader"   # the reason when no other applies


def read_grades(path: pathlib.Path) -> dict[str, dict[str, str]]:
    """The learners' rows of a grades.csv (graded and missing), the fields the log follows."""
    if not path.is_file():
        return {}
    with path.open(newline="", encoding="utf-8") as file:
        return {r["learner"]: {f: r.get(f, "") for f in FIELDS} for r in csv.DictReader(file)
                if r["row"] in ("graded", "missing")}


def changes(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]], why: dict[str, str],
            run: str, learners: set[str] | None = None) -> list[dict]:
    """The log lines from one grades.csv to the next (only ``learners``' rows, if given)."""
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    lines = []
    for learner in sorted(set(before) | set(after)):
        if learners is not None and learner not in learners:
            continue
        old, new = before.get(learner, {}), after.get(learner, {})
        for name in FIELDS:
            if old.get(name) != new.get(name):
                lines.append({"when": now, "run": run, "learner": learner, "what": name, "before": old.get(name),
                              "after": new.get(name), "why": why.get(learner, GENERIC)})
    return lines


def append(out: pathlib.Path, lines: list[dict]) -> None:
    """Add ``lines`` to the log, on disk before this returns (a torn tail cut off first)."""
    repair(out)
    with (out / files.LOG).open("a", encoding="utf-8") as file:
        for n, line in enumerate(lines):
            if n == len(lines) // 2:
                file.flush()
                point("log: half the lines written")
            file.write(json.dumps(line, sort_keys=True) + "\n")
        file.flush()
        os.fsync(file.fileno())


def repair(out: pathlib.Path) -> bool:
    """Cut off a last line left unfinished by a run killed while writing it; True if one was."""
    path = out / files.LOG
    if not path.is_file():
        return False
    data = path.read_bytes()
    whole = data.rfind(b"\n") + 1
    if whole == len(data):
        return False
    with path.open("r+b") as file:
        file.truncate(whole)
    return True


def read(out: pathlib.Path) -> list[dict]:
    """The log's lines (a last line cut short by a kill is not one)."""
    path = out / files.LOG
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text[:text.rfind("\n") + 1].splitlines() if line.strip()]


def rebuild(out: pathlib.Path) -> dict[str, dict[str, str]]:
    """grades.csv's followed fields, per learner, from the log alone."""
    rows: dict[str, dict[str, str]] = {}
    for line in read(out):
        row = rows.setdefault(line["learner"], {})
        if line["after"] is None:
            row.pop(line["what"], None)
        else:
            row[line["what"]] = line["after"]
    return {learner: row for learner, row in rows.items() if row}


def print_changes(changes: list[dict], only: list[str] | None) -> None:
    """What changed, per learner and task, before and after (all of it for --only)."""
    shown = [c for c in changes if c["before"] is not None] if not only else changes
    for c in shown[:200 if not only else None]:
        print(f"  changed {c['learner']} {c['what']}: {c['before']} -> {c['after']} ({c['why']})")
    if only and not changes:
        print(f"  no score changed for {', '.join(only)}")
