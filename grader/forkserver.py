"""Start grading kernels by forking a process that has already imported what they need.

Starting a fresh IPython kernel costs about 0.7 s of imports (IPython, ipykernel, zmq,
NumPy, matplotlib), and grading starts six per learner. Instead, one *fork server* per
grading process imports all of that once and then forks a child for each kernel; the
child sets up the environment the kernel would have had (its variables, working folder,
``sys.path``, the memory limit and write confinement of ``sandbox.py``) and runs the
ordinary ``ipykernel`` application. Each kernel is still its own process, started fresh
from a server that no learner code ever ran in, so a learner cannot affect another.

nbgrader drives the kernels as usual (``ForkingExecute`` replaces its ``Execute``
preprocessor); only how the process starts differs (``ForkProvisioner``).

The server: ``python -m grader.forkserver`` reads one JSON request per line on stdin,
``{"cmd": [...], "env": {...}, "cwd": "..."}``, and answers ``{"pid": N}`` on stdout.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
from typing import Any

PRELOAD = ["ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.debugger", "IPython.core.interactiveshell", "numpy",
           "numpy.testing", "scipy.special", "matplotlib", "matplotlib.pyplot"]
TRUSTED = ["grader.checks", "grader.numeric", "grader.registry"] + [f"grader.stage{n}" for n in range(1, 7)]


# ---- the server --------------------------------------------------------------------

def _child(request: dict, base_path: list[str]) -> None:
    """In the forked child: become the kernel that ``request`` describes. Never returns."""
    code = 1
    try:
        os.setsid()  # its own process group: interrupts and kills reach its children too
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ["JPY_PARENT_PID"] = str(os.getppid())  # the kernel ends if the server does
        os.chdir(request["cwd"])
        extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:] = extra + [p for p in base_path if p not in extra]
        from grader import sandbox
        sandbox.confine()
        cmd = request["cmd"]
        sys.argv = [cmd[2]] + cmd[3:]
        from ipykernel import kernelapp
        kernelapp.IPKernelApp.launch_instance(argv=cmd[3:])
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:  # noqa: BLE001 - report and end the child, never the server's loop
        import traceback
        traceback.print_exc()
    finally:
        os._exit(code)


def _children() -> set[int]:
    """The processes whose parent is this one (from /proc)."""
    me, found = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me:
                found.add(int(entry))
    return found


def _end_strays(kernels: set[int]) -> None:
    """Kill what kernels left running: the server is the "subreaper" of its kernels, so a
    process that a learner detached from its kernel (a new session, a double fork)
    becomes its child when its parent ends, and would otherwise run on, slowing the
    grading of everyone after."""
    children = _children()
    kernels &= children
    for pid in children - kernels:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def serve() -> None:
    import ctypes
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: see _end_strays
    requests = os.fdopen(os.dup(0), "r")
    answers = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    for name in PRELOAD + TRUSTED:
        __import__(name)
    base_path = [p for p in sys.path if p and p != os.getcwd()]
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped automatically
    answers.write(json.dumps({"ready": True}) + "\n")
    answers.flush()
    kernels: set[int] = set()
    for line in requests:
        request = json.loads(line)
        _end_strays(kernels)
        pid = os.fork()
        if pid == 0:
            requests.close()
            answers.close()
            _child(request, base_path)
        kernels.add(pid)
        answers.write(json.dumps({"pid": pid}) + "\n")
        answers.flush()
    _end_strays(set())  # the grading process has gone: so do its kernels and their leftovers


# ---- the client side, in the grading process ------------------------------------------

class ForkServer:
    """One server per grading process, started on first use."""

    _instance: "ForkServer | None" = None

    def __init__(self, trusted: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MINITORCH_")}
        env.update(PYTHONPATH=trusted, MPLBACKEND="agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   PYTHONDONTWRITEBYTECODE="1", PYDEVD_DISABLE_FILE_VALIDATION="1")
        self.trusted = trusted
        self.process = subprocess.Popen([sys.executable, "-m", "grader.forkserver"], cwd=trusted, env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=None if os.environ.get("MINITORCH_DEBUG") else subprocess.DEVNULL,
                                        text=True, start_new_session=True)
        self.lock = threading.Lock()
        if json.loads(self.process.stdout.readline() or "{}").get("ready") is not True:
            raise RuntimeError("the grading fork server did not start")

    @classmethod
    def get(cls, trusted: str) -> "ForkServer":
        if cls._instance is None or cls._instance.trusted != trusted or cls._instance.process.poll() is not None:
            cls._instance = ForkServer(trusted)
        return cls._instance

    def fork(self, cmd: list[str], env: dict[str, str], cwd: str) -> int:
        with self.lock:
            self.process.stdin.write(json.dumps({"cmd": cmd, "env": env, "cwd": cwd}) + "\n")
            self.process.stdin.flush()
            answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError("the grading fork server stopped")
        return int(json.loads(answer)["pid"])


class ForkedProcess:
    """What jupyter_client needs of a ``Popen`` for a process that is not our child: it
    watches the process through a pidfd (the server reaps it)."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int) -> None:
        self.pid, self.returncode = pid, None
        try:
            self._fd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:  # already gone
            self._fd, self.returncode = None, 1

    def poll(self) -> int | None:
        if self.returncode is None and self._fd is not None and select.select([self._fd], [], [], 0)[0]:
            self.returncode = 1  # the exit status went to the server; only "it ended" matters
            os.close(self._fd)
            self._fd = None
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None and self._fd is not None:
            if not select.select([self._fd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
        return self.poll() or 0

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


def _provisioner_class():
    from jupyter_client.provisioning import LocalProvisioner

    class ForkProvisioner(LocalProvisioner):
        """Launches ``python -m ipykernel_launcher`` kernels through the fork server."""

        async def launch_kernel(self, cmd: list[str], **kwargs: Any):
            if cmd[1:3] != ["-m", "ipykernel_launcher"]:
                return await super().launch_kernel(cmd, **kwargs)
            env = dict(kwargs.get("env") or os.environ)
            server = ForkServer.get(env.get("MINITORCH_TRUSTED", ""))
            pid = server.fork(cmd, env, str(kwargs.get("cwd") or os.getcwd()))
            self.process = ForkedProcess(pid)
            self.pid = self.pgid = pid
            self.cwd = kwargs.get("cwd")
            await self._until_listening()
            return self.connection_info

        async def _until_listening(self, seconds: float = 30.0) -> None:
            """Wait until the kernel accepts connections: a client that connects before
            then is refused and ZeroMQ retries only 0.1 s later, which would cost more
            than the whole start-up."""
            import asyncio
            import socket
            import time
            info = self.connection_info
            if info.get("transport", "tcp") != "tcp":
                return
            ports = [info["shell_port"], info["iopub_port"]]
            deadline = time.monotonic() + seconds
            while ports and time.monotonic() < deadline and self.process.poll() is None:
                try:
                    socket.create_connection((info["ip"], ports[0]), timeout=1).close()
                    ports.pop(0)
                except OSError:
                    await asyncio.sleep(0.005)

    return ForkProvisioner


def _client_class():
    import time
    from queue import Empty

    from jupyter_client.asynchronous import AsyncKernelClient

    class QuickReadyClient(AsyncKernelClient):
        """``wait_for_ready`` without jupyter_client's last step, which waits for 0.2 s of
        silence on IOPub (longer than the forked kernel takes to start): it waits for
        the reply to kernel_info and for IOPub to carry that request's "idle"."""

        async def _async_wait_for_ready(self, timeout: float | None = None) -> None:
            deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
            while True:
                msg_id = self.kernel_info()
                try:
                    reply = await self.shell_channel.get_msg(timeout=1)
                except Empty:
                    reply = None
                if reply is not None and reply["msg_type"] == "kernel_info_reply":
                    try:  # anything on IOPub shows that it is connected
                        message = await self.iopub_channel.get_msg(timeout=0.2)
                    except Empty:
                        message = None
                    if message is not None:
                        self._handle_kernel_info_reply(reply)
                        break
                if not await self._async_is_alive():
                    raise RuntimeError("Kernel died before replying to kernel_info")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Kernel didn't respond in {timeout} seconds")
            end = time.monotonic() + 0.5
            while not (message["msg_type"] == "status" and message["content"].get("execution_state") == "idle"
                       and message["parent_header"].get("msg_id") == msg_id):
                try:
                    message = await self.iopub_channel.get_msg(timeout=max(end - time.monotonic(), 0))
                except Empty:
                    break

        wait_for_ready = _async_wait_for_ready

    return QuickReadyClient


def _kernel_manager_class():
    from jupyter_client import AsyncKernelManager

    class ForkingKernelManager(AsyncKernelManager):
        client_factory = _client_class()

        async def _async_pre_start_kernel(self, **kw: Any):
            if self.provisioner is None and os.environ.get("MINITORCH_TRUSTED"):
                import uuid
                self.kernel_id = self.kernel_id or kw.pop("kernel_id", str(uuid.uuid4()))
                self.provisioner = _provisioner_class()(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec,
                                                        parent=self)
            return await super()._async_pre_start_kernel(**kw)

        async def _async_wait(self, pollinterval: float = 0.1) -> None:
            await super()._async_wait(pollinterval=0.005)  # polling a pidfd costs nothing

    return ForkingKernelManager


def kernel_manager_class():
    """The kernel manager for nbclient: kernels through the fork server."""
    return _kernel_manager_class()


if __name__ == "__main__":
    serve()
