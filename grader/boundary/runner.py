"""The trusted side of a learner's process: start it in a ``Cage``, send it probe
requests (``probes.py``), and turn what comes back into values or exceptions.

``LearnerProcess.call`` returns the probe's observations, or raises ``Raised`` (the
learner's code raised; carries its type, message and line), ``Unimportable`` (the package
did not import) or ``Lost`` (the process died, hung past its time, sent garbage, or the
stage's time is used up). After a ``Lost`` the next call starts a fresh process, a few
times per stage at most (``Settings.restarts``); nothing of a dead process is reused.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import pathlib
import select
import subprocess
import sys
import time
from typing import Any

from grader.boundary import wire
from grader.boundary.cage import Cage
from grader.boundary.declared import check_declared, lent_helpers
from grader.boundary.failures import Borrowed, Lost, Raised, Undeclared, Unimportable  # noqa: F401  (raised through here)
from grader.boundary.lending import Lending
from grader.results import Failure
from grader.settings import Settings

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Run in the learner's process before anything of the learner's: put the grader's folder on
# the path for the learner zone's imports only, then take it off so nothing can import it later.
BOOT = ("import sys; sys.path.insert(0, {root!r}); import grader.learner.process as p; "
        "sys.path.remove({root!r}); p.main(sys.argv[1])")


# What the learner's process may see of the grader's environment: nothing else (an
# instructor's shell may hold tokens and passwords, which a package could print into its
# feedback). NumPy gets one thread unless the grader's environment says otherwise (one
# core is all the cage gives; on a many-core machine its threads would fill the process limit).
THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
PASSED_ON = ("PATH", "LANG", "LC_ALL", *THREADS)
POLL = 0.25   # seconds between looks at the process tree while waiting for an answer


def learner_environment(scratch: pathlib.Path) -> dict[str, str]:
    env = dict.fromkeys(THREADS, "1") | {name: os.environ[name] for name in PASSED_ON if name in os.environ}
    env.update(HOME=str(scratch), TMPDIR=str(scratch))
    return env


class LearnerProcess(Lending):
    def __init__(self, package: pathlib.Path, settings: Settings) -> None:
        self.package, self.settings = pathlib.Path(package).resolve(), settings
        self.deadline = time.monotonic() + settings.stage_seconds
        self.starts, self.confined = 0, None
        self.cage: Cage | None = None
        self.process: subprocess.Popen | None = None
        self.import_error: dict | None = None
        self.task: str | None = None   # the task being checked: its calls must be declared
        self.lent_ahead = False        # a helper of a later stage's task was lent to this process

    def __enter__(self) -> LearnerProcess:
        return self

    def new_stage(self, package: pathlib.Path | None = None) -> None:
        """Start the next stage's budget (time, restarts) on this process. The process
        itself is kept while it is alive: one confined process per hand-in, not per stage,
        when its stages grade the same package files. A process started for this stage
        imports ``package`` (this stage's copy of those files), and an import that failed
        in an earlier stage is tried again."""
        self.deadline = time.monotonic() + self.settings.stage_seconds
        if self.lent_ahead:   # it was lent a later stage's helper: nothing it kept may reach that stage
            self._end()
            self.lent_ahead = False
        self.starts = 1 if self.process is not None else 0
        self.task = None
        if self.process is None:
            self.package = pathlib.Path(package or self.package).resolve()
            self.import_error = None

    def start(self, import_seconds: float | None = None) -> None:
        """Start the process now if it is not running (a call would), giving the import at
        most ``import_seconds``. Raises as a call would."""
        if self.import_error is not None:
            raise Unimportable(self.import_error)
        if self.process is None:
            try:
                self._start(import_seconds)
            except Unimportable as error:
                self.import_error = {"type": error.type, "message": error.message, "where": error.where}
                raise

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _start(self, import_seconds: float | None = None) -> None:
        if self.starts > self.settings.restarts:
            raise Lost(f"not run: the package's process had to be restarted {self.settings.restarts} times "
                       "in this stage already", Failure.NOT_RUN)
        self.starts += 1
        s = self.settings
        self.cage = Cage(s.memory_mb, s.processes, s.disk_mb, s.learner_user)
        config = json.dumps({"package": str(self.package), "scratch": str(self.cage.scratch), "user": s.learner_user})
        self.process = self.cage.popen([sys.executable, "-I", "-B", "-c", BOOT.format(root=str(ROOT)), config],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                       cwd=self.cage.scratch, env=learner_environment(self.cage.scratch))
        os.set_blocking(self._pipes()[0], False)   # a learner that stops reading cannot block the grader
        until = time.monotonic() + min(self.settings.call_seconds, import_seconds or math.inf)
        try:
            hello = self._serve("importing the package", set(), [], until, most=import_seconds)  # lends nothing
        except Lost as error:
            error.importing = error.kind is not Failure.NOT_RUN
            raise
        self.confined = hello.get("confined")
        if s.confine and self.confined is not None and not self.confined.get("landlock") and _landlock_expected():
            self._end()
            raise Lost("the learner's process could not be confined, so it was not run", Failure.NOT_RUN)
        if not hello.get("ready"):
            self._end()
            raise Unimportable(hello.get("raised") or {})

    def _answer(self, doing: str, most: float | None = None, until: float | None = None) -> dict:
        """The next answer, within the call's time (``until``, when the call has already
        waited for earlier answers) and the stage's; a process tree that reaches its process
        limit meanwhile (a process bomb) is ended and charged to the call at once, as one
        that hangs is when its time is up."""
        now, limit = time.monotonic(), min(self.settings.call_seconds, most or math.inf)
        budget = min(limit, self.deadline - now, (until or math.inf) - now)
        if budget <= 0:
            self._end()
            if self.deadline - now > 0:   # the call's own time ran out between its requests
                raise Lost(f"{doing} took longer than {limit:.0f} s (an endless loop?) and was stopped", Failure.TIMED_OUT)
            raise Lost(f"not run: the stage's {self.settings.stage_seconds:g} s in the learner's code are used up",
                       Failure.NOT_RUN)
        shown, until = (budget if until is None else limit), time.monotonic() + budget
        try:
            while not select.select([self._pipes()[1]], [], [], max(0.0, min(POLL, until - time.monotonic())))[0]:
                self._bounded(doing)
                if time.monotonic() >= until:
                    raise TimeoutError
            answer = wire.receive(self._pipes()[1], until)
        except TimeoutError:
            self._end()
            raise Lost(f"{doing} took longer than {shown:.0f} s (an endless loop?) and was stopped",
                       Failure.TIMED_OUT) from None
        except (EOFError, OSError):
            code = _exit_code(self.process)
            self._end()
            raise Lost(f"the process running the package died while {doing}"
                       + (f" (exit code {code})" if code not in (None, 0) else "")
                       + ": os._exit, a crash, or memory exhausted") from None
        except wire.Garbled as error:
            self._end()
            raise Lost(f"the process running the package sent something unreadable while {doing} ({error})") \
                from None
        self._bounded(doing)
        if not isinstance(answer, dict):
            self._end()
            raise Lost(f"the process running the package answered nonsense while {doing}")
        return answer

    def _bounded(self, doing: str) -> None:
        if self.cage is not None and self.cage.crowded():
            self._end()
            raise Lost(f"the package's code started processes or threads until it reached the limit of "
                       f"{self.settings.processes} while {doing} (a process bomb?), and was stopped")

    def call(self, probe: str, doing: str = "", **args: Any) -> Any:
        """Run ``probe`` in the learner's process; ``doing`` names it in messages. While it
        runs, a stand-in's request for a given helper is answered (``given.py``) if this
        call swaps that helper in, and refused otherwise: a refused request makes the call
        raise ``Borrowed``, whatever the learner's code did with the refusal."""
        lent = lent_helpers(probe, args)
        if self.task is not None:
            check_declared(self.task, probe, args)
        self.start()
        doing = doing or f"running {probe}"
        until = time.monotonic() + self.settings.call_seconds
        self._send({"probe": probe, "args": args}, doing, until, "the process running the package was gone before {doing}")
        refused: list[str] = []
        answer = self._serve(doing, lent, refused, until)
        if refused:
            raise Borrowed(refused, answer.get("raised"))
        if "raised" in answer:
            raise Raised(answer["raised"] if isinstance(answer["raised"], dict) else {})
        return answer.get("ok")

    def _pipes(self) -> tuple[int, int]:
        """The requests' and the answers' file descriptors of the running process."""
        if self.process is None or self.process.stdin is None or self.process.stdout is None:
            raise OSError("the learner's process is not running")
        return self.process.stdin.fileno(), self.process.stdout.fileno()

    def _end(self) -> None:
        if self.process is not None:
            self.process.kill()  # at once, even if the cage below could not sweep
            for stream in (self.process.stdin, self.process.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
        if self.cage is not None:
            self.cage.close()
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
        self.process, self.cage = None, None

    def close(self) -> None:
        self._end()


def _landlock_expected() -> bool:
    from grader.boundary.confinement import landlock_abi
    return landlock_abi() > 0


def _exit_code(process: subprocess.Popen | None) -> int | None:
    """The exit code of a process whose pipe just closed (it may take a moment to exit)."""
    if process is None:
        return None
    try:
        return process.wait(timeout=0.5)
    except subprocess.TimeoutExpired:
        return None
