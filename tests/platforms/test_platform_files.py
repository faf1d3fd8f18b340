"""What `python -m grader gradescope` and `prairielearn` write, checked against each
platform's documented layout without running it (the slow layer runs it), and the pieces
of the run that need no container: finding the hand-in in an upload, results.json's
formats, writing results.json, and a grader error still ending with a results.json."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from contracts import solution_lines, valid_gradescope, valid_prairielearn
from handins import ROOT

from grader.__main__ import main
from grader.platforms import container, gradescope, prairielearn, shipping
from grader.results import Failure, LearnerResult, Verdict, failed_everywhere
from grader.settings import Settings
from grader.tasks import PARTS, POINTS, STAGES, tasks_of

SOLUTIONS = solution_lines()


def no_solutions(names_and_texts) -> None:
    """No path of solutions/, the grader's files exactly the repository's own (the grader
    is instructor-side code), and no solution line in anything else written."""
    for name, data in names_and_texts:
        assert "solutions/" not in name, name
        shipped = name.removeprefix("serverFilesCourse/minitorch_grader/")
        if shipped.startswith("grader/"):
            assert data == (ROOT / shipped).read_bytes(), name
        elif name.endswith((".py", ".md", ".json", ".html", ".sh", ".lock", "Dockerfile", "run", "run_autograder")):
            text = data.decode()
            assert "BEGIN SOLUTION" not in text and not [line for line in SOLUTIONS if line in text], name


def test_the_autograder_zip_has_gradescopes_layout_and_no_solutions(tmp_path):
    assert main(["gradescope", "--out", str(tmp_path / "autograder.zip"), "--visibility", "after_due_date"]) == 0
    with zipfile.ZipFile(tmp_path / "autograder.zip") as archive:
        infos = {info.filename: info for info in archive.infolist()}
        files = {name: archive.read(name) for name in infos}
    for script in ("setup.sh", "run_autograder"):   # at the zip's root, executable, valid bash
        assert (infos[script].external_attr >> 16) & 0o111 == 0o111
        assert subprocess.run(["bash", "-n", "-c", files[script].decode()]).returncode == 0
    grader = {p.relative_to(ROOT).as_posix() for p in (ROOT / "grader").rglob("*.py") if "__pycache__" not in p.parts}
    assert grader <= set(files) and "grader/checks/stage2.py" in files
    assert {n.split("/")[0] for n in files} == {"setup.sh", "run_autograder", "requirements.lock", "grader", "minitorch"}
    assert {n for n in files if n.startswith("minitorch/")} == {
        p.relative_to(ROOT).as_posix() for p in (ROOT / "minitorch" / "data").rglob("*") if p.is_file()}
    setup, run = files["setup.sh"].decode(), files["run_autograder"].decode()
    assert "/autograder/venv" in setup and "$SOURCE/requirements.lock" in setup and "SOURCE=/autograder/source" in setup
    assert "--visibility after_due_date" in run and "/autograder/venv/bin/python" in run
    no_solutions(files.items())


def test_the_grading_lock_is_the_course_lock_cut_to_what_grading_needs():
    lock = [line for line in shipping.grading_lock().splitlines() if line and not line.startswith("#")]
    course = set((ROOT / "requirements.lock").read_text().splitlines())
    assert set(lock) <= course and len(lock) == len(set(lock))
    names = {line.split("==")[0].lower() for line in lock}
    assert {"numpy", "scipy", "matplotlib"} <= names
    assert not names & {"nbgrader", "jupyterlab", "celery", "pytest", "playwright", "hypothesis", "ipykernel"}


def test_the_prairielearn_folder_has_the_documented_pieces(tmp_path):
    assert main(["prairielearn", "--out", str(tmp_path / "a"), "--image", "someone/minitorch-grader:1"]) == 0
    prairielearn.build(tmp_path / "b", "someone/minitorch-grader:1")
    out = tmp_path / "a"
    uuids = set()
    for stage, name in STAGES.items():
        info = json.loads((out / "questions" / "minitorch" / name / "info.json").read_text())
        assert info["gradingMethod"] == "External" and info["type"] == "v3" and {"uuid", "title", "topic"} <= set(info)
        options = info["externalGradingOptions"]
        assert set(options) <= {"enabled", "image", "entrypoint", "serverFilesCourse", "timeout", "enableNetworking",
                                "environment"} and options.get("enabled", True)
        assert options["image"] == "someone/minitorch-grader:1" and not options.get("enableNetworking")
        assert Settings().stage_seconds < options["timeout"] <= 600 and isinstance(options["timeout"], int)
        entry = pathlib.Path(options["entrypoint"][0])
        assert options["entrypoint"][1:] == ["--stage", stage] and entry.is_relative_to("/grade/serverFilesCourse")
        assert any(entry.is_relative_to(f"/grade/serverFilesCourse/{item}") for item in options["serverFilesCourse"])
        assert os.access(out / entry.relative_to("/grade"), os.X_OK)
        html = (out / "questions" / "minitorch" / name / "question.html").read_text()
        assert '<pl-file-upload file-names="handin.zip"></pl-file-upload>' in html
        assert "<pl-external-grader-results></pl-external-grader-results>" in html
        uuids.add(info["uuid"])
        assert info == json.loads((tmp_path / "b" / "questions" / "minitorch" / name / "info.json").read_text())
    assert len(uuids) == len(STAGES)   # unique, and the same each time they are written
    dockerfile = (out / "minitorch-grader-image" / "Dockerfile").read_text()
    assert "FROM python:3.11-slim-bookworm" in dockerfile and "\nUSER" not in dockerfile
    assert subprocess.run(["sh", "-n", str(out / "minitorch-grader-image" / "install.sh")]).returncode == 0
    readme = (out / "minitorch-grader-image" / "README.md").read_text()
    zone = json.loads(readme[readme.index("```json") + 7:readme.rindex("```")])
    assert sum(q["autoPoints"] for q in zone["questions"]) == sum(POINTS.values())
    no_solutions((p.relative_to(out).as_posix(), p.read_bytes()) for p in out.rglob("*") if p.is_file())


def a_result(broken: str | None = None) -> LearnerResult:
    result = LearnerResult("you", problems=[broken] if broken else [])
    if broken:
        result.add(failed_everywhere(broken, Failure.NO_PACKAGE))
        return result
    for task, parts in PARTS.items():
        result.add([Verdict(task, part, points, points if task != WRONG else 0.0, "" if task != WRONG else "wrong")
                    for part, points in parts.items()])
    return result


STAGE = list(STAGES)[min(1, len(STAGES) - 1)]   # a stage of the manifest (the second, when there is one)
WRONG = tasks_of(STAGE)[-1]                      # its last task fails in a_result()


def test_results_json_follows_each_platforms_format():
    data = gradescope.results_json(a_result(), 12.3)
    valid_gradescope(data)
    assert data["score"] == sum(POINTS.values()) - POINTS[WRONG] and data["execution_time"] == 12
    first = next(iter(PARTS))
    assert len(data["tests"]) == sum(len(p) for p in PARTS.values()) and \
        data["tests"][0]["name"] == f"Task {first} · {next(iter(PARTS[first]))}"
    assert data["output_format"] == data["test_output_format"] == "text"   # learner text is never rendered
    data = prairielearn.results_json(a_result(), None, STAGE)
    valid_prairielearn(data)
    stage_points = sum(POINTS[t] for t in tasks_of(STAGE))
    assert data["score"] == pytest.approx((stage_points - POINTS[WRONG]) / stage_points)
    assert {t["name"].split(" · ")[0] for t in data["tests"]} == {f"Task {t}" for t in tasks_of(STAGE)}
    data = prairielearn.results_json(a_result("handin.zip is not a readable .zip file"), "handin.zip is not a "
                                     "readable .zip file", next(iter(STAGES)))
    valid_prairielearn(data)
    assert data["gradable"] is False and "score" not in data and "readable" in data["format_errors"][0]


def test_the_hand_in_is_found_in_what_was_uploaded(tmp_path):
    upload, staging = tmp_path / "upload", tmp_path / "staging"
    upload.mkdir()
    staging.mkdir()
    assert container.find_hand_in(upload, staging) == (None, [])
    for name in ("__init__.py", "ops_binary.py"):
        (upload / name).write_text("x = 1\n")
    (upload / "link.py").symlink_to("/etc/passwd")
    found, notes = container.find_hand_in(upload, staging)
    assert sorted(p.name for p in (found / "minitorch").iterdir()) == ["__init__.py", "ops_binary.py"]
    assert "2 uploaded .py file(s)" in notes[0]
    for name in ("other.zip", "handin.zip"):
        (upload / name).write_bytes(b"")
    found, notes = container.find_hand_in(upload, tmp_path / "staging2")
    assert found == upload / "handin.zip" and notes == ["graded handin.zip; not graded: other.zip"]
    (upload / "minitorch").mkdir()
    assert container.find_hand_in(upload, tmp_path / "staging3") == (upload, [])


def test_results_json_replaces_whatever_was_planted_in_its_place(tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text("keep")
    results = tmp_path / "results"
    results.mkdir()
    (results / "results.json").symlink_to(outside)
    container.write_results(results / "results.json", {"score": 1})
    assert outside.read_text() == "keep" and not (results / "results.json").is_symlink()
    (results / "results.json").unlink()
    (results / "results.json").mkdir()
    container.write_results(results / "results.json", {"score": 2})
    assert json.loads((results / "results.json").read_text()) == {"score": 2}


def test_a_grader_error_still_ends_with_a_results_json(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug in the grader")
    monkeypatch.setattr(container, "grade_upload", broken)
    assert gradescope.run([], root=tmp_path / "gs") == 1
    data = json.loads((tmp_path / "gs" / "results" / "results.json").read_text())
    valid_gradescope(data)
    assert data["score"] == 0 and "autograder itself" in data["output"]
    assert prairielearn.run(["--stage", "3"], root=tmp_path / "pl") == 0   # else PrairieLearn ignores results.json
    data = json.loads((tmp_path / "pl" / "results" / "results.json").read_text())
    valid_prairielearn(data)
    assert data["gradable"] is False and "grader itself" in data["message"]


@pytest.mark.skipif(os.geteuid() != 0 or not os.path.exists("/usr/bin/python3"), reason="needs root and /usr/bin/python3")
def test_every_process_of_the_learners_user_is_ended_however_it_detached():
    from grader.boundary.users import end_processes_of, processes
    user = 59_000 + os.getpid() % 900   # outside the platforms' range, unused here
    # the detached grandchild says it is running before the first process ends, so that every
    # process of the user has been born before they are ended (none can appear afterwards)
    code = ("import os, time\nr, w = os.pipe()\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
            "        os.write(w, b'1')\n        time.sleep(600)\n    os._exit(0)\nos.close(w)\nos.read(r, 1)\n")
    python = "/usr/bin/python3"   # one every user may run (this environment's may sit in root's home)
    subprocess.run([python, "-I", "-c", code], user=user, group=user, extra_groups=[], cwd="/", check=True)
    assert [pid for pid, (uid, state) in processes().items() if uid == user and state != "Z"]
    end_processes_of(user)
    assert not [pid for pid, (uid, state) in processes().items() if uid == user and state != "Z"]


def fake_python(folder: pathlib.Path, name: str, version: tuple) -> None:
    """A ``name`` in ``folder`` that runs this Python but reports ``version`` as its own."""
    script = folder / name
    script.write_text(f"#!/bin/sh\n[ \"$1\" = -c ] || exit 2\nexec {sys.executable} -I -c \"import sys, collections; "
                      "sys.version_info = collections.namedtuple('V', 'major minor micro releaselevel serial')"
                      f"(*{version!r})\n$2\"\n")
    script.chmod(0o755)


@pytest.mark.parametrize("pythons, chosen", [
    ({"python3.11": (3, 11, 0, "candidate", 1), "python3": (3, 12, 3, "final", 0)}, "python3"),  # Ubuntu 22.04 + rc
    ({"python3": (3, 10, 12, "final", 0)}, None),                                               # too old: standalone
    ({"python3.13": (3, 13, 0, "beta", 4), "python3.12": (3, 12, 7, "final", 0)}, "python3.12"),
])
def test_setup_sh_takes_only_a_final_python_3_11_to_3_13(tmp_path, pythons, chosen):
    """Gradescope's setup.sh uses the base image's own Python only when it is a final
    release of 3.11 to 3.13; otherwise it installs one (not run here: it downloads)."""
    for name, version in pythons.items():
        fake_python(tmp_path, name, version)
    functions = gradescope.SETUP_SH[:gradescope.SETUP_SH.index("\nif ! PYTHON=$(pick)")]
    assert f"UV_VERSION={gradescope.UV_VERSION}\n" in functions and "releaselevel == \"final\"" in functions
    done = subprocess.run([shutil.which("bash") or "/bin/bash", "-c", functions + "\npick"], env={"PATH": str(tmp_path)},
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout.strip()) == ((0, str(tmp_path / chosen)) if chosen else (1, "")), done.stderr
    tail = gradescope.SETUP_SH.splitlines()[-3:]
    assert "$CHECK" in tail[0] and "the autograder runs on Python" in tail[1]   # its last words: the exact version


def test_prairielearn_needs_an_image_name_of_the_instructors_own(tmp_path, capsys):
    """No default name in someone else's namespace: --image is required, checked against
    the registries PrairieLearn pulls from, and the README says to build for linux/amd64,
    check the image can be pulled without logging in and Sync it in the course."""
    with pytest.raises(SystemExit):
        main(["prairielearn", "--out", str(tmp_path / "a")])
    assert "--image" in capsys.readouterr().err
    assert main(["prairielearn", "--out", str(tmp_path / "b"), "--image", "registry.example.org/me/grader:1"]) == 2
    assert "PrairieLearn pulls only from Docker Hub" in capsys.readouterr().err and not (tmp_path / "b").exists()
    for bad in ("grader", "Me/Grader", "me/grader:"):
        with pytest.raises(prairielearn.ImageNameError):
            prairielearn.check_image(bad)
    for good in ("me/minitorch-grader:2026-fall", "ghcr.io/my-org/minitorch-grader:1", "quay.io/me/grader"):
        assert prairielearn.check_image(good) == good
    prairielearn.build(tmp_path / "c", "me/minitorch-grader:2026-fall")
    readme = (tmp_path / "c" / "minitorch-grader-image" / "README.md").read_text()
    assert "docker build --platform linux/amd64 -t me/minitorch-grader:2026-fall ." in readme
    assert "docker pull --platform linux/amd64 me/minitorch-grader:2026-fall" in readme and "docker logout" in readme
    assert "**Docker images**" in readme and "**Sync**" in readme and "handin --reference" in readme
    html = "".join((q / "question.html").read_text() for q in (tmp_path / "c" / "questions" / "minitorch").iterdir())
    assert not re.search(r"\b1 points\b", html) and not re.search(r"\((?!1 )[\d.]+ point\)", html)
