"""Lending given helpers: the runner's side of a stand-in's request (``learner/stand_ins.py``).

While a call runs, the learner's process may send, before its answer, requests of the
form ``{"ask": helper, "args": ...}``. Each is answered with the grader's own computation
(``given.py``) if the call in progress swapped that helper in, and refused otherwise; the
topological order asks its own questions back (a node's parents, by number). Every
request shares the call's time, and a call that met a refusal raises ``Borrowed``.
"""

from __future__ import annotations

from typing import Any

from grader.boundary import given, wire
from grader.boundary.failures import Lost, owner
from grader.results import Failure
from grader.tasks import STAGES, stage_of

STAGE_ORDER = list(STAGES)

MOST_REQUESTS = 100_000  # stand-ins' requests for given helpers during one call


class Lending:
    """Mixed into ``runner.LearnerProcess``, whose ``_answer``, ``_pipes`` and ``_end`` it uses."""

    def _answer(self, doing: str, most: float | None = None, until: float | None = None) -> dict:
        raise NotImplementedError

    def _pipes(self) -> tuple[int, int]:
        raise NotImplementedError

    def _end(self) -> None:
        raise NotImplementedError

    task: str | None
    lent_ahead: bool

    def _serve(self, doing: str, lent: set[str], refused: list[str], until: float | None = None,
               most: float | None = None) -> dict:
        """The next answer that is not a stand-in's request, lending or refusing each
        request met on the way (all within the call's time)."""
        answer = self._answer(doing, most)
        for _ in range(MOST_REQUESTS):
            if "ask" not in answer:
                return answer
            asked = answer["ask"]
            helper = asked if isinstance(asked, str) and asked in given.NAMES else "an unknown helper"
            if helper in lent:
                self._lend(helper, answer.get("args"), doing, until)
            else:
                refused += [helper] if helper not in refused else []
                self._send({"refused": f"the grader's own {helper} answers only the checks that swap it in"}, doing,
                           until)
            answer = self._answer(doing, most, until)
        self._end()
        raise Lost(f"the package's code asked for given helpers more than {MOST_REQUESTS:,} times while {doing}")

    def _lend(self, helper: str, args: Any, doing: str, until: float | None) -> None:
        try:
            if helper == "topological_order":
                value = given.topological_order(lambda node: self._parents(node, doing, until))
            else:
                value = given.HELPERS[helper](args if isinstance(args, dict) else {})
        except given.Unusable as error:
            self._send({"unusable": f"the given {helper}: {error}"}, doing, until)
            return
        except (ArithmeticError, LookupError, ValueError, TypeError, AttributeError, MemoryError) as error:
            self._send({"unusable": f"the given {helper} could not run on these arguments ({type(error).__name__})"},
                       doing, until)
            return
        self._note_ahead(helper)
        self._send({"given": value}, doing, until)

    def _note_ahead(self, helper: str) -> None:
        """Whether ``helper`` does the work of a task of a stage after the one being checked:
        then this process ends with its stage (``runner.new_stage``), so that answers it was
        lent cannot be kept for that task's own checks."""
        task = owner(helper)
        if task and self.task and STAGE_ORDER.index(stage_of(task)) > STAGE_ORDER.index(stage_of(self.task)):
            self.lent_ahead = True

    def _parents(self, node: int, doing: str, until: float | None) -> list:
        """Ask a stand-in for the numbers of a graph node's parents (its topological order)."""
        self._send({"question": node}, doing, until)
        reply = self._answer(doing, until=until)
        if not isinstance(reply.get("reply"), list) or len(reply["reply"]) > given.MOST_NODES:
            self._end()
            raise Lost(f"the process running the package broke off a given topological order while {doing}")
        return reply["reply"]

    def _send(self, message: dict, doing: str, until: float | None,
              lost: str = "the process running the package died while {doing}") -> None:
        """Send within the call's time: a process that stops reading is stopped, not waited for."""
        try:
            wire.send(self._pipes()[0], message, until)
        except TimeoutError:
            self._end()
            raise Lost(f"the process running the package stopped reading while {doing}, and was stopped",
                       Failure.TIMED_OUT) from None
        except OSError:
            self._end()
            raise Lost(lost.format(doing=doing)) from None
