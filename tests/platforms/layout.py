"""Each platform's directory contract, reproduced on this machine.

A run binds temporary folders at the platform's paths (/autograder, /grade,
/opt/minitorch-grader) inside a private mount namespace (``unshare -m``, as root) and runs
the platform's own command there: setup.sh and run_autograder as Gradescope's image build
and harness run them (docs/specs.md, manual_docker/Dockerfile of gradescope/
autograder_samples), or the question's info.json entrypoint in a /grade laid out as
PrairieLearn's buildDirectory lays it out (serverFilesCourse/, shared/, tests/, student/,
data/data.json; no results/). Profile "docker" runs it as a default Docker container
would: Docker's capabilities only, no Landlock, no control groups (docker_like.py).
"""

import base64
import json
import os
import pathlib
import platform
import resource
import shlex
import shutil
import subprocess
import sys
import time
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
IMAGE_HOME = pathlib.Path("/opt/minitorch-grader")   # where the Dockerfile puts the image's environment
MOUNT_POINTS = [pathlib.Path("/autograder"), pathlib.Path("/grade"), IMAGE_HOME]


def unable() -> str:
    """Why the platforms' layouts cannot be reproduced here ('' when they can)."""
    if not sys.platform.startswith("linux") or platform.machine() != "x86_64":
        return "the platforms' containers are x86_64 Linux"
    if os.geteuid() != 0:
        return "needs root: bind mounts in a private mount namespace (unshare -m)"
    if not shutil.which("unshare"):
        return "needs unshare (util-linux)"
    return ""


def in_namespace(binds, argv, env, profile="full", timeout=900) -> subprocess.CompletedProcess:
    """Run ``argv`` with ``binds`` (host folder, path) mounted, in a private mount namespace."""
    lines = ["set -e"] + [f"mount --bind {shlex.quote(str(src))} {shlex.quote(str(dst))}" for src, dst in binds]
    if profile == "docker":
        lines.append("mount -t tmpfs -o size=1m tmpfs /sys/fs/cgroup")
        argv = [sys.executable, str(HERE / "docker_like.py"), *argv]
    lines.append("exec " + shlex.join(str(a) for a in argv))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", "\n".join(lines)], env=env,
                          capture_output=True, text=True, timeout=timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)   # the whole tree: every process was waited for
    done.cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return done


def build_env(wheels: pathlib.Path, path: str = SYSTEM_PATH) -> dict:
    """An image build's environment; pip takes the pinned wheels from a local folder (no network here)."""
    return {"PATH": path, "HOME": "/root", "LANG": "C.UTF-8", "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}


class Gradescope:
    """/autograder as the image build leaves it: source/ (the zip unpacked), run_autograder, venv/."""

    def __init__(self, zip_path: pathlib.Path, home: pathlib.Path, wheels: pathlib.Path) -> None:
        self.home = home / "autograder"
        (self.home / "source").mkdir(parents=True)
        with zipfile.ZipFile(zip_path) as archive:
            for info in archive.infolist():
                archive.extract(info, self.home / "source")
                os.chmod(self.home / "source" / info.filename, (info.external_attr >> 16) & 0o777)
        for name in ("submission", "results"):
            (self.home / name).mkdir()
        shutil.copy(self.home / "source" / "run_autograder", self.home / "run_autograder")  # as the build does
        (self.home / "run_autograder").chmod(0o755)
        self.setup = in_namespace([(self.home, "/autograder")], ["bash", "/autograder/source/setup.sh"],
                                  build_env(wheels))
        assert self.setup.returncode == 0, self.setup.stdout[-3000:] + self.setup.stderr[-3000:]

    def run(self, upload, work: pathlib.Path, profile="full", metadata=None, settle=0.0):
        """Grade ``upload`` (a file or a folder, copied into /autograder/submission/);
        returns results.json (read ``settle`` seconds later: anything left running has written), the output,
        seconds."""
        submission, results = work / "submission", work / "results"
        submission.mkdir(parents=True)
        results.mkdir()
        upload = pathlib.Path(upload)
        if upload.is_dir():
            shutil.copytree(upload, submission, dirs_exist_ok=True, symlinks=True)
        else:
            shutil.copy(upload, submission / upload.name)
        metadata_file = work / "submission_metadata.json"
        metadata_file.write_text(json.dumps(metadata or {"id": 1, "users": [{"name": "A Learner"}]}))
        (self.home / "submission_metadata.json").touch()
        binds = [(self.home, "/autograder"), (submission, "/autograder/submission"),
                 (results, "/autograder/results"), (metadata_file, "/autograder/submission_metadata.json")]
        start = time.perf_counter()
        done = in_namespace(binds, ["/autograder/run_autograder"],
                            {"PATH": SYSTEM_PATH, "HOME": "/root", "LANG": "C.UTF-8"}, profile)
        seconds = time.perf_counter() - start
        time.sleep(settle)
        return json.loads((results / "results.json").read_text()), done, seconds


class PrairieLearn:
    """The grading image (its environment built by the Dockerfile's install.sh at
    /opt/minitorch-grader) and a course holding the generated serverFilesCourse/ and questions/."""

    def __init__(self, course: pathlib.Path, home: pathlib.Path, wheels: pathlib.Path) -> None:
        self.course, self.image = course, home / "image"
        shutil.copytree(course / "minitorch-grader-image", self.image)
        dockerfile = (self.image / "Dockerfile").read_text()
        assert "COPY install.sh requirements.lock /opt/minitorch-grader/" in dockerfile
        assert "RUN sh /opt/minitorch-grader/install.sh" in dockerfile
        assert "ENV PATH=/opt/minitorch-grader/venv/bin:$PATH" in dockerfile
        self.setup = in_namespace([(self.image, IMAGE_HOME)], ["sh", str(IMAGE_HOME / "install.sh")],
                                  build_env(wheels))
        assert self.setup.returncode == 0, self.setup.stdout[-3000:] + self.setup.stderr[-3000:]

    def info(self, stage: str) -> dict:
        from grader.tasks import STAGES
        return json.loads((self.course / "questions" / "minitorch" / STAGES[stage] / "info.json").read_text())

    def run(self, upload: pathlib.Path, stage: str, work: pathlib.Path, profile="full", settle=0.0):
        """One grading job: /grade built for ``upload`` (handin.zip), the entrypoint run."""
        options = self.info(stage)["externalGradingOptions"]
        grade = work / "grade"
        for name in ("serverFilesCourse", "tests", "student", "data"):
            (grade / name).mkdir(parents=True)
        for item in options["serverFilesCourse"]:
            shutil.copytree(self.course / "serverFilesCourse" / item, grade / "serverFilesCourse" / item)
        shutil.copytree(grade / "serverFilesCourse", grade / "shared")  # still copied, deprecated
        shutil.copy(upload, grade / "student" / "handin.zip")
        contents = base64.b64encode(pathlib.Path(upload).read_bytes()).decode()
        (grade / "data" / "data.json").write_text(json.dumps({
            "params": {}, "correct_answers": {}, "submitted_answers": {"_files": [{"name": "handin.zip",
                                                                                   "contents": contents}]},
            "format_errors": {}, "partial_scores": {}, "score": 0, "feedback": {}, "variant_seed": 1,
            "options": {}, "raw_submitted_answers": {}, "gradable": True}))
        entrypoint = options["entrypoint"]
        entrypoint = shlex.split(entrypoint) if isinstance(entrypoint, str) else entrypoint
        if entrypoint[0].startswith("/grade/"):
            (grade / entrypoint[0][len("/grade/"):]).chmod(0o755)  # as the grader host does
        env = {"PATH": f"{IMAGE_HOME}/venv/bin:{SYSTEM_PATH}", "HOME": "/root", "LANG": "C.UTF-8"}
        start = time.perf_counter()
        done = in_namespace([(self.image, IMAGE_HOME), (grade, "/grade")], entrypoint, env, profile)
        seconds = time.perf_counter() - start
        time.sleep(settle)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]  # else PrairieLearn drops results
        raw = (grade / "results" / "results.json").read_bytes()
        assert len(raw) < 2**20, "PrairieLearn refuses results over 1 MB"
        return json.loads(raw), done, seconds
