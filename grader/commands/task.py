"""``python -m grader task add 3.4 --title ... --file ... --calls ... --part NAME=POINTS``."""

from __future__ import annotations

import sys

from grader.course_edit.manifest import EditError
from grader.course_edit.scaffold import add_task


def main(*, action: str = "add", task: str, title: str, file: str, calls: list[str], parts: list[str],
         swaps: list[str] | None = None) -> int:
    try:
        points = {}
        for text in parts:
            name, sep, value = text.rpartition("=")
            if not sep or not name:
                raise EditError(f"--part {text!r}: expected NAME=POINTS, for example --part Softplus=1")
            try:
                points[name] = float(value)
            except ValueError:
                raise EditError(f"--part {text!r}: {value!r} is not a number of points") from None
        changed = add_task(task, title, file, calls, points, swaps=swaps)
    except EditError as error:
        print(f"task add: {error}", file=sys.stderr)
        return 2
    print("\n".join(changed))
    print("then: make release, and python -m grader check solutions (the reference earns every point)")
    return 0
