"""What travels through the queue: a hand-in's package as the intake read it, nothing else
(tests/grader/test_queue.py runs the queue itself, with a broker and workers)."""

import base64
import io
import pathlib
import types
import zipfile

import pytest
from conftest import ROOT, write_package

from grader.class_grading.jobs import GradeJob
from grader.intake.hand_in import read_hand_in
from grader.queue.instructor import pack
from grader.queue.worker import grade_hand_in, lease_for, unpack
from grader.settings import Settings
from grader.tasks import STAGES


def job_for(path: pathlib.Path, learner: str = "ana") -> GradeJob:
    return GradeJob(learner, learner, str(path), "/nowhere", "/nowhere", Settings(stage_seconds=30))


def files(folder: pathlib.Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_message_carries_the_package_the_intake_read(tmp_path):
    write_package(tmp_path / "ana" / "minitorch")
    (tmp_path / "ana" / ".venv").mkdir()
    (tmp_path / "ana" / ".venv" / "big.py").write_text("x = 1\n")
    _, message = pack(job_for(tmp_path / "ana"), "run1", tmp_path / "read")
    assert message["id"] == "run1/ana" and message["broken"] is None
    assert message["settings"]["stage_seconds"] == 30
    assert sorted(message["stages"]) == sorted(STAGES) and len(message["packages"]) == 1
    hand_in = unpack(message, tmp_path / "worker")
    read = read_hand_in(tmp_path / "ana", "ana", tmp_path / "instructor")
    assert files(hand_in.packages["1"]) == files(read.packages["1"])  # the .py files and the course's data
    assert not any(".venv" in name for name in files(tmp_path / "worker"))


def test_a_broken_hand_in_travels_as_its_reason(tmp_path):
    (tmp_path / "bo.zip").write_bytes(b"not a zip")
    _, message = pack(job_for(tmp_path / "bo.zip", "bo"), "run1", tmp_path / "read")
    assert message["packages"] == [] and message["stages"] == {}
    assert "not a readable .zip" in message["broken"]


def test_a_message_with_a_path_outside_its_package_is_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../../escape.py", "x = 1\n")
    message = {"learner": "x", "broken": None, "stages": {"1": 0},
               "packages": [base64.b64encode(buffer.getvalue()).decode()]}
    with pytest.raises(ValueError, match="unexpected name"):
        unpack(message, tmp_path / "worker")
    assert not (tmp_path / "escape.py").exists()


def test_a_worker_with_another_grader_refuses_to_grade(tmp_path):
    write_package(tmp_path / "ana" / "minitorch")
    message = pack(job_for(tmp_path / "ana"), "run1", tmp_path / "read")[1] | {"grader": "0123456789abcdef"}
    task = types.SimpleNamespace(request=types.SimpleNamespace(hostname="w9@elsewhere"))
    reply = grade_hand_in(task, message)
    assert set(reply) == {"refused"} and "w9@elsewhere" in reply["refused"]


def test_the_lease_outlasts_the_longest_hand_in():
    settings = Settings()
    assert lease_for(settings) > len(STAGES) * (settings.stage_seconds + settings.call_seconds)
    assert lease_for(settings.replace(stage_seconds=10)) < lease_for(settings)


def test_the_cluster_examples_use_the_grader_s_real_options():
    """The commands in docs/cluster/ parse with the grader's own command line."""
    import re
    import shlex

    import yaml

    from grader.__main__ import command_line
    commands = re.findall(r"\.venv/bin/python -m grader ((?:worker|autograde|merge)[^\n`]*(?:\n +--[^\n`]*)*)",
                          "\n".join(p.read_text() for p in (ROOT / "docs" / "cluster").iterdir()))
    assert {c.split()[0] for c in commands} == {"worker", "autograde", "merge"}
    for command in commands:
        words = shlex.split(re.sub(r"\$\(\([^)]*\)\)|\$\{\w+\}|\$\w+", "1", command.replace("\n", " ")))
        command_line().parse_args([w for w in words if w.strip() not in ("", "\\")])
    manifests = list(yaml.safe_load_all((ROOT / "docs" / "cluster" / "kubernetes-queue-workers.yaml").read_text()))
    assert [m["kind"] for m in manifests] == ["Secret", "Deployment", "Service", "Deployment"]
