"""The late policy, applied once, before a learner's grade is recorded.

A hand-in's time comes from an explicit source (``term/times.py``: ``submitted.csv``,
nbgrader's ``timestamp.txt``, a platform's metadata), a file's own time only with a warning;
a learner's deadline is the class's or their extension's. Each started day after the deadline costs
``percent_per_day`` percent of the learner's total, at most 100. The deadline and the rate
travel together as one ``LatePolicy``, parsed once (the command line or the course's
traitlet) and handed down; its ``apply`` sets a ``LearnerResult``'s lateness (grades.csv's
``final``); ``gradebook.preprocessor.CourseLatePolicy`` is the same
rule as nbgrader's late-submission plugin, so that the gradebook (its score less its late penalty)
holds the same final grade, and ``nbgrader autograde`` run by hand in the course applies it
too (the course gives each assignment the deadline as its due date).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from grader.outputs.words import plural
from grader.results import LearnerResult


def lateness(when: dt.datetime, deadline: dt.datetime | None, penalty_per_day: float) -> tuple[int, float]:
    """(days late, penalty in percent)."""
    if deadline is None or when <= deadline:
        return 0, 0.0
    return days_and_percent((when - deadline).total_seconds(), penalty_per_day)


def days_and_percent(seconds_late: float, penalty_per_day: float) -> tuple[int, float]:
    """Each started day late costs ``penalty_per_day`` percent, at most 100."""
    days = math.ceil(seconds_late / 86400) if seconds_late > 0 else 0
    return days, min(100.0, days * penalty_per_day)


def parse_deadline(text: str | None, flag: str = "--deadline") -> dt.datetime | None:
    """An ISO 8601 date and time (UTC unless it says otherwise); ``flag`` names it in the error."""
    if not text:
        return None
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{flag} {text!r}: expected ISO 8601, for example 2026-12-01T23:59:00+00:00") from None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


@dataclass(frozen=True)
class LatePolicy:
    """The course's late rule: hand-ins after ``deadline`` lose ``percent_per_day`` percent
    of their total per started day (none without a deadline)."""
    deadline: dt.datetime | None = None
    percent_per_day: float = 0.0

    @classmethod
    def parse(cls, deadline: str | None, percent_per_day: float, flag: str = "--deadline") -> LatePolicy:
        return cls(parse_deadline(deadline, flag), float(percent_per_day))

    def until(self, deadline: dt.datetime | None) -> LatePolicy:
        """The same rate with a learner's own deadline (an extension)."""
        return LatePolicy(deadline, self.percent_per_day)

    def apply(self, result: LearnerResult, when: dt.datetime | None) -> None:
        """Set ``result``'s days late and penalty, and say so among its problems (a hand-in
        whose time is not known is never late)."""
        if when is None:
            result.late_days, result.penalty = 0, 0.0
            return
        result.late_days, result.penalty = lateness(when, self.deadline, self.percent_per_day)
        if result.late_days:
            result.problems.append(f"handed in {when:%Y-%m-%d %H:%M} UTC, {plural(result.late_days, 'day')} after the "
                                   f"deadline: {result.penalty:g}% of the total taken off ({result.total[0]:g} -> "
                                   f"{result.final:g})")


ON_TIME = LatePolicy()   # no deadline: nobody is late
