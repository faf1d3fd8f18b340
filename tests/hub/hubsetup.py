"""A real JupyterHub for the hub test: local Unix accounts, the learners' own environment,
nbgrader's exchange, and the hub with its proxy, each made here and removed again.

* Accounts (``useradd``, as root) get homes of mode 700, as a hub's learners need (Debian's
  default follows the umask and would let every learner read every other's work).
* The learners' environment is theirs alone: ``requirements-learner.lock`` plus nbgrader
  and jupyterhub (the Assignment List and the single-user server), in a virtual
  environment outside the repository, built once per lock and kept in ``/var/tmp``.
* The instructor's server and commands run from the repository's ``.venv`` (nbgrader, the
  grader), the hub too. A learner's server runs in a mount namespace where the repository
  is an empty folder: on this machine it is world-readable, and learners must never see
  the grader's checks or ``solutions/`` (on a real hub the instructor keeps it in their
  own home).
* When this Python, or the repository itself, lives where only its owner may go (pyenv in
  /root; a clone in a home folder of mode 750 or 700), the hub runs in a mount namespace
  that shows that folder, and nothing else of the closed one, to every account; the
  instructor's commands enter that namespace (``as_user``). Nothing outside it changes.
  What other accounts still could not read (a clone made under umask 077) stops the test
  with a message naming it (``unreadable_by_others``).
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import pwd
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
CACHE = pathlib.Path("/var/tmp/minitorch-hub")
PASSWORD = "mt-hub-test-only-7Qx"  # the test's own throwaway accounts, removed after it


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pin(name: str) -> str:
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if line.lower().startswith(name + "=="):
            return line
    raise LookupError(f"{name} is not pinned in requirements.lock")


def behind_closed_folders() -> list[tuple[str, str]]:
    """(folder, its highest ancestor other accounts cannot enter) for each folder every
    account must reach that lives where they may not go: this Python's installation (pyenv
    in /root) and the repository (a clone in a home folder of mode 750 or 700). The hub's
    mount namespace shows each of them, and nothing else of the closed folder, to every
    account; nothing outside the namespace changes."""
    found = []
    for folder in (pathlib.Path(sys.base_prefix).resolve(), ROOT):
        closed = [p for p in folder.parents if p != pathlib.Path("/") and not os.stat(p).st_mode & 0o001]
        if closed:
            found.append((str(folder), str(closed[-1])))
    return found


SKIPPED = {".git", "build", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache", "__pycache__"}


def unreadable_by_others(root: pathlib.Path = ROOT) -> list[str]:
    """What of the repository other accounts could not read even where they reach it: a
    file without read permission for others, a folder without read and search (a clone
    made under umask 077)."""
    bad = [str(root)] if os.stat(root).st_mode & 0o005 != 0o005 else []
    for folder, folders, files in os.walk(root):
        folders[:] = [name for name in folders if name not in SKIPPED]
        for name in folders + files:
            mode = os.lstat(os.path.join(folder, name)).st_mode
            need = 0o005 if stat.S_ISDIR(mode) else 0o004
            if not stat.S_ISLNK(mode) and mode & need != need:
                bad.append(os.path.join(folder, name))
    return bad


def venv(kind: str, *install: str) -> pathlib.Path:
    """A virtual environment outside the repository, that every account may run (in the
    hub's namespace); built once per set of pins (about 90 s) and kept in /var/tmp."""
    locks = b"".join((ROOT / f).read_bytes() for f in ("requirements.lock", "requirements-learner.lock",
                                                       "etc/jupyter_server_config.json", "etc/jupyterlab-overrides.json"))
    key = hashlib.sha256(locks + "\n".join(install).encode()).hexdigest()[:12]
    where = CACHE / f"{kind}-{key}"
    if (where / ".ready").exists():
        return where
    CACHE.mkdir(parents=True, exist_ok=True)
    os.chmod(CACHE, 0o755)
    shutil.rmtree(where, ignore_errors=True)  # half built by a run that was stopped
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    pip = subprocess.run([str(where / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          "-c", str(ROOT / "requirements.lock"), *install], capture_output=True, text=True)
    if pip.returncode:
        raise RuntimeError(f"the {kind} environment could not be installed:\n{pip.stderr[-3000:]}")
    # the course's Lab and server defaults, as `make venv` installs them
    (where / "share" / "jupyter" / "lab" / "settings").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "etc" / "jupyterlab-overrides.json", where / "share/jupyter/lab/settings/overrides.json")
    (where / "etc" / "jupyter").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "etc" / "jupyter_server_config.json", where / "etc/jupyter/jupyter_server_config.json")
    subprocess.run(["chmod", "-R", "a+rX", str(where)], check=True)
    (where / ".ready").touch()
    return where


def learner_venv() -> pathlib.Path:
    """What learners need on the hub: their own lock, nbgrader's Assignment List, the
    single-user server."""
    return venv("learner", "-r", str(ROOT / "requirements-learner.lock"), pin("nbgrader"), pin("jupyterhub"))


def user_pids(names) -> list[int]:
    uids = set()
    for name in names:
        try:
            uids.add(pwd.getpwnam(name).pw_uid)
        except KeyError:
            pass
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid in uids:
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def make_accounts(names) -> None:
    remove_accounts(names)  # left by an earlier run that was killed
    for name in names:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", "-K", "HOME_MODE=0700", name], check=True)
        subprocess.run(["chpasswd"], input=f"{name}:{PASSWORD}\n", text=True, check=True)
        home = pathlib.Path(pwd.getpwnam(name).pw_dir)
        settings = home / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "notebook-extension"
        settings.mkdir(parents=True)
        (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')  # render every cell
        subprocess.run(["chown", "-R", f"{name}:{name}", str(home / ".jupyter")], check=True)


def remove_accounts(names) -> None:
    for name in names:
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        for pid in user_pids([name]):  # only the test's own accounts' processes
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        subprocess.run(["userdel", "--remove", name], stderr=subprocess.DEVNULL)


def as_user(hub: Hub, user: str, bin_dir: pathlib.Path, *command: str, cwd: str | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess:
    """``command`` run as ``user`` (a login's clean environment, in the hub's mount
    namespace, as a terminal on the hub would) with ``bin_dir`` first on PATH."""
    home = pwd.getpwnam(user).pw_dir
    env = ["env", "-i", f"HOME={home}", f"USER={user}", f"PATH={bin_dir}:/usr/bin:/bin", "LANG=C.UTF-8"]
    enter = ["nsenter", f"--target={hub.process.pid}", "--mount", f"--wd={cwd or home}", "--"]
    return subprocess.run([*enter, "runuser", "-u", user, "--", *env, *command], capture_output=True, text=True,
                          timeout=timeout)


HUB_CONFIG = (pathlib.Path(__file__).parent / "jupyterhub_config.py.in").read_text()


class Hub:
    """JupyterHub (and its proxy) as root, from the repository's environment."""

    def __init__(self, state: pathlib.Path, teacher: str, users, instructor_bin: pathlib.Path,
                 learner_bin: pathlib.Path, learner_config: pathlib.Path, proxy: str) -> None:
        self.state, self.port = state, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        state.mkdir(mode=0o700, parents=True)
        (state / "jupyterhub_config.py").write_text(HUB_CONFIG.format(
            teacher=teacher, hidden=[str(ROOT)], instructor_bin=str(instructor_bin), learner_bin=str(learner_bin),
            learner_config=str(learner_config), port=self.port, hub_port=free_port(), proxy_api_port=free_port(),
            proxy=proxy, state=str(state), users=sorted(users)))
        self.log = open(state / "jupyterhub.log", "w")
        hub = [str(instructor_bin / "jupyterhub"), "-f", str(state / "jupyterhub_config.py")]
        shown = behind_closed_folders()
        if shown:  # show these folders alone of their closed ancestors, in the hub's own namespace
            q = shlex.quote
            steps = [f"mkdir {q(f'{state}/shown{i}')} && mount --bind {q(folder)} {q(f'{state}/shown{i}')}"
                     for i, (folder, _) in enumerate(shown)]
            tops = sorted({closed for _, closed in shown})
            steps += [f"mount -t tmpfs -o mode=0755,size=1m tmpfs {q(top)}" for top in tops
                      if not any(top.startswith(other + "/") for other in tops)]
            steps += [f"mkdir -p {q(folder)} && mount --move {q(f'{state}/shown{i}')} {q(folder)}"
                      for i, (folder, _) in enumerate(shown)]
            hub = ["unshare", "--mount", "--propagation", "private", "sh", "-c", " && ".join(steps) + ' && exec "$@"',
                   "sh", *hub]
        self.process = subprocess.Popen(hub, cwd=state, stdout=self.log, stderr=subprocess.STDOUT,
                                        env=dict(os.environ, PATH=f"{instructor_bin}:{os.environ['PATH']}"))
        deadline = time.monotonic() + 180  # a hub on a busy machine
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterHub stopped at start:\n{self.logs()[-3000:]}")
            try:
                urllib.request.urlopen(f"{self.url}/hub/api", timeout=2)
                return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"waited 180 s for JupyterHub to answer at {self.url}/hub/api:\n{self.logs()[-3000:]}")

    def logs(self) -> str:
        self.log.flush()
        return (self.state / "jupyterhub.log").read_text(errors="replace")

    def stop(self) -> None:
        """The hub stops every single-user server and the proxy it started (cleanup_servers)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                if text.encode() in pathlib.Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                pass
    return found
