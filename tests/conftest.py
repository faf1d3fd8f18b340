"""Shared test set-up.

* The repository root is importable, so tests can use ``grader``.
* hypothesis runs derandomized, so every run draws the same cases.
"""

import pathlib
import sys

from hypothesis import HealthCheck, settings

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

settings.register_profile("course", derandomize=True, deadline=None, max_examples=40,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("course")
