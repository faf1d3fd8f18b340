"""``python -m grader check [PATH]``: grade one hand-in, print its table, write its page."""

from __future__ import annotations

import pathlib
import sys

from grader.settings import Settings
from grader.tasks import STAGES


def main(*, path: pathlib.Path, out: pathlib.Path, settings: Settings) -> int:
    from grader.grading.hand_ins import grade_learner
    from grader.outputs import feedback
    from grader.outputs.tables import table
    path = path.resolve()
    if not path.exists():
        print(f"error: {path} does not exist", file=sys.stderr)
        return 2
    print(f"Grading {path} ...", flush=True)
    result = grade_learner(path, "you", settings,
                           lambda stage: print(f"  stage {stage} ({STAGES[stage]}) ...", flush=True))
    print()
    print(table(result))
    page = feedback.write(result, out.resolve() / "feedback.html")
    print(f"\nFeedback: {page}")
    return 0
