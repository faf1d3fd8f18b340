"""Grading a class on a queue, the instructor's side: Celery workers on any number of machines, a Redis broker
between them and the instructor's machine.

    python -m grader worker --broker redis://HOST:6379/0                on each grading machine
    python -m grader autograde HAND-INS --broker redis://HOST:6379/0    on the instructor's

The instructor's machine reads every hand-in (``intake``: no learner code runs there) and
sends each learner's package files to the queue as one message. A worker grades them with
``grading.hand_ins.grade_stages``, the checks local grading runs, under the instructor's
``Settings``: the same confined processes, limits and restarts. It sends back verdicts
only. The instructor's machine records them in its course (nbgrader's gradebook), applies
the late policy and writes the feedback, grades.csv and the report, as local grading does.

The worker's side is ``worker.py``. Nothing is lost or counted twice:
- a message is acknowledged only once its result is stored (``acks_late``). A worker that
  dies in the middle of a learner leaves the message on the broker, which gives it to
  another worker when the lease (Redis's visibility timeout) has run out; a worker's pool
  process that dies gives it back at once. A hand-in delivered ``DELIVERIES`` times without
  a result gets zero with a reason, as a hand-in that kills its process twice does locally;
- the first result for a learner counts; copies that come later are dropped;
- when nothing has come back for a whole lease while hand-ins are outstanding (a broker
  restarted without its data, say), those hand-ins are sent again.

Trust: workers and the broker are the grader's own machines. Learner code runs confined on
a worker and cannot open a TCP connection, so it cannot reach the broker. Whoever can write
to the broker can forge results: keep it on a private network, with a password
(``redis://:PASSWORD@HOST:6379/0``).
"""

from __future__ import annotations

import base64
import functools
import io
import multiprocessing
import pathlib
import tempfile
import time
import uuid
import zipfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from grader.class_grading.jobs import GradeJob, crashed, record
from grader.intake.hand_in import HandIn, read_hand_in
from grader.queue.worker import QUEUE, TASK, QueueError, fingerprint, lease_for, make_app
from grader.results import LearnerResult

__all__ = ["QueueError", "grade_class_on_queue", "lease_for", "pack"]


def pack(job: GradeJob, run: str, into: pathlib.Path) -> tuple[HandIn, dict]:
    """The hand-in, read once into ``into`` (kept there until its result is recorded), and
    the message for it: its package files as read by the intake, and the limits."""
    into.mkdir(parents=True)
    hand_in = read_hand_in(pathlib.Path(job.path), job.learner, into)
    packages: list[str] = []
    index: dict[pathlib.Path, int] = {}
    for folder in hand_in.packages.values():
        if folder not in index:
            index[folder] = len(packages)
            packages.append(_zip(folder))
    stages = {stage: index[folder] for stage, folder in hand_in.packages.items()}
    return hand_in, {"id": f"{run}/{job.sid}", "sid": job.sid, "learner": job.learner, "broken": hand_in.broken,
                     "stages": stages, "packages": packages, "settings": job.settings.as_dict(),
                     "grader": fingerprint()}


def _zip(package: pathlib.Path) -> str:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(package.rglob("*.py")):
            archive.write(path, path.relative_to(package).as_posix())
    return base64.b64encode(buffer.getvalue()).decode()


def grade_class_on_queue(jobs: list[GradeJob], broker: str, lease: float, recorders: int,
                         done: Callable[[LearnerResult, float], None], say: Callable[[str], None]) -> int:
    """Send ``jobs`` to the queue and record each first result in ``recorders`` processes,
    calling ``done(result, seconds on the worker)``. Returns how many late copies were dropped."""
    app = make_app(broker, lease)
    run = uuid.uuid4().hex[:12]
    waiting = {job.sid: job for job in jobs}
    sent: dict[str, str] = {}   # task id -> sid
    broker_call = _Patient(max(lease, 600.0), say)
    scratch = tempfile.TemporaryDirectory(prefix="minitorch-queue-")
    hand_ins: dict[str, HandIn] = {}   # each hand-in read once, kept until its result is recorded
    messages: dict[str, dict] = {}

    def send(job: GradeJob) -> None:
        if job.sid not in messages:
            hand_ins[job.sid], messages[job.sid] = pack(job, run, pathlib.Path(scratch.name) / job.sid)
        task_id = f"{run}.{job.sid}.{uuid.uuid4().hex[:6]}"
        broker_call(lambda: app.send_task(TASK, args=[messages[job.sid]], task_id=task_id, queue=QUEUE))
        sent[task_id] = job.sid

    for job in jobs:
        send(job)
    say(f"sent {len(jobs)} hand-in(s) to the queue; waiting for the workers")
    dropped, last_news = 0, time.monotonic()
    with ProcessPoolExecutor(max(1, recorders), mp_context=multiprocessing.get_context("spawn")) as pool:
        recording: dict = {}
        while waiting or recording:
            for task_id, meta in broker_call(lambda: _finished(app, list(sent))).items():
                sid, last_news = sent.pop(task_id), time.monotonic()
                broker_call(functools.partial(app.backend.forget, task_id))
                found = waiting.pop(sid, None)
                if found is None:
                    dropped += 1
                    continue
                job = found
                reply = meta.get("result") if meta.get("status") == "SUCCESS" else None
                if isinstance(reply, dict) and "refused" in reply:
                    raise QueueError(str(reply["refused"]))
                if not isinstance(reply, dict) or "result" not in reply:
                    done(crashed(job), 0.0)
                    continue
                recording[pool.submit(record_queued, job, hand_ins[sid], reply["result"])] = \
                    float(reply.get("seconds", 0.0))
            for future in [f for f in recording if f.done()]:
                done(future.result()[0], recording.pop(future))
            if waiting and time.monotonic() - last_news > lease:
                say(f"nothing came back for {lease:.0f} s: sending the {len(waiting)} outstanding hand-in(s) again")
                for job in list(waiting.values()):
                    send(job)
                last_news = time.monotonic()
            time.sleep(0.2 if recording else 0.5)
    scratch.cleanup()
    if sent:   # copies still queued: the workers skip them
        try:
            app.control.revoke(list(sent))
        except Exception:  # noqa: BLE001 - best effort; a late copy is dropped when it comes back anyway
            pass
    return dropped


def record_queued(job: GradeJob, hand_in: HandIn, graded: dict) -> tuple[LearnerResult, float]:
    """Record what a worker sent back (in a recorder process), as local grading records its
    own result: the hand-in's problems, the late policy, the gradebook, the feedback."""
    result = LearnerResult.from_json(graded)
    result.problems[:0] = hand_in.problems
    record(job, hand_in, result)
    return result, 0.0


def _finished(app, task_ids: list[str]) -> dict[str, dict]:
    """The stored results among ``task_ids``, read in batches."""
    from celery import states
    backend, found = app.backend, {}
    for start in range(0, len(task_ids), 500):
        chunk = task_ids[start:start + 500]
        for task_id, value in zip(chunk, backend.mget([backend.get_key_for_task(t) for t in chunk])):
            if value:
                meta = backend.decode_result(value)
                if meta.get("status") in states.READY_STATES:
                    found[task_id] = meta
    return found


class _Patient:
    """Call the broker, waiting out an outage of up to ``patience`` seconds."""

    def __init__(self, patience: float, say: Callable[[str], None]) -> None:
        self.patience, self.say = patience, say

    def __call__(self, call: Callable):
        from kombu.exceptions import OperationalError
        from redis.exceptions import ConnectionError, TimeoutError
        since = None
        while True:
            try:
                value = call()
            except (OperationalError, ConnectionError, TimeoutError, OSError) as error:
                if since is None:
                    since = time.monotonic()
                    self.say(f"the broker cannot be reached ({type(error).__name__}): waiting for it")
                elif time.monotonic() - since > self.patience:
                    raise QueueError(f"the broker could not be reached for {self.patience:.0f} s ({error})") from None
                time.sleep(1.0)
                continue
            if since is not None:
                self.say(f"the broker is back after {time.monotonic() - since:.0f} s")
            return value
