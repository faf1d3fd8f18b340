"""Gradescope: ``python -m grader gradescope --out autograder.zip`` writes an autograder as
Gradescope's autograder specification describes it (docs/PLATFORMS.md cites the pages),
and ``python -m grader.platforms.gradescope`` is what its ``run_autograder`` runs.

The zip's root holds ``setup.sh`` and ``run_autograder`` (Gradescope unpacks the zip into
/autograder/source, copies run_autograder to /autograder/ and runs setup.sh as root when
it builds the image), the grader with its hidden checks (``grader/``), the course's data
files (``minitorch/data/``) and ``requirements.lock``, the pins of what grading needs.
setup.sh builds a virtual environment from it in /autograder/venv. For each submission,
run_autograder grades /autograder/submission/ (a handin.zip, a minitorch/ folder or the
package's files) and writes /autograder/results/results.json: one test per task part,
the reason in its output, the total as the score and check's table as the output.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
import traceback
import zipfile

from grader.outputs.tables import table
from grader.platforms import container, shipping
from grader.tasks import TASKS

AUTOGRADER = pathlib.Path("/autograder")
VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")

UV_VERSION = "0.13.8"   # installs a released CPython where the base image has no Python 3.11 to 3.13

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image: a virtual
# environment in /autograder/venv with the pinned packages of requirements.lock, on a final
# release of Python 3.11 to 3.13, and the exact version printed last. The Python is
#   1. the base image's own python3.11, 3.12, 3.13 or python3, when it is a final release
#      (Ubuntu 24.04's 3.12, once apt adds its venv module), or else
#   2. CPython 3.11 from python-build-standalone, installed with uv UV_VERSION into
#      /opt/minitorch-python (uv's archive checked against its published SHA-256; uv
#      checks the Python it downloads): Ubuntu 22.04's own Python is 3.10, and its
#      python3.11 package is not a final release there.
# pip reads its usual settings (PIP_INDEX_URL, PIP_FIND_LINKS, PIP_NO_INDEX) from the environment.
set -euo pipefail
SOURCE=/autograder/source
VENV=/autograder/venv
UV_VERSION=@UV_VERSION@
PYTHONS=/opt/minitorch-python
CHECK='import sys; v = sys.version_info; sys.exit(not ((3, 11) <= v[:2] <= (3, 13) and v.releaselevel == "final"))'

released() {   # a final Python 3.11 to 3.13 that can make a virtual environment
    "$1" -c "import venv, ensurepip; $CHECK" 2>/dev/null
}
pick() {
    for candidate in python3.11 python3.12 python3.13 python3; do
        if command -v "$candidate" > /dev/null && released "$(command -v "$candidate")"; then
            command -v "$candidate"; return 0
        fi
    done
    return 1
}
fetch() {      # URL FILE, with whichever of curl, wget or Python the image has
    if command -v curl > /dev/null; then curl -fsSL --retry 3 -o "$2" "$1"
    elif command -v wget > /dev/null; then wget -q -O "$2" "$1"
    else python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' "$1" "$2"
    fi
}
standalone() { # CPython 3.11 from python-build-standalone, through uv; prints its path
    local asset tmp want got uv
    asset="uv-$(uname -m)-unknown-linux-gnu.tar.gz"
    tmp=$(mktemp -d)
    fetch "https://github.com/astral-sh/uv/releases/download/$UV_VERSION/$asset" "$tmp/$asset"
    fetch "https://github.com/astral-sh/uv/releases/download/$UV_VERSION/$asset.sha256" "$tmp/$asset.sha256"
    want=$(cut -d' ' -f1 < "$tmp/$asset.sha256")
    got=$(sha256sum "$tmp/$asset" | cut -d' ' -f1)
    [ -n "$want" ] && [ "$want" = "$got" ] || { echo "setup.sh: $asset does not match its SHA-256" >&2; return 1; }
    tar -xzf "$tmp/$asset" -C "$tmp"
    uv=$(find "$tmp" -name uv -type f | head -n 1)
    UV_PYTHON_INSTALL_DIR=$PYTHONS UV_PYTHON_BIN_DIR=$PYTHONS/bin "$uv" python install 3.11 >&2
    find "$PYTHONS" -path '*/bin/python3.11' -type f | sort -V | tail -n 1
}

if ! PYTHON=$(pick); then
    if command -v apt-get > /dev/null && python3 -c "$CHECK" 2>/dev/null; then
        apt-get update -qq && apt-get install -y -qq python3-venv    # Ubuntu 24.04: its Python lacks venv
    fi
    PYTHON=$(pick) || PYTHON=$(standalone) || true
    if [ -z "$PYTHON" ] || ! released "$PYTHON"; then
        echo "setup.sh: no final release of Python 3.11 to 3.13 could be found or installed" >&2
        exit 1
    fi
fi
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --no-cache-dir --disable-pip-version-check --only-binary=:all: \
    -r "$SOURCE/requirements.lock"
"$VENV/bin/python" -c "import numpy, scipy.special, matplotlib"
"$VENV/bin/python" -c "$CHECK"
"$VENV/bin/python" -c 'import platform as p, sys; print(f"setup.sh: the autograder runs on Python {p.python_version()}"
    f" ({sys.version_info.releaselevel} release, from {sys.base_prefix}) on {p.platform()}")'
""".replace("@UV_VERSION@", UV_VERSION)

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this, as root, for each submission: it grades /autograder/submission/
# and writes /autograder/results/results.json (python -m grader.platforms.gradescope).
cd /autograder/source || exit 1
exec /autograder/venv/bin/python -B -m grader.platforms.gradescope --visibility {visibility}
"""


def build(out: pathlib.Path, visibility: str = "visible") -> pathlib.Path:
    """Write the autograder zip to ``out``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w") as archive:
        shipping.add(archive, "setup.sh", SETUP_SH, executable=True)
        shipping.add(archive, "run_autograder", RUN_AUTOGRADER.format(visibility=visibility), executable=True)
        shipping.add(archive, "requirements.lock", shipping.grading_lock())
        for name, data in shipping.shipped_files():
            shipping.add(archive, name, data)
    return out


def results_json(result, seconds: float, visibility: str = "visible") -> dict:
    """Gradescope's results.json for a graded hand-in: a test per part of every task."""
    tests = [{"name": f"Task {v.task} · {v.part}", "score": v.earned, "max_score": v.points,
              "status": "passed" if v.passed else "failed", "output": v.message, "visibility": visibility}
             for task in TASKS for v in result.tasks[task].verdicts]
    return {"score": result.total[0], "execution_time": round(seconds), "output": table(result),
            "output_format": "text", "test_output_format": "text", "test_name_format": "text",
            "visibility": visibility, "stdout_visibility": "hidden", "tests": tests}


FAILED = ("The autograder could not grade this submission because of an error in the autograder itself, not in "
          "your work. Your instructor can see the details in the autograder's output; submit again later.")


def run(argv: list[str] | None = None, root: pathlib.Path = AUTOGRADER) -> int:
    """Grade /autograder/submission/ and write /autograder/results/results.json."""
    parser = argparse.ArgumentParser(prog="python -m grader.platforms.gradescope")
    parser.add_argument("--visibility", choices=VISIBILITIES, default="visible")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = root / "results"
    closed = {root: 0o711, root / "source": 0o700, root / "submission": 0o700,
              root / "submission_metadata.json": 0o600}
    try:
        result, _ = container.grade_upload(root / "submission", closed, results)
        data = results_json(result, time.perf_counter() - start, args.visibility)
        status = 0
    except Exception:  # noqa: BLE001 - a grader error still ends with a results.json
        traceback.print_exc(file=sys.stdout)
        data = {"score": 0.0, "output": FAILED, "output_format": "text", "visibility": args.visibility,
                "stdout_visibility": "hidden", "tests": []}
        status = 1
    container.write_results(results / "results.json", data)
    print(f"minitorch grader: wrote {results / 'results.json'}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(run())
