"""``python -m grader similarity SUBMISSIONS --out DIR``: the copying check on a folder of
hand-ins (one .zip or folder per learner, as ``autograde`` takes them): similarity.csv and
similarity.html in ``DIR``. Nothing is run: the hand-ins are only read and parsed."""

from __future__ import annotations

import pathlib
import sys
import time


def main(*, submissions: pathlib.Path, out: pathlib.Path, jobs: int = 1) -> int:
    from grader.intake.submissions import find_learners
    from grader.similarity import write_similarity
    folder, out = submissions.resolve(), out.resolve()
    if not folder.is_dir():
        print(f"error: {folder} is not a folder of submissions", file=sys.stderr)
        return 2
    if folder.is_relative_to(out) or out.is_relative_to(folder):
        print(f"error: the submissions ({folder}) and the output ({out}) overlap; choose another --out",
              file=sys.stderr)
        return 2
    start = time.perf_counter()
    found, refused = find_learners(folder)
    print(f"{len(found)} hand-in(s) in {folder} to compare, {len(refused)} entr(ies) refused", flush=True)
    for r in refused:
        print(f"  refused {r.name!r}: {r.reason}")
    for line in write_similarity(found, out, jobs):
        print(line)
    print(f"Done in {time.perf_counter() - start:.1f} s")
    return 0
