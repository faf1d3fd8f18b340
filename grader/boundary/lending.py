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
from grader.boundary.failures import Lost

MOST_REQUESTS = 100_000  # stand-ins' requests for given helpers during one call


class Lending:
    """Mixed into ``runner.LearnerProcess``, whose ``_answer``, ``_pipes`` and ``_end`` it uses."""

    def _answer(self, doing: str, most: float | None = None, until: float | None = None) -> dict:
        raise NotImplementedError

    def _pipes(self) -> tuple[int, int]:
        raise NotImplementedError

    def _end(self) -> None:
        raise NotImplementedError

    def _serve(self, doing: str, lent: set[str], refused: list[str], until: float | None = None,
               most: float | None = None) -> dict:
        """The next answer that is not a stand-in's request, lending or refusing each
        request met on the way (all within the call's time)."""
        answer = self._answer(doing, most)
        for _ in range(MOST_REQUESTS):
            if "ask" not in answer:
                return answer
            helper = answer["ask"] if isinstance(answer["ask"], str) else repr(answer["ask"])[:80]
            if helper in lent:
                self._lend(helper, answer.get("args"), doing, until)
            else:
                refused.append(helper)
                self._send({"refused": f"the grader's own {helper} answers only the checks that swap it in"}, doing)
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
            self._send({"unusable": f"the given {helper}: {error}"}, doing)
            return
        except (ArithmeticError, ValueError, TypeError, MemoryError) as error:
            self._send({"unusable": f"the given {helper} could not run on these arguments ({type(error).__name__})"}, doing)
            return
        self._send({"given": value}, doing)

    def _parents(self, node: int, doing: str, until: float | None) -> list:
        """Ask a stand-in for the numbers of a graph node's parents (its topological order)."""
        self._send({"question": node}, doing)
        reply = self._answer(doing, until=until)
        if not isinstance(reply.get("reply"), list) or len(reply["reply"]) > given.MOST_NODES:
            self._end()
            raise Lost(f"the process running the package broke off a given topological order while {doing}")
        return reply["reply"]

    def _send(self, message: dict, doing: str, lost: str = "the process running the package died while {doing}") -> None:
        try:
            wire.send(self._pipes()[0], message)
        except OSError:
            self._end()
            raise Lost(lost.format(doing=doing)) from None
