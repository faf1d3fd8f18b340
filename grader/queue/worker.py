"""Grading a class on a queue, the worker's side: ``python -m grader worker --broker URL``
runs the queue's one task, ``grade_hand_in``: it unpacks a hand-in's package files from the
message and grades them with ``grading.hand_ins.grade_stages``, the checks local grading runs, under
the instructor's ``Settings``, and sends back the verdicts only. A worker whose grader
differs from the instructor's (``fingerprint``) refuses the message. The instructor's
side is ``instructor.py``, which says how nothing is lost or counted twice.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import logging
import pathlib
import tempfile
import time
import zipfile
from pathlib import PurePosixPath
from typing import Any

from grader.grading.hand_ins import grade_stages
from grader.intake.hand_in import DATA, MODULE, HandIn, add_course_data
from grader.results import Failure, LearnerResult, failed_everywhere
from grader.settings import Settings
from grader.tasks import STAGES

QUEUE = "minitorch-grading"
TASK = "grader.grade_hand_in"
DELIVERIES = 3
GRADER = pathlib.Path(__file__).resolve().parents[1]
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


def make_app(broker: str, lease: float) -> Any:
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
    app.task(name=TASK, bind=True)(grade_hand_in)
    return app


def grade_hand_in(task: Any, message: dict) -> dict:
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
                                     "tried", Failure.NOT_GRADED))
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

    from grader.grading.hand_ins import become_subreaper
    worker_process_init.connect(lambda **_: become_subreaper(), weak=False)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    argv = ["worker", "--loglevel=INFO", f"--concurrency={concurrency}", "--pool=prefork", f"--queues={QUEUE}",
            "--without-gossip", "--without-mingle"]
    if name:
        argv.append(f"--hostname={name}")
    make_app(broker, lease).worker_main(argv)
