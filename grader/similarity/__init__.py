"""The copying check (``python -m grader similarity``, and ``autograde``'s similarity files):
every hand-in's whole package compared with every other's, and with the reference's on its own.

    code.py     where a task's code is (the functions its regions fill); a file that does not parse
    package.py  a package's code task by task: each task's functions with the learner's helpers inlined
    normal.py   a function's canonical form and its tokens (names, loops, dead code undone)
    engine.py   fingerprints of the tokens, less the released stubs' (the base code)
    read.py     a class read through the grader's intake, the reference, and the base code
    cache.py    each hand-in's read kept in the output folder, so a re-run reads only the changed ones
    compare.py  every pair's shared code, and its verdict, in one sparse product
    when.py     each hand-in's time and kept hand-ins (grader/term/), to tell who handed in first
    tables.py   similarity-pairs.csv and similarity.csv
    report.py   similarity.html, for the instructor only
"""

from __future__ import annotations

import pathlib
import sys
import time
from collections.abc import Callable

from grader.files import SIMILARITY as WRITTEN
from grader.files import SIMILARITY_INPUTS
from grader.intake.submissions import Found

AT_MOST_ALONG = 2000   # autograde and merge compare a class this large at most: pairs grow as its square


def along_with_grading(found: list[Found], out: pathlib.Path, jobs: int, folder: pathlib.Path,
                       ready: Callable[[], None] = lambda: None) -> list[str]:
    """The check as ``autograde`` and ``merge`` run it, after the grades are written: for a
    class of at most ``AT_MOST_ALONG`` hand-ins (a larger one is checked by its own command,
    a section at a time). Kept as it is when neither a hand-in, nor their times, nor the check
    changed since it last ran into ``out`` (a run for a deadline or a correction, a moved
    output folder): ``similarity-inputs.txt`` records what it was made from. Nothing is
    written into ``out`` before ``ready()`` returns (the run's plan is made: the hand-ins
    kept, their times known)."""
    if len(found) > AT_MOST_ALONG:
        return [f"Similarity: {len(found)} hand-ins are more than the {AT_MOST_ALONG} checked along with grading "
                f"(pairs grow as the square of the class): run `python -m grader similarity SUBMISSIONS --out DIR` "
                "on each section's folder"]
    mark = out / SIMILARITY_INPUTS
    try:
        contents = _contents(found)
        stamp = _inputs(found, out, contents)
        if all((out / name).is_file() for name in WRITTEN) and mark.is_file() \
                and mark.read_text(encoding="utf-8") == stamp:
            return [f"Similarity: no hand-in and nothing of the check changed since it last ran: "
                    f"{', '.join(WRITTEN)} stand"]
        def begin() -> None:
            ready()
            mark.unlink(missing_ok=True)
        lines = write_similarity(found, out, jobs, contents, begin)
        mark.write_text(stamp, encoding="utf-8")
        return lines
    except Exception as error:  # noqa: BLE001 - the grades are written; say what stopped the check
        return [_stopped(f"{type(error).__name__}: {error}", folder, out)]


class Beside:
    """The check as ``along_with_grading`` runs it, in a process forked as the run starts, so
    that it takes what of the cores the run's own set-up and grading leave free (it runs at
    niceness 5, yielding to them, and to any other work on the machine; it reads the
    hand-ins, never the grades). It hashes the hand-ins for itself (``kept.hash_ahead``, while
    the run does the same), reads and compares at once, and writes nothing until
    ``go()`` (the run's plan made: the hand-ins kept, their times known); a run that stops
    before that ends it (``stop()``), and one killed takes it down. ``lines()`` waits for it
    and gives what it says; where it cannot be forked (threads running, no ``fork``), the
    check runs in ``lines()``, in this process."""

    def __init__(self, found: list[Found], out: pathlib.Path, jobs: int, folder: pathlib.Path,
                 holding: int = -1) -> None:
        import os
        import threading
        self.run = (found, out, jobs, folder)
        self.pid, self.pipe, self.start = 0, -1, -1
        if not hasattr(os, "fork") or threading.active_count() > 1:
            return
        for stream in (sys.stdout, sys.stderr):
            stream.flush()   # or the child would write what is still buffered a second time
        (read, write), (wait, start) = os.pipe(), os.pipe()
        parent = os.getpid()
        pid = os.fork()
        if pid:
            os.close(write)
            os.close(wait)
            self.pid, self.pipe, self.start = pid, read, start
            return
        said = 1
        try:
            os.close(read)
            os.close(start)
            if holding >= 0:
                os.close(holding)   # the run's lock stays the run's: its own descriptor holds it

            def ready() -> None:
                if os.read(wait, 1) != b"1":   # the run stopped before its plan: nothing written
                    os._exit(1)
            _die_with_parent(parent)
            os.nice(5)   # the run's own set-up and grading first
            from grader.term.kept import hash_ahead
            hash_ahead((f.path for f in found), out)   # as the run does meanwhile, from the same marks
            said = _send(write, along_with_grading(*self.run, ready=ready))
        finally:
            os._exit(said)   # nothing of the parent's is flushed, closed or cleaned up twice

    def go(self) -> None:
        """The run's plan is made: the check may write."""
        import os
        if self.start >= 0:
            try:
                os.write(self.start, b"1")
            except BrokenPipeError:   # it has ended already: it had nothing to write
                pass
            os.close(self.start)
            self.start = -1

    def stop(self) -> None:
        """End it unheard (the run stops short of its grades)."""
        import os
        import signal
        if self.pid:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            os.close(self.pipe)
            self.pid = 0
        if self.start >= 0:
            os.close(self.start)
            self.start = -1

    def lines(self) -> list[str]:
        import json
        import os
        if not self.pid:
            return along_with_grading(*self.run)
        self.go()
        chunks = []
        while chunk := os.read(self.pipe, 1 << 16):
            chunks.append(chunk)
        os.close(self.pipe)
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        try:
            lines = json.loads(b"".join(chunks))
            if os.waitstatus_to_exitcode(status) == 0 and isinstance(lines, list):
                return [str(line) for line in lines]
        except ValueError:
            pass
        _, out, _, folder = self.run
        return [_stopped(f"its process ended with status {os.waitstatus_to_exitcode(status)}", folder, out)]


def _stopped(why: str, folder: pathlib.Path, out: pathlib.Path) -> str:
    return f"warning: the similarity check stopped ({why}); run `python -m grader similarity {folder} --out {out}` to try again"


def _send(fd: int, lines: list[str]) -> int:
    import json
    import os
    data = memoryview(json.dumps(lines).encode())
    while data:
        data = data[os.write(fd, data):]
    return 0


def _die_with_parent(parent: int) -> None:
    """Ask Linux to end this process when the run's own ends (a run killed mid-way)."""
    import ctypes
    import os
    import signal
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:   # it ended before that was asked
        os._exit(1)


def write_similarity(found: list[Found], out: pathlib.Path, jobs: int = 1,
                     contents: dict[str, str] | None = None, ready: Callable[[], None] = lambda: None) -> list[str]:
    """Compare the hand-ins ``found`` and write similarity-pairs.csv, similarity.csv and
    similarity.html into ``out``; the lines to print: what was written, flagged and left unread.
    Each hand-in's read is kept in ``out`` (cache.py): a later run reads only the changed ones.
    ``contents``: each learner's hand-in's content hash, when the caller has them. Nothing is
    written before ``ready()`` returns."""
    from grader.similarity import cache, details
    from grader.similarity.compare import compare_class
    from grader.similarity.read import read_class
    from grader.similarity.report import write_html
    from grader.similarity.tables import write_pairs, write_tasks
    from grader.similarity.when import handed_in
    start = time.perf_counter()
    read = read_class(found, jobs, out, contents)
    middle = time.perf_counter()
    earlier = details.load_details(out)
    compared = compare_class(read.codes, read.prints, names=read.names, kept=earlier)
    ready()   # (written from here on)
    read.keep()
    details.store_details(out, compared.details, earlier)
    times, warnings = handed_in(found, out)
    out.mkdir(parents=True, exist_ok=True)
    write_pairs(compared, times, out / "similarity-pairs.csv")
    write_tasks(compared, read.prints, out / "similarity.csv")
    write_html(compared, read.codes, read.notes, times, out / "similarity.html", read.names)
    kept = f" ({len(found) - read.fresh} unchanged since the last run, kept in {cache.FOLDER}/)" \
        if read.fresh < len(found) else ""
    lines = [f"Similarity: {len(found)} hand-in(s){kept} and the reference read in {middle - start:.1f} s, compared in "
             f"{time.perf_counter() - middle:.1f} s; {out / 'similarity-pairs.csv'}, open {out / 'similarity.html'}"]
    flagged = [p for p in compared.pairs if p.flagged]
    lines += [f"  matches the reference: {p.learner} ({p.score:.2f})" for p in flagged if p.with_reference]
    lines += [f"  flagged pair: {p.a} and {p.b} ({p.amount} fingerprints shared)" for p in flagged
              if not p.with_reference]
    lines += [f"  {learner}: {'; '.join(why)}" for learner, why in sorted(read.notes.items())]
    lines += [f"  {warning}" for warning in warnings]
    return lines


def _contents(found: list[Found]) -> dict[str, str]:
    """Each hand-in's content hash (grader/term/kept.py), but for one that is gone or unreadable."""
    from grader.term.kept import content_of
    hashes = {}
    for f in found:
        try:
            hashes[f.learner] = content_of(f.path)
        except (OSError, ValueError):
            continue
    return hashes


def _inputs(found: list[Found], out: pathlib.Path, contents: dict[str, str]) -> str:
    """A hash of what the check reads: each hand-in's content, the hand-in times given in
    ``out`` (submitted.csv), and what every read depends on (``cache.reading``: the check's
    own code, the reference and the released stubs)."""
    import hashlib
    import json

    from grader.similarity.cache import reading
    times = out / "submitted.csv"
    return hashlib.sha256(json.dumps([sorted((f.learner, contents.get(f.learner, "")) for f in found), reading(),
                                      times.read_text(encoding="utf-8", errors="replace") if times.is_file() else ""]
                                     ).encode()).hexdigest()
