"""PrairieLearn: ``python -m grader prairielearn --image NAME --out DIR`` writes what a course
needs for external grading (docs/PLATFORMS.md cites PrairieLearn's pages), and
``python -m grader.platforms.prairielearn --stage N`` is the entrypoint each question runs.

    DIR/minitorch-grader-image/      Dockerfile (python:3.11-slim-bookworm, the pinned
                                     grading packages in a virtual environment), README.md
    DIR/serverFilesCourse/minitorch_grader/    the grader with its hidden checks, the
                                     course's data files, and ``run``, the entrypoint
    DIR/questions/minitorch/NN_name/ one question per stage: info.json, question.html

One question per stage, each grading only that stage's tasks of the uploaded handin.zip:
each stage gets its own deadline as its notebook does, and each job stays well under
PrairieLearn's 600 s cap with the limits of ``check`` unchanged (a stage's budget is
90 s; every stage in one job could need their sum), so parts, points and reasons stay check's.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import shutil
import sys
import traceback
import uuid

from grader.outputs.tables import table
from grader.outputs.words import plural
from grader.platforms import container, shipping
from grader.settings import Settings
from grader.tasks import POINTS, STAGES, TASKS, tasks_of

GRADE = pathlib.Path("/grade")
FILES = "minitorch_grader"                 # its folder in the course's serverFilesCourse/
# Where PrairieLearn pulls custom images from (its docs/dockerImages.md, "Supported
# registries"): public, no login; Docker Hub names carry no host.
REGISTRIES = ("docker.io", "index.docker.io", "registry-1.docker.io", "ghcr.io", "quay.io", "registry.gitlab.com",
              "public.ecr.aws")
IMAGE_NAME = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)+(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$")
TIMEOUT = int(Settings().stage_seconds) + 90   # a stage's budget, start-up and the trusted side's work
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/minitorch-course/prairielearn")

DOCKERFILE = """# The image minitorch's PrairieLearn questions grade in: Python 3.11 (Debian bookworm) and
# the course's pinned grading packages in /opt/minitorch-grader/venv, first on PATH. The
# grader itself arrives with each job in /grade/serverFilesCourse/minitorch_grader/. It runs
# as root (no USER): the grader gives the learner's code a user of its own.
FROM python:3.11-slim-bookworm
COPY install.sh requirements.lock /opt/minitorch-grader/
RUN sh /opt/minitorch-grader/install.sh
ENV PATH=/opt/minitorch-grader/venv/bin:$PATH
"""

INSTALL_SH = """#!/bin/sh
# Run by the Dockerfile: a virtual environment beside this script with requirements.lock.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
python3 -m venv "$here/venv"
"$here/venv/bin/python" -m pip install --quiet --no-cache-dir --disable-pip-version-check --only-binary=:all: \\
    -r "$here/requirements.lock"
"$here/venv/bin/python" -c "import numpy, scipy.special, matplotlib"
"""

RUN = """#!/bin/sh
# PrairieLearn runs this (info.json "entrypoint") as root in the grading image for each
# submission: it grades /grade/student/ and writes /grade/results/results.json.
cd "$(dirname "$0")" || exit 1
exec python3 -B -m grader.platforms.prairielearn "$@"
"""

QUESTION = """<pl-question-panel>
  <p>Stage {stage} of minitorch (<code>notebooks/{notebook}.ipynb</code>), {points}:</p>
  <ul>
{tasks}
  </ul>
  <p>In your course folder run <code>make handin</code> and upload the <code>handin.zip</code> it
    writes. Only the package <code>minitorch/</code> in it is graded, and here only this stage's
    tasks, by hidden checks; each lost point comes with its reason.</p>
  <pl-file-upload file-names="handin.zip"></pl-file-upload>
</pl-question-panel>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
</pl-submission-panel>
"""


class ImageNameError(ValueError):
    """The grading image's name is not one PrairieLearn can pull; the message says why."""


def check_image(image: str) -> str:
    """``image`` when PrairieLearn can pull it: ``ACCOUNT/NAME[:TAG]`` on Docker Hub, or
    ``HOST/ACCOUNT/NAME[:TAG]`` on a registry of ``REGISTRIES``, in the account you push to."""
    first = image.split("/", 1)[0]
    host = first if "/" in image and ("." in first or ":" in first or first == "localhost") else None  # Docker's rule
    if host is not None and host not in REGISTRIES:
        raise ImageNameError(f"--image {image!r}: PrairieLearn pulls only from Docker Hub (ACCOUNT/NAME:TAG) and "
                             f"{', '.join(REGISTRIES[3:])}; not from {host}")
    if not IMAGE_NAME.match(image) or image.count("/") < (2 if host else 1):
        raise ImageNameError(f"--image {image!r}: name the image in an account you can push to, such as "
                             "yourdockerhubaccount/minitorch-grader:2026-fall or ghcr.io/yourorg/minitorch-grader:1 "
                             "(lower-case letters, digits and . _ -; a tag after ':')")
    return image


def stage_title(stage: str) -> str:
    return STAGES[stage].split("_", 1)[1].replace("_", " ")


def info_json(stage: str, image: str, timeout: int = TIMEOUT) -> dict:
    return {"uuid": str(uuid.uuid5(NAMESPACE, STAGES[stage])),
            "title": f"minitorch stage {stage}: {stage_title(stage)}", "topic": "minitorch",
            "tags": ["minitorch", f"stage{stage}"], "type": "v3", "singleVariant": True, "gradingMethod": "External",
            "externalGradingOptions": {"image": image,
                                       "entrypoint": [f"/grade/serverFilesCourse/{FILES}/run", "--stage", stage],
                                       "serverFilesCourse": [f"{FILES}/"], "timeout": timeout}}


def build(out: pathlib.Path, image: str) -> pathlib.Path:
    """Write the image folder, serverFilesCourse/minitorch_grader/ and the questions into
    ``out`` (a PrairieLearn course, or a folder to copy from), replacing only those.
    ``image`` is the grading image's name in the instructor's own account (``check_image``)."""
    check_image(image)
    image_dir, files, questions = (out / "minitorch-grader-image", out / "serverFilesCourse" / FILES,
                                   out / "questions" / "minitorch")
    for folder in (image_dir, files, questions):
        shutil.rmtree(folder, ignore_errors=True)
    lock = shipping.grading_lock()
    shipping.write(image_dir, "Dockerfile", DOCKERFILE)
    shipping.write(image_dir, "install.sh", INSTALL_SH, executable=True)
    shipping.write(image_dir, "requirements.lock", lock)
    shipping.write(image_dir, "README.md", readme(image))
    shipping.write(files, "run", RUN, executable=True)
    for name, data in shipping.shipped_files():
        shipping.write(files, name, data)
    for stage, notebook in STAGES.items():
        tasks = "\n".join(f"    <li>Task {t}: {TASKS[t]} ({plural(POINTS[t], 'point')})</li>" for t in tasks_of(stage))
        points = sum(POINTS[t] for t in tasks_of(stage))
        shipping.write(questions / notebook, "info.json", json.dumps(info_json(stage, image), indent=2) + "\n")
        shipping.write(questions / notebook, "question.html",
                       QUESTION.format(stage=stage, notebook=notebook, points=plural(points, 'point'), tasks=tasks))
    return out


def readme(image: str) -> str:
    points = {s: sum(POINTS[t] for t in tasks_of(s)) for s in STAGES}
    zone = [{"id": f"minitorch/{name}", "autoPoints": int(points[s]) if points[s] % 1 == 0 else points[s]}
            for s, name in STAGES.items()]
    return f"""# minitorch on PrairieLearn

Written by `python -m grader prairielearn`; docs/PLATFORMS.md of the course explains it all.

1. Build the grading image for `linux/amd64` (PrairieLearn's servers run only that
   platform; a Mac with Apple silicon builds `linux/arm64` unless told) and push it to
   your account, from this folder:

       docker build --platform linux/amd64 -t {image} .
       docker push {image}

   (another name: run `python -m grader prairielearn --image NAME` again.)
2. Check that a machine that is not logged in can pull it, as PrairieLearn's grader hosts
   pull only public images without logging in: `docker logout`, then
   `docker buildx imagetools inspect {image}` must list `Platform: linux/amd64`, and
   `docker pull --platform linux/amd64 {image}` must succeed. On Docker Hub a new
   repository may be private: make it public in its settings.
3. Copy `serverFilesCourse/{FILES}/` and `questions/minitorch/` into your course repository,
   commit and push; on the course's **Sync** page in PrairieLearn, pull from the git
   repository, then, on the same page under **Docker images**, find `{image}` and click
   **Sync** (again after each push of the image: PrairieLearn keeps the copy it synced).
4. Put the questions in an assessment, each worth its stage's points (`autoPoints`), so that
   the stages add up to the {plural(sum(POINTS.values()), 'point')} of `python -m grader check`:

```json
{json.dumps({"title": "minitorch", "questions": zone}, indent=1)}
```

5. Try each question with the reference's hand-in (`python -m grader handin --reference
   --out handin.zip` in the course repository): every stage at full marks. The grading
   job's output starts with the grader's version, its Python and which guarantees hold.
"""


def results_json(result, broken: str | None, stage: str) -> dict:
    """PrairieLearn's results.json for one stage: a test per part of its tasks."""
    got, most = result.stage_score(stage)
    tests = [{"name": f"Task {v.task} · {v.part}", "description": TASKS[v.task], "points": v.earned,
              "max_points": v.points, "output": v.message} for task in tasks_of(stage) for v in result.tasks[task].verdicts]
    blocks = table(result).split("\n\n")   # check's table: its heading, then a block per stage
    message = "\n".join([f"Stage {stage} ({STAGES[stage]}): {got:g} / {plural(most, 'point')}", *result.problems])
    data = {"gradable": broken is None, "message": message,
            "output": f"{blocks[0]}\n\n{blocks[list(STAGES).index(stage) + 1]}", "tests": tests}
    if broken is None:
        data["score"] = got / most
    else:
        data["format_errors"] = [broken]
    return data


FAILED = ("The grader could not grade this submission because of an error in the grader itself, not in your "
          "work; it was not counted. Your instructor can see the details in the grading job's output.")


def run(argv: list[str] | None = None, root: pathlib.Path = GRADE) -> int:
    """Grade /grade/student/ for one stage and write /grade/results/results.json."""
    parser = argparse.ArgumentParser(prog="python -m grader.platforms.prairielearn")
    parser.add_argument("--stage", required=True, choices=list(STAGES))
    stage = parser.parse_args(argv).stage
    closed = {root: 0o711, **{root / name: 0o700 for name in ("serverFilesCourse", "shared", "tests", "student",
                                                               "data")}}
    try:
        result, broken = container.grade_upload(root / "student", closed, root / "results", [stage])
        data = results_json(result, broken, stage)
    except Exception:  # noqa: BLE001 - a grader error still ends with a results.json
        traceback.print_exc(file=sys.stdout)
        data = {"gradable": False, "message": FAILED, "format_errors": [FAILED], "tests": []}
    container.write_results(root / "results" / "results.json", data)
    print(f"minitorch grader: wrote {root / 'results' / 'results.json'}", flush=True)
    return 0   # PrairieLearn reads results.json only after a job that exits with 0


if __name__ == "__main__":
    sys.exit(run())
