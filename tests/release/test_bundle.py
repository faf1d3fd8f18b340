"""The learner bundle: what it holds, what it must not, and that it installs into a fresh
virtual environment and opens (notebook 01 runs, stopping only at the stubs)."""

import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time
import urllib.request
import zipfile

import pytest
from test_release import solution_lines

from grader.release import bundle
from grader.tasks import STAGES

ROOT = pathlib.Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # run by `make test`, not `make test-fast`


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    base = tmp_path_factory.mktemp("bundle")
    archive = bundle.build(base / "minitorch-course.zip")
    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        z.extractall(base)
    return base / "minitorch-course", names


def test_bundle_holds_the_release_and_nothing_secret(unpacked):
    folder, names = unpacked
    tops = {name.split("/")[1] for name in names}
    assert tops == {"notebooks", "minitorch", "environment.yml", "requirements.lock", "pyproject.toml",
                    "README.md", "Makefile", "etc"}
    for config in ("jupyterlab-overrides.json", "jupyter_server_config.json", "jupyterlab-workspace.json"):
        assert f"etc/{config}" in (folder / "Makefile").read_text() and (folder / "etc" / config).exists()
    assert sorted(pathlib.Path(n).stem for n in names if n.endswith(".ipynb")) == sorted(STAGES.values())
    lock = (folder / "requirements.lock").read_text().lower()
    for tool in ("nbgrader", "playwright", "pytest", "hypothesis", "jupytext"):  # instructor tooling stays out
        assert f"\n{tool}==" not in lock and f"{tool}==" not in (folder / "pyproject.toml").read_text()
    makefile = (folder / "Makefile").read_text()
    assert "--ServerApp.root_dir=." in makefile and "minitorch/course/handin.py" in makefile
    assert "minitorch/course/progress.py" in makefile
    readme = (folder / "README.md").read_text()
    assert "## Troubleshooting" in readme and "make handin" in readme and "passes all the tests" not in readme
    secret = solution_lines()
    for path in folder.rglob("*"):
        if path.suffix in (".py", ".ipynb", ".md"):
            text = path.read_text()
            assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text, path
            assert "from grader" not in text and "import grader" not in text, path
            assert not [line for line in secret if line in text], path


RUN_NOTEBOOK = """
import re, sys, nbformat, minitorch
from nbclient import NotebookClient

assert minitorch.__file__.startswith(sys.argv[1]), minitorch.__file__
nb = nbformat.read(sys.argv[1] + "/notebooks/01_chain_rule.ipynb", as_version=4)
NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
               resources={"metadata": {"path": sys.argv[1] + "/notebooks"}}).execute()
errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
assert errors and all(o.ename == "NotImplementedError" and re.match(r"Task 1\\.\\d: ", o.evalue) for o in errors), errors
print("opened", len(nb.cells), "cells,", len(errors), "stub errors")
"""


@pytest.fixture(scope="module")
def venv(unpacked):
    """The learner's environment, installed as `make lab` installs it (its .venv inside
    the course folder)."""
    folder, _ = unpacked
    venv = folder / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    for args in (["-r", "requirements.lock"], ["--no-deps", "--no-build-isolation", "-e", "."]):
        done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                               "--disable-pip-version-check", *args],
                              cwd=folder, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-2000:]
    return venv


def test_bundle_installs_into_a_fresh_environment_and_opens(unpacked, venv, tmp_path):
    """Notebook 01 runs, `make progress` and `make handin` work, and the whole folder
    zipped, .venv and all, grades exactly as the hand-in zip does."""
    folder, _ = unpacked
    python = venv / "bin" / "python"
    result = subprocess.run([str(python), "-c", RUN_NOTEBOOK, str(folder.resolve())], cwd=tmp_path,
                            capture_output=True, text=True, timeout=600,
                            env={"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)})
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "stub errors" in result.stdout
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    progress = subprocess.run([str(python), "-m", "minitorch.course.progress"], cwd=folder, capture_output=True, text=True,
                              env=env, timeout=300)
    assert progress.returncode == 0 and "not started" in progress.stdout, progress.stderr[-2000:]
    handin = subprocess.run([str(python), "minitorch/course/handin.py"], cwd=folder, capture_output=True, text=True,
                            env=env, timeout=120)
    assert handin.returncode == 0 and (folder / "handin.zip").is_file(), handin.stderr[-2000:]
    with zipfile.ZipFile(folder / "handin.zip") as z:
        assert {n.split("/")[0] for n in z.namelist()} == {"minitorch", "notebooks"}
    whole = tmp_path / "whole-folder.zip"
    with zipfile.ZipFile(whole, "w") as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.name != "handin.zip":
                z.write(path, path.relative_to(folder.parent))
    tables = []
    for archive in (folder / "handin.zip", whole):
        done = subprocess.run([sys.executable, "-m", "grader", "check", str(archive), "--out", str(tmp_path / "out")],
                              cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        tables.append([line for line in done.stdout.splitlines() if "Task" in line or "Total" in line])
    assert tables[0] == tables[1] and any(line.startswith("Total: 0 /") for line in tables[0])


def test_make_lab_prints_no_warning_when_a_notebook_opens(unpacked, venv, tmp_path):
    """What the learner's terminal shows from `make lab` until a notebook's kernel runs:
    JupyterLab's own lines and no warning (no "running over TCP without encryption", no
    untrusted notebook, no language-server search, no websocket timeout complaint)."""
    folder, _ = unpacked
    log = tmp_path / "lab.log"
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "BROWSER": "true"}  # a browser "opens"
    with open(log, "w") as out:
        lab = subprocess.Popen(["make", "lab"], cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        url = wait_for(log, r"(http://127\.0\.0\.1:\d+)/lab\S*\?token=(\w+)", 300)
        base, token = url.groups()
        request = urllib.request.Request(
            f"{base}/api/sessions", method="POST", headers={"Authorization": f"token {token}"},
            data=json.dumps({"path": "notebooks/01_chain_rule.ipynb", "type": "notebook",
                             "kernel": {"name": "python3"}}).encode())
        assert json.load(urllib.request.urlopen(request, timeout=60))["kernel"]["id"]
        wait_for(log, r"Kernel started", 60)
        time.sleep(5)  # the kernel's own start-up lines
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=60)
    text = log.read_text()
    server = text[text.index("jupyter lab --ServerApp.root_dir"):]  # pip's lines before depend on the machine
    noise = [line for line in server.splitlines() if re.search(r"\[W |\[E |WARNING|Warning|not trusted", line)]
    assert not noise, server


def wait_for(path: pathlib.Path, pattern: str, seconds: float) -> re.Match:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = re.search(pattern, path.read_text())
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"{pattern!r} did not appear in {seconds} s:\n{path.read_text()[-3000:]}")


def test_the_learners_guides_quote_what_jupyter_prints_when_the_port_is_taken(tmp_path):
    """The troubleshooting line of the bundle's README and of docs/LEARNER.md is Jupyter's own
    words: a taken port is left for the next."""
    import socket
    quoted = re.search(r"`(The port 8888 is already in use[^`]*)`", (bundle.LEARNER_FILES / "README.md").read_text()).group(1)
    assert quoted in (ROOT / "docs" / "LEARNER.md").read_text().replace("\n", " ")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = subprocess.Popen([str(pathlib.Path(sys.executable).parent / "jupyter"), "lab", "--no-browser",
                                   f"--port={port}", "--ServerApp.ip=127.0.0.1", "--allow-root",
                                   "--ServerApp.root_dir=."], cwd=tmp_path, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, env=dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path)))
        seen = []
        try:
            for line in server.stdout:
                seen.append(line)
                if "/lab?token=" in line:
                    break
        finally:
            server.terminate()
            server.wait(timeout=30)
    printed = "".join(seen)
    assert quoted.replace("8888", str(port)) in printed, printed[-2000:]
    assert re.search(rf"http://127\.0\.0\.1:(?!{port}\b)\d+/lab\?token=", printed), printed[-2000:]
