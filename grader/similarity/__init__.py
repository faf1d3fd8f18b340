"""The copying check (``python -m grader similarity``, and ``autograde``'s similarity files):
each task's code of every hand-in compared with every other's and with the reference's.

    code.py     a task's code in a package: the functions its regions fill, parsed and
                normalised, the released stubs' given lines left out (never run)
    read.py     a class read through the grader's intake, and the reference as a learner
    engine.py   copydetect's winnowing fingerprints, the class's common ones dropped
    compare.py  scores per pair and task, and per pair
    report.py   similarity.csv and similarity.html, for the instructor only
"""

from __future__ import annotations

import pathlib
import time

from grader.intake.submissions import Found


def write_similarity(found: list[Found], out: pathlib.Path, jobs: int = 1) -> list[str]:
    """Compare the hand-ins ``found`` and write similarity.csv and similarity.html into
    ``out``; the lines to print: what was written, flagged and left unread."""
    from grader.similarity.compare import REFERENCE, compare_class
    from grader.similarity.read import read_class
    from grader.similarity.report import write_csv, write_html
    start = time.perf_counter()
    read = read_class(found, jobs)
    middle = time.perf_counter()
    pairs = compare_class(read.codes, read.prints)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(pairs, out / "similarity.csv")
    write_html(pairs, read.codes, read.notes, out / "similarity.html")
    lines = [f"Similarity: {len(found)} hand-in(s) and the reference read in {middle - start:.1f} s, compared in "
             f"{time.perf_counter() - middle:.1f} s; {out / 'similarity.csv'}, open {out / 'similarity.html'}"]
    lines += [f"  matches the reference: {p.b if p.a == REFERENCE else p.a} ({p.score:.2f})"
              for p in pairs if p.flagged]
    lines += [f"  {learner}: {'; '.join(why)}" for learner, why in sorted(read.notes.items())]
    return lines
