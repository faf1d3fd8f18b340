"""Shared test set-up.

* The repository root is importable, so tests can use ``grader``.
* hypothesis runs derandomized, so every run draws the same cases.
* Each task's pytest marker (``task2_3``...) comes from the task manifest,
  ``grader/tasks.toml``: no other file lists the tasks.
* ``make test`` runs the suite in two pytest-xdist workers (``-n 2 --dist loadgroup``).
  A module's tests stay together in one worker, in their order, so a fixture it shares is
  made once, unless the module is in ``SPREAD`` (independent tests, each on any worker);
  a folder or module in ``TOGETHER`` is one group (it shares the machine's accounts, a
  session's fixtures, a marker it looks for machine-wide...). The groups that take longest go first (``FIRST``), so that the last one
  to finish is a short one.
"""

import pathlib
import sys
import tomllib

import pytest
from hypothesis import HealthCheck, settings

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

settings.register_profile("course", derandomize=True, deadline=None, max_examples=40,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("course")


def pytest_configure(config):
    manifest = tomllib.loads((ROOT / "grader" / "tasks.toml").read_text(encoding="utf-8"))
    for task, spec in manifest["task"].items():
        config.addinivalue_line("markers", f"task{task.replace('.', '_')}: {spec['title']}")


TOGETHER = {"tests/hub": "hub", "tests/platforms": "platforms", "tests/browser": "browser",
            # a learner's stray process carries one marker; these end it machine-wide or look for it
            "tests/grader/test_class.py": "strays", "tests/grader/test_queue.py": "strays",
            "tests/grader/test_isolation.py": "strays"}
SPREAD = {"tests/release/test_progress.py", "tests/release/test_notebooks.py", "tests/reference/test_against_torch.py",
          *(f"tests/reference/test_stage{n}" for n in range(1, 10))}
# the longest groups, longest first (CI prints each folder's time and the slowest tests)
FIRST = ["strays", "hub", "tests/grader/test_checks.py", "platforms", "browser",
         "tests/grader/test_instructor_guide.py", "tests/release/test_bundle.py",
         "tests/grader/test_shards.py", "tests/release/test_no_make.py"]


def group_of(nodeid: str) -> str | None:
    """The xdist group of a test: its folder's in ``TOGETHER``, else its module's, or none
    for a module in ``SPREAD``."""
    module = nodeid.split("::")[0]
    folder = "/".join(module.split("/")[:2])
    if module in TOGETHER or folder in TOGETHER:
        return TOGETHER.get(module) or TOGETHER[folder]
    return None if any(module.startswith(s) for s in SPREAD) else module


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups into the tests' ids
def pytest_collection_modifyitems(config, items):
    for item in items:
        group = group_of(item.nodeid)
        if group and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(group))
    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(group_of(item.nodeid) or "", len(FIRST)))  # stable: order kept within

