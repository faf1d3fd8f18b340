"""``PercentPerDay``: the course's late rule (``lms.lateness``: each started day after the
due date costs a percentage of the score, at most all of it) as an nbgrader late-submission
plugin. nbgrader's ``AssignLatePenalties`` calls it once per notebook with that notebook's
score and how late the submission was; the penalty it returns is stored in the gradebook,
which then holds the final grade (``nbgrader export``'s ``score`` column: raw score minus
penalties)."""

from __future__ import annotations

import datetime as dt

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float

from ..lms import lateness


class PercentPerDay(LateSubmissionPlugin):
    percent_per_day = Float(0.0, help="percent of the score lost per started day late").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float:
        due = dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)
        days, percent = lateness(due + dt.timedelta(seconds=total_seconds_late), due, self.percent_per_day)
        if days:
            self.log.warning("%s: %d day(s) late, %g%% of %g points taken off", student_id, days, percent, score)
        return round(score * percent / 100, 4)
