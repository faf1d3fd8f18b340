"""The bundle README's steps without make: the Linux ones run exactly as written (read
from the README) in the unpacked bundle, and set up what `make lab` sets up; the Windows
ones name the same files and options, and take any Python 3 the check accepts."""

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

from grader.release import bundle

README = bundle.LEARNER_FILES / "README.md"
MAKEFILE = bundle.LEARNER_FILES / "Makefile"


def block_after(text: str, heading: str) -> list[str]:
    """The lines of the indented code block that follows ``heading`` in the README."""
    rest = text[text.index(heading) + len(heading):].lstrip("\n")
    lines = []
    for line in rest.splitlines():
        if not line.startswith("    "):
            break
        lines.append(line[4:])
    assert lines, f"no code block after {heading!r}"
    return lines


def unix_steps() -> list[str]:
    return block_after(README.read_text(), "macOS and Linux:\n")


def windows_steps() -> list[str]:
    text = README.read_text()
    return block_after(text, text[text.index("Windows (PowerShell)"):].split("\n\n")[0] + "\n")


def makefile_copies() -> set[tuple[str, str]]:
    """What the Makefile's set-up copies where (its variables expanded)."""
    text = MAKEFILE.read_text()
    variables = dict(re.findall(r"^(\w+)\s*:=\s*(\S+)\s*$", text, re.M))

    def expand(value: str) -> str:
        return re.sub(r"\$\((\w+)\)", lambda m: expand(variables[m.group(1)]), value)

    return {(expand(a), expand(b)) for a, b in re.findall(r"\bcp (etc/\S+) (\S+)", text)}


def test_the_steps_copy_what_make_lab_copies_and_start_lab_as_it_does():
    unix, windows = unix_steps(), windows_steps()
    copies = {tuple(line.split()[1:]) for line in unix if line.startswith("cp ")}
    assert copies == makefile_copies() and len(copies) == 3, (copies, makefile_copies())
    pasted = {tuple(p.replace("\\", "/") for p in line.split()[1:]) for line in windows if line.startswith("Copy-Item ")}
    assert pasted == copies
    lab = next(line for line in unix if " lab " in line)
    make_lab = next(line for line in MAKEFILE.read_text().splitlines() if "jupyter lab " in line)
    options = [o for o in make_lab.split() if o.startswith("--")]
    options = [o.replace("$(WORKSPACES)", ".venv/share/jupyter/lab/workspaces") for o in options]
    assert lab.split()[2:] == options
    assert next(line for line in windows if " lab " in line).replace("\\", "/").split()[2:] == options
    assert "trust" in " ".join(unix) and "trust" in " ".join(windows)


def test_windows_takes_any_python_3_that_the_check_accepts():
    windows = windows_steps()
    assert not [line for line in windows if re.search(r"\bpy -3\.\d", line)], windows
    assert windows[0].startswith("py -3 -c ") and windows[1] == "py -3 -m venv .venv"
    assert windows[0].split(" ", 3)[3] == unix_steps()[0].split(" ", 2)[2], "the two version checks differ"


@pytest.mark.parametrize("version, accepted", [((3, 10, 14), False), ((3, 11, 0), True), ((3, 12, 4), True),
                                               ((3, 13, 1), True), ((3, 14, 0), False)])
def test_the_version_check_accepts_exactly_3_11_to_3_13(version, accepted):
    code = unix_steps()[0].split(" ", 2)[2].strip('"')
    done = subprocess.run([sys.executable, "-c", f"import sys; sys.version_info = {version!r}\n{code}"],
                          capture_output=True, text=True)
    assert (done.returncode == 0) == accepted, done.stderr
    if not accepted:
        assert "Python 3.11 to 3.13 is needed" in done.stderr


@pytest.mark.slow
def test_the_linux_steps_run_as_written_in_the_unpacked_bundle(tmp_path):
    """Every line of the block, in order, in a shell in the course folder: the environment,
    the copies, Lab (its workspace and settings in place), progress and the hand-in."""
    archive = bundle.build(tmp_path / "minitorch-course.zip")
    with zipfile.ZipFile(archive) as z:
        z.extractall(tmp_path)
    folder = tmp_path / "minitorch-course"
    env = {"PATH": f"{pathlib.Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path), "BROWSER": "true"}
    steps = unix_steps()
    lab_line = next(line for line in steps if " lab " in line)
    for line in steps[:steps.index(lab_line)]:
        done = subprocess.run(["bash", "-c", line], cwd=folder, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
    root = " --allow-root" if os.getuid() == 0 else ""  # a container's root; the Makefile adds it too
    log = tmp_path / "lab.log"
    with open(log, "w") as out:
        lab = subprocess.Popen(["bash", "-c", lab_line + root], cwd=folder, env=env, stdout=out,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline, found = time.monotonic() + 120, None
        while not found and time.monotonic() < deadline:
            found = re.search(r"(http://127\.0\.0\.1:\d+)/lab\?token=(\w+)", log.read_text())
            time.sleep(0.5)
        assert found, log.read_text()[-3000:]
        base, token = found.groups()

        def get(path: str) -> dict:
            request = urllib.request.Request(base + path, headers={"Authorization": f"token {token}"})
            return json.load(urllib.request.urlopen(request, timeout=60))

        names = {item["name"] for item in get("/api/contents")["content"]}
        assert {"minitorch", "notebooks"} <= names
        layout = get("/lab/api/workspaces/default")["data"]
        assert layout["file-browser-filebrowser:cwd"]["path"] == ""
        assert "notebook:notebooks/01_chain_rule.ipynb" in layout["layout-restorer:data"]["main"]["dock"]["widgets"]
        news = get("/lab/api/settings/@jupyterlab/apputils-extension:notification")["schema"]["properties"]
        assert news["fetchNews"]["default"] == "false"  # the overrides file, where Lab reads it
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=60)
    assert (folder / ".venv" / "etc" / "jupyter" / "jupyter_server_config.json").is_file()
    noise = [line for line in log.read_text().splitlines() if re.search(r"\[W |\[E |WARNING|not trusted", line)]
    assert not noise, log.read_text()
    progress, handin = (line.strip() for line in README.read_text().splitlines()   # the progress table, the hand-in
                        if line.strip().startswith((".venv/bin/python -m minitorch.", ".venv/bin/python minitorch/")))
    done = subprocess.run(["bash", "-c", progress], cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "not started" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    done = subprocess.run(["bash", "-c", handin], cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and (folder / "handin.zip").is_file(), done.stderr[-2000:]


def test_the_learners_files_name_only_what_the_bundle_holds():
    """No `make lock` in a bundle whose Makefile has no such target, no etc/ file it lacks."""
    targets = set(re.findall(r"^([\w-]+):", MAKEFILE.read_text(), re.M))
    texts = {name: (bundle.LEARNER_FILES / name).read_text() for name in bundle.OWN_FILES}
    texts["requirements.lock"] = bundle.learner_lock()
    shipped = {entry for entry in bundle.ENTRIES if entry.startswith("etc/")}
    for name, text in texts.items():
        named = set(re.findall(r"\bmake ([a-z][\w-]*)", text)) - {"sure", "up"}
        assert named <= targets, f"{name} names make {named - targets}, which the bundle's Makefile lacks"
        files = set(re.findall(r"\betc[/\\]([\w.-]+\.json)", text))
        assert {f"etc/{f}" for f in files} <= shipped, f"{name} names {files}"
    assert "Regenerate" not in texts["requirements.lock"] and not bundle.learner_lock().startswith("anyio")
