"""Each hand-in's verdicts, kept under what graded them, so that a re-run grades only the
hand-ins whose content changed or whose grading inputs did: the grader's checks and the
code that runs them (``grading_inputs``: a hash of their source, the manifest and the
course's data) and the limits (``Settings``). A file here is named by the hand-in's content
hash and those inputs together, written once and never changed; a change of any input
names another file, so nothing stale is ever reused."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pathlib

import grader.files as files
from grader.results import LearnerResult
from grader.settings import Settings

GRADER = pathlib.Path(__file__).resolve().parents[1]
# What decides a hand-in's verdicts: the checks, the code that reads, confines and runs a
# hand-in, the manifest and the course's data. Outputs, the gradebook and the term do not.
INPUTS = ("checks", "grading", "boundary", "learner", "intake", "probe_declarations.py", "tasks.py", "tasks.toml",
          "results.py", "settings.py")


@functools.cache
def grading_inputs() -> str:
    """A hash of the source of everything that decides a hand-in's verdicts."""
    digest = hashlib.sha256()
    paths: list[pathlib.Path] = []
    for name in INPUTS:
        path = GRADER / name
        paths += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    data = GRADER.parent / "minitorch" / "data"
    paths += sorted(p for p in data.rglob("*") if p.is_file()) if data.is_dir() else []
    for path in paths:
        digest.update(str(path.relative_to(GRADER.parent)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def key(content: str, settings: Settings) -> str:
    """The name of a hand-in's verdicts: its content and what grades it."""
    inputs = json.dumps([content, grading_inputs(), settings.as_dict()], sort_keys=True)
    return hashlib.sha256(inputs.encode()).hexdigest()[:24]


def path(out: pathlib.Path, content: str, settings: Settings) -> pathlib.Path:
    return out / files.GRADED / f"{key(content, settings)}.json"


def name_of(verdicts: str) -> str:
    """What the term's record keeps of a path of verdicts: its file's name (the key), never
    the folder it was in, so that a copied, moved or restored output folder is the same
    term (a record written with whole paths reads the same)."""
    return pathlib.PurePath(verdicts).name


def at(out: pathlib.Path, name: str) -> pathlib.Path:
    """The verdicts kept under ``name`` (``name_of``) in the output folder ``out``."""
    return out / files.GRADED / name_of(name)


def load(where: pathlib.Path) -> LearnerResult | None:
    """The verdicts kept at ``where``, or None when that hand-in was not graded so."""
    try:
        return LearnerResult.from_json(json.loads(where.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save(where: pathlib.Path, result: LearnerResult) -> None:
    """Keep ``result``'s verdicts (before any correction or late penalty), once."""
    if where.exists():
        return
    data = result.to_json()
    data.update(late_days=0, penalty=0.0, corrections={})
    where.parent.mkdir(parents=True, exist_ok=True)
    part = where.with_suffix(f".{os.getpid()}.part")
    part.write_text(json.dumps(data), encoding="utf-8")
    os.replace(part, where)
