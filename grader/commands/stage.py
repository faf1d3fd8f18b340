"""``python -m grader stage add 8 --notebook 08_name --title ...`` and ``stage drop N``."""

from __future__ import annotations

import sys

from grader.course_edit.drop import drop_stage
from grader.course_edit.manifest import EditError
from grader.course_edit.scaffold import add_stage


def main(*, action: str, stage: str, notebook: str | None = None, title: str | None = None) -> int:
    try:
        if action == "add":
            if not notebook or not title:
                raise EditError("stage add needs --notebook NN_name and --title")
            changed = add_stage(stage, notebook, title)
        else:
            changed = drop_stage(stage)
    except EditError as error:
        print(f"stage {action}: {error}", file=sys.stderr)
        return 2
    print("\n".join(changed))
    print("then: " + ("python -m grader task add for each of its tasks, " if action == "add" else "")
          + "make release, and python -m grader check solutions (the reference earns every point)")
    return 0
