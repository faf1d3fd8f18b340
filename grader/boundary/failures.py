"""What can happen to a call into the learner's process, as exceptions the runner raises:
the learner's code raised (``Raised``), called a given helper it was not lent
(``Borrowed``), the package did not import (``Unimportable``), the process is gone or out
of time (``Lost``, with its ``results.Failure`` kind); and the grader's own mistake, a check reaching an undeclared name
(``Undeclared``)."""

from __future__ import annotations

from typing import Any

from grader.results import Failure
from grader.tasks import CALLS, GIVEN


class _LearnerException(Exception):
    def __init__(self, record: dict) -> None:
        self.type = str(record.get("type", "Exception"))
        self.message = str(record.get("message", ""))
        self.where = str(record.get("where", ""))
        super().__init__(f"{self.type}: {self.message}")


class Raised(_LearnerException):
    """The learner's code raised an exception."""


class Unimportable(_LearnerException):
    """The learner's package could not be imported."""


class Borrowed(Raised):
    """The learner's code called the stand-in of a given helper (``given.py``) where the
    call in progress did not swap it in: scored as the task left unwritten."""

    def __init__(self, helpers: list[str], raised: Any) -> None:
        names = ", ".join(dict.fromkeys(helpers))
        owners = sorted({task for h in helpers if (task := owner(h))})
        whose = f" (the work of Task {', '.join(owners)})" if owners else ""
        where = raised.get("where", "") if isinstance(raised, dict) else ""
        super().__init__({"type": "GraderVersionRefused", "where": where,
                          "message": f"the grader's own version of {names}{whose}, which answers only the checks "
                                     "that swap it in for a later task; this call scores as the task left unwritten"})


class Lost(Exception):
    """The learner's process is gone (died, hung, garbled) or the stage's time is up:
    ``kind`` says which (``results.Failure``), ``importing`` whether it happened while the
    package was being imported (a later stage then gives the import only a short try)."""

    def __init__(self, message: str, kind: Failure = Failure.CRASHED, importing: bool = False) -> None:
        super().__init__(message)
        self.kind, self.importing = kind, importing


class Undeclared(RuntimeError):
    """A check used a package name that its task does not declare in the manifest: a bug
    of the grader (or of an instructor's new check), never charged to a learner."""


def owner(helper: str) -> str | None:
    """The task whose work a given helper does: the first that calls a name it stands in for."""
    names = [name for name, h in GIVEN.items() if h == helper]
    return next((task for task, calls in CALLS.items() for call in calls for name in names
                 if name == call or name.startswith(call + ".") or name.endswith("." + call)), None)
