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

AT_MOST_ALONG = 2000   # autograde and merge compare a class this large at most: pairs grow as its square


def along_with_grading(found: list[Found], out: pathlib.Path, jobs: int, folder: pathlib.Path) -> list[str]:
    """The check as ``autograde`` and ``merge`` run it, after the grades are written: for a
    class of at most ``AT_MOST_ALONG`` hand-ins (a larger one is checked by its own command,
    a section at a time)."""
    if len(found) > AT_MOST_ALONG:
        return [f"Similarity: {len(found)} hand-ins are more than the {AT_MOST_ALONG} checked along with grading "
                f"(pairs grow as the square of the class): run `python -m grader similarity SUBMISSIONS --out DIR` "
                "on each section's folder"]
    try:
        return write_similarity(found, out, jobs)
    except Exception as error:  # noqa: BLE001 - the grades are written; say what stopped the check
        return [f"warning: the similarity check stopped ({type(error).__name__}: {error}); run `python -m grader "
                f"similarity {folder} --out {out}` to try again"]


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
