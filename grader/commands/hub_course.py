"""``python -m grader hub-course``: make the course on a JupyterHub with nbgrader's
exchange (docs/JUPYTERHUB.md)."""

from __future__ import annotations

import pathlib
import sys

from grader.lateness import ON_TIME, LatePolicy
from grader.settings import Settings


def main(*, out: pathlib.Path, course_id: str, assignment: str, exchange: pathlib.Path, settings: Settings,
         late: LatePolicy = ON_TIME) -> int:
    from grader.hub.course import HubCourseError, create, make_exchange
    exchange = exchange.resolve()
    try:
        made = create(out, course_id, assignment, exchange, settings, late)
    except HubCourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(make_exchange(exchange))
    print(f"course {course_id!r}, assignment {assignment!r} in {made}\n"
          f"learners' Jupyter settings: {made / 'learner-jupyter'} (see docs/JUPYTERHUB.md)\n"
          f"next, in {made}: nbgrader release_assignment {assignment}")
    return 0
