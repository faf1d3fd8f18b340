"""What a call into the learner's process can end in, besides an answer: the learner's
code raised (``Raised``), the package did not import (``Unimportable``), the process was
lost (``Lost``, with its ``results.Failure`` kind), or a check asked for a name its task
does not declare (``Undeclared``, the grader's own mistake). ``checks.common.failure_of``
turns the first three into the words a learner reads."""

from __future__ import annotations

from grader.results import Failure


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


class Undeclared(RuntimeError):
    """A check used a package name that its task does not declare in the manifest: a bug
    of the grader (or of an instructor's new check), never charged to a learner."""


class Lost(Exception):
    """The learner's process is gone (died, hung, garbled) or the stage's time is up:
    ``kind`` says which, ``importing`` whether it happened while the package was being
    imported (a later stage then gives the import only a short try)."""

    def __init__(self, message: str, kind: Failure = Failure.CRASHED, importing: bool = False) -> None:
        super().__init__(message)
        self.kind, self.importing = kind, importing
