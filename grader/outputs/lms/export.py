"""What every LMS export shares: ``Export``, one file an LMS imports, and ``Row``, what
it is given for one learner of the roster. An LMS's module (``canvas.py``, ...) holds its
exports; the registry (``registry.py``) lists the modules and writes their files."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO


@dataclass(frozen=True)
class Row:
    """One learner of the roster, as an export sees them."""
    learner: str                 # the id the hand-ins were graded under
    identity: dict[str, str]     # the roster's row: the LMS's own identities (and any worksheet cells)
    grade: float                 # the final grade (0 for a learner with no hand-in)
    handed_in: bool
    comment: str                 # a few lines for the LMS's feedback column, where it has one

    def get(self, key: str, default: str = "") -> str:
        return (self.identity.get(key) or default).strip()


Writer = Callable[[Sequence[Row], float, TextIO], None]   # the rows (sorted by learner), the points possible


@dataclass(frozen=True)
class Export:
    file: str                    # its name in the output folder
    lms: str                     # the LMS, as its users call it
    imports_as: str              # where in the LMS it is imported, in the LMS's own words
    keys: tuple[str, ...]        # the roster columns the LMS finds a learner by (one is enough)
    write: Writer

    def identifies(self, row: Row) -> bool:
        return any(row.get(k) for k in self.keys)
