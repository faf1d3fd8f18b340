"""Fixtures for the platforms' tests: the two platforms' files written by the real verbs,
their environments built once per session by their own scripts (setup.sh; the Dockerfile's
install.sh) from a local folder of the pinned wheels, the hand-ins, and `check` on each."""

import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))  # layout, handins, contracts

import contracts
import handins
import layout

ROOT = handins.ROOT
PLATFORM_PATHS = ("/autograder/", str(layout.IMAGE_HOME) + "/")


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """The autograder zip and a PrairieLearn course, written by `python -m grader ...`."""
    out = tmp_path_factory.mktemp("built")
    for argv in (["gradescope", "--out", str(out / "autograder.zip")],
                 ["prairielearn", "--out", str(out / "course"), "--image", "someone/minitorch-grader:1"]):
        done = subprocess.run([sys.executable, "-m", "grader", *argv], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
    return out / "autograder.zip", out / "course"


@pytest.fixture(scope="session")
def wheels(built, tmp_path_factory):
    """The pinned wheels in a local folder (pip's own download, from this machine's index)."""
    folder = tmp_path_factory.mktemp("wheels")
    lock = built[1] / "minitorch-grader-image" / "requirements.lock"
    done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                           "--only-binary=:all:", "-r", str(lock), "-d", str(folder)], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


@pytest.fixture(scope="session")
def mount_points():
    """The platforms' paths, made as empty mount points where missing (removed after)."""
    made = [path for path in layout.MOUNT_POINTS if not path.exists()]
    for path in made:
        path.mkdir(parents=True)
    yield
    for path in made:
        try:
            path.rmdir()
        except OSError:
            pass


@pytest.fixture(scope="session")
def environments(built, wheels, mount_points, tmp_path_factory):
    """Both platforms' environments, built side by side (each mostly waits on the disk)."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(2) as pool:
        gs = pool.submit(layout.Gradescope, built[0], tmp_path_factory.mktemp("gradescope"), wheels)
        pl = pool.submit(layout.PrairieLearn, built[1], tmp_path_factory.mktemp("prairielearn"), wheels)
        return gs.result(), pl.result()


@pytest.fixture(scope="session")
def gradescope(environments):
    return environments[0]


@pytest.fixture(scope="session")
def prairielearn(environments):
    return environments[1]


@pytest.fixture(scope="session")
def hand_ins(tmp_path_factory):
    return handins.build(tmp_path_factory.mktemp("hand-ins"), PLATFORM_PATHS)


@pytest.fixture(scope="session")
def checked(hand_ins, tmp_path_factory):
    """`check` on a hand-in (once each): its table and its parts."""
    seen = {}

    def run(name):
        if name not in seen:
            seen[name] = contracts.check(hand_ins[name], tmp_path_factory.mktemp("check"))
        return seen[name]
    return run


@pytest.fixture(scope="session")
def secrets():
    return contracts.secret_lines()
