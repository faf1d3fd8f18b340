"""Reading a class for the copying check: each hand-in through the grader's intake (zips and
folders, links refused, sizes bounded), its whole package parsed (never run) and
fingerprinted; the reference, ``solutions/minitorch``, read the same way; and the base code,
the released stubs (``minitorch/`` as released), whose fingerprints no one's code is
credited with (MOSS's ``-b``).

Hand-ins are read in processes forked from this one (engine.py's hashes are the same in
every process). Given an output folder, each hand-in's read is kept there (cache.py) and a
later run reads only the hand-ins that are new or changed."""

from __future__ import annotations

import ast
import functools
import multiprocessing
import pathlib
import tempfile
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from grader.intake.hand_in import read_hand_in
from grader.intake.submissions import Found
from grader.similarity import cache, engine, normal
from grader.similarity.code import WORD, TaskCode, Token, Unit, functions_of, units
from grader.similarity.compare import REFERENCE
from grader.similarity.package import Released, read_package, released
from grader.tasks import stage_of

ROOT = pathlib.Path(__file__).resolve().parents[2]
POOL_FROM = 20   # hand-ins to read, at least, for a pool of processes: below, forking and sending reads back cost more
SOLUTIONS, RELEASED = ROOT / "solutions" / "minitorch", ROOT / "minitorch"


@dataclass
class Read:
    learner: str
    codes: Mapping[str, TaskCode]
    prints: engine.Prints
    notes: list[str]
    whole: bool = True         # read to its end (not stopped by an error): worth keeping
    kept: bool = False         # taken back from the output folder (cache.py), not read this run


@dataclass
class Class:
    codes: dict[str, Mapping[str, TaskCode]]        # learner -> task -> code (the reference's too)
    prints: dict[str, engine.Prints]             # learner -> fingerprints, less the base code's
    notes: dict[str, list[str]]                  # learner -> what could not be read
    fresh: int = 0                               # hand-ins read in this run (the others were kept)
    names: dict[str, str] = field(default_factory=dict)   # learner -> its read's name (cache.py), where kept
    keep: Callable[[], None] = lambda: None      # keeps this run's reads in the output folder


@dataclass(frozen=True)
class Shape:
    units: list[Unit]          # each task's own functions
    given: Released            # the released package's functions
    base: frozenset[int]       # the released package's fingerprints


_KEPT_BASE: list[frozenset[int]] = []   # the base code's fingerprints, taken back from an output folder


@functools.cache
def shape() -> Shape:
    """The tasks' functions, the released stubs, and their fingerprints (the base code)."""
    if _KEPT_BASE:
        return Shape(units(SOLUTIONS), released(RELEASED), _KEPT_BASE[0])
    base: set[int] = set()
    for path in sorted(RELEASED.rglob("*.py")):
        file, text = path.relative_to(RELEASED).as_posix(), path.read_text(encoding="utf-8")
        words = [(w, file, n) for n, line in enumerate(text.splitlines(), 1) for w in WORD.findall(line.split("#")[0])]
        base |= {value for value, _ in engine.runs(words)}   # as a file that does not parse is read
        for _, node, nested in functions_of(ast.parse(text)):
            if not nested:
                canon = normal.canonical(node, fresh=True)
                bound, found = normal.bound_names(canon), list[Token]()
                for stmt in canon.body:
                    normal.tokens(stmt, bound, getattr(stmt, "lineno", node.lineno), file, found)
                base |= {value for value, _ in engine.runs(found)}
    return Shape(units(SOLUTIONS), released(RELEASED), frozenset(base))


def read_reference() -> Read:
    found = shape()
    codes, notes = read_package(SOLUTIONS, found.units, found.given, other=True)
    return Read(REFERENCE, codes, engine.fingerprint(codes, found.base), notes)


def read_one(found: Found) -> Read:
    """One hand-in's code, and what could not be read (a sentence each); a hand-in that
    breaks the reading is named with what broke it, and costs no other its comparison."""
    try:
        return _read_one(found)
    except Exception as error:  # noqa: BLE001 - one hand-in, never the class
        return Read(found.learner, {}, {}, [f"could not be read ({type(error).__name__}: {str(error)[:200]})"],
                    whole=False)


def _read_one(found: Found) -> Read:
    known = shape()
    with tempfile.TemporaryDirectory(prefix="similarity-") as scratch:
        hand_in = read_hand_in(found.path, found.learner, pathlib.Path(scratch))
        if hand_in.broken:
            return Read(found.learner, {}, {}, [hand_in.broken])
        codes: dict[str, TaskCode] = {}
        notes: list[str] = []
        by_package: dict[pathlib.Path, list[Unit]] = {}
        for unit in known.units:
            package = hand_in.packages.get(stage_of(unit.task))
            if package is not None:
                by_package.setdefault(package, []).append(unit)
        for n, (package, its_units) in enumerate(by_package.items()):
            read, why = read_package(package, its_units, known.given, other=n == 0)
            codes.update(read)
            notes += [n for n in why if n not in notes]
        if not codes and not notes:
            notes.append("no task's code found (every region as released)")
        return Read(found.learner, codes, engine.fingerprint(codes, known.base), notes)


def read_class(found: list[Found], jobs: int = 1, out: pathlib.Path | None = None,
               contents: dict[str, str] | None = None) -> Class:
    """Every hand-in's code and fingerprints (the reference's too), and what could not be read;
    with ``out``, the reads kept there are used and this run's are kept (cache.py), found by
    each hand-in's content hash (``contents``, or computed here), when ``Class.keep()`` is
    called: nothing is written into ``out`` before."""
    base, made = _base_kept(out)   # once, before the processes fork
    keys: dict[str, dict[str, str]] = {}
    if out is not None:
        from grader.similarity import _contents
        contents = _contents(found) if contents is None else contents
        keys = {f.learner: cache.key_of(f.learner, contents[f.learner]) for f in found if f.learner in contents}
    taken = [_taken(f, keys.get(f.learner), out) for f in found]   # here: a process would send it back pickled
    work = [f for f, read in zip(found, taken) if read is None]
    if jobs > 1 and len(work) >= max(POOL_FROM, jobs + 1):
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            fresh = iter(list(pool.map(read_one, work, chunksize=4)))
    else:
        fresh = iter([read_one(f) for f in work])
    reads = [read or next(fresh) for read in taken]

    def keep() -> None:
        if out is None:
            return
        if made is not None:
            cache.store(out, base, {}, {value: [("", 0)] for value in made}, [])
        for f, read in zip(found, reads):
            if read.whole and not read.kept and f.learner in keys:
                cache.store(out, keys[f.learner], read.codes, read.prints, read.notes,
                            never=(str(f.path), str(f.path.resolve()), tempfile.gettempdir(), str(ROOT)))
        cache.keep_only(out, [*keys.values(), base])
    reads.append(read_reference())
    names = {learner: cache.name_of(key) for learner, key in keys.items()}
    if names:
        names[REFERENCE] = cache.name_of(cache.key_of(REFERENCE, "the reference"))   # its code is in the key
    return Class({r.learner: r.codes for r in reads}, {r.learner: r.prints for r in reads},
                 {r.learner: r.notes for r in reads if r.notes}, sum(not r.kept for r in reads[:-1]), names, keep)


def _base_kept(out: pathlib.Path | None) -> tuple[dict[str, str], frozenset[int] | None]:
    """``shape()`` made, its base code's fingerprints taken back from ``out`` where a run with
    the same code kept them there; the key they are kept under, and those to keep there
    (None: kept already)."""
    key = cache.key_of("", "the base code")
    if out is not None and shape.cache_info().currsize == 0 and not _KEPT_BASE:
        got = cache.load(out, key)
        if got is not None:
            _KEPT_BASE[:] = [frozenset(got[1])]
    made = shape()
    return key, made.base if out is not None and not _KEPT_BASE else None


def _taken(found: Found, key: dict[str, str] | None, out: pathlib.Path | None) -> Read | None:
    """A hand-in's read kept under its key in ``out``, or None: it is read again."""
    got = cache.load(out, key) if out is not None and key is not None else None
    return Read(found.learner, *got, kept=True) if got is not None else None
