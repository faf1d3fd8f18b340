"""Grading a class on a queue: Celery workers on any number of machines, a Redis broker
between them and the instructor's machine.

    python -m grader worker --broker redis://HOST:6379/0                on each grading machine
    python -m grader autograde HAND-INS --broker redis://HOST:6379/0    on the instructor's

The instructor's machine reads every hand-in (``intake``: no learner code runs there) and
sends each learner's package files to the queue as one message. A worker grades them with
``grading.grade_stages``, the checks local grading runs, under the instructor's
``Settings``: the same confined processes, limits and restarts. It sends back verdicts
only. The instructor's machine records them in its course (nbgrader's gradebook), applies
the late policy and writes the feedback, grades.csv and the report, as local grading does.

Nothing is lost or counted twice:
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
import hashlib
import io
import logging
import multiprocessing
import pathlib
import tempfile
import time
import uuid
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import PurePosixPath
from typing import Callable

from .grading import GradeJob, crashed, grade_job, grade_stages
from .intake import DATA, MODULE, HandIn, add_course_data, read_hand_in
from .results import LearnerResult, failed_everywhere
from .settings import Settings
from .tasks import STAGES

QUEUE = "minitorch-grading"
TASK = "grader.grade_hand_in"
DELIVERIES = 3
GRADER = pathlib.Path(__file__).resolve().parent
log = logging.getLogger(__name__)


class QueueError(RuntimeError):
    """The queue cannot grade this class (broker gone too long, a worker with another grader)."""


def lease_for(settings: Settings) -> float:
    """Seconds one hand-in may take on a worker when every stage uses all of its time."""
    return len(STAGES) * (settings.stage_seconds + settings.call_seconds) + 60


@functools.cache
def fingerprint() -> str:
    """The grader's code and the course's data: workers must grade with the same."""
    digest = hashlib.sha256()
    for path in sorted([*GRADER.rglob("*.py"), *DATA.glob("*")]):
        digest.update(str(path.relative_to(GRADER.parent)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def make_app(broker: str, lease: float):
    from celery import Celery
    app = Celery("grader", broker=broker, backend=broker, set_as_current=False)
    app.conf.update(
        task_serializer="json", result_serializer="json", accept_content=["json"],   # never pickle
        task_default_queue=QUEUE,
        task_acks_late=True, task_reject_on_worker_lost=True, worker_prefetch_multiplier=1,
        broker_transport_options={"visibility_timeout": lease},
        broker_connection_retry_on_startup=True, broker_connection_max_retries=None,
        result_backend_always_retry=True, result_backend_max_retries=120, result_expires=7 * 24 * 3600,
        worker_hijack_root_logger=False,
    )
    app.task(name=TASK, bind=True)(_grade_hand_in)
    return app


# --- on the instructor's machine -------------------------------------------------------

def pack(job: GradeJob, run: str) -> dict:
    """The message for one hand-in: its package files as read by the intake, and the limits."""
    with tempfile.TemporaryDirectory(prefix="minitorch-pack-") as scratch:
        hand_in = read_hand_in(pathlib.Path(job.path), job.learner, pathlib.Path(scratch))
        packages: list[str] = []
        index: dict[pathlib.Path, int] = {}
        for folder in hand_in.packages.values():
            if folder not in index:
                index[folder] = len(packages)
                packages.append(_zip(folder))
        stages = {stage: index[folder] for stage, folder in hand_in.packages.items()}
    return {"id": f"{run}/{job.sid}", "sid": job.sid, "learner": job.learner, "broken": hand_in.broken,
            "stages": stages, "packages": packages, "settings": job.settings.as_dict(), "grader": fingerprint()}


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

    def send(job: GradeJob) -> None:
        message, task_id = pack(job, run), f"{run}.{job.sid}.{uuid.uuid4().hex[:6]}"
        broker_call(lambda: app.send_task(TASK, args=[message], task_id=task_id, queue=QUEUE))
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
                broker_call(lambda: app.backend.forget(task_id))
                job = waiting.pop(sid, None)
                if job is None:
                    dropped += 1
                    continue
                reply = meta.get("result") if meta.get("status") == "SUCCESS" else None
                if isinstance(reply, dict) and "refused" in reply:
                    raise QueueError(str(reply["refused"]))
                if not isinstance(reply, dict) or "result" not in reply:
                    done(crashed(job), 0.0)
                    continue
                recording[pool.submit(grade_job, job, reply["result"])] = float(reply.get("seconds", 0.0))
            for future in [f for f in recording if f.done()]:
                done(future.result()[0], recording.pop(future))
            if waiting and time.monotonic() - last_news > lease:
                say(f"nothing came back for {lease:.0f} s: sending the {len(waiting)} outstanding hand-in(s) again")
                for job in list(waiting.values()):
                    send(job)
                last_news = time.monotonic()
            time.sleep(0.2 if recording else 0.5)
    if sent:   # copies still queued: the workers skip them
        try:
            app.control.revoke(list(sent))
        except Exception:  # noqa: BLE001 - best effort; a late copy is dropped when it comes back anyway
            pass
    return dropped


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


# --- on a worker -------------------------------------------------------------------------

def _grade_hand_in(task, message: dict) -> dict:
    """The queue's one task: grade a hand-in's packages with the grader's own checks."""
    worker = task.request.hostname or "a worker"
    if message.get("grader") != fingerprint():
        return {"refused": f"{worker} grades with another version of the grader ({fingerprint()}, the instructor's "
                           f"is {message.get('grader')}): update it and start it again"}
    start = time.perf_counter()
    client, key = task.app.backend.client, f"{QUEUE}:deliveries:{message['id']}"
    deliveries = int(client.incr(key))
    client.expire(key, 7 * 24 * 3600)
    result = LearnerResult(message["learner"])
    if deliveries > DELIVERIES:
        log.warning("%s: delivered %d times without a result: zero", message["sid"], deliveries)
        result.add(failed_everywhere("not graded: grading this hand-in ended the grading process each time it was "
                                     "tried", "grading error"))
    else:
        log.info("grading %s (delivery %d)", message["sid"], deliveries)
        with tempfile.TemporaryDirectory(prefix="minitorch-queued-") as scratch:
            result = grade_stages(unpack(message, pathlib.Path(scratch)), Settings(**message["settings"]))
    log.info("graded %s: %g / %g", message["sid"], *result.total)
    return {"result": result.to_json(), "seconds": time.perf_counter() - start, "worker": worker}


def unpack(message: dict, into: pathlib.Path) -> HandIn:
    """The hand-in a message describes, its packages written under ``into``."""
    hand_in = HandIn(message["learner"], broken=message.get("broken"))
    folders = []
    for number, blob in enumerate(message["packages"]):
        target = into / f"package{number}" / "minitorch"
        with zipfile.ZipFile(io.BytesIO(base64.b64decode(blob))) as archive:
            for info in archive.infolist():
                parts = PurePosixPath(info.filename).parts
                if not parts or not all(MODULE.match(part) for part in parts):
                    raise ValueError(f"a queued package holds an unexpected name: {info.filename!r}")
                path = target.joinpath(*parts)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(archive.read(info))
        add_course_data(target)
        folders.append(target)
    hand_in.packages = {stage: folders[number] for stage, number in message["stages"].items()}
    return hand_in


def run_worker(broker: str, concurrency: int, lease: float, name: str | None) -> None:
    """Grade from the queue until stopped (Ctrl-C finishes the hand-ins under way)."""
    from celery.signals import worker_process_init

    from .grading import become_subreaper
    worker_process_init.connect(lambda **_: become_subreaper(), weak=False)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    argv = ["worker", "--loglevel=INFO", f"--concurrency={concurrency}", "--pool=prefork", f"--queues={QUEUE}",
            "--without-gossip", "--without-mingle"]
    if name:
        argv.append(f"--hostname={name}")
    make_app(broker, lease).worker_main(argv)
