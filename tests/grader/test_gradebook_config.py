"""A course folder's ``nbgrader_config.py`` loads the grader that made it, and one written
before the grader's rooms were split (it imports ``grader.pipeline.course``) loads the
same set-up: nbgrader's own commands in an old course keep grading through the checks."""

import json
import pathlib
import subprocess
import sys

import pytest

from grader.gradebook.course import Course
from grader.settings import Settings

# Loads a config file the way nbgrader does (traitlets' loader, ``get_config`` given) and
# prints what decides grading: the autograde steps, the late rule and the limits.
LOAD = """
import json, sys
from traitlets.config.loader import PyFileConfigLoader
c = PyFileConfigLoader(sys.argv[1]).load_config()
print(json.dumps({
    "steps": [f"{p.__module__}.{p.__name__}" for p in c.Autograde.autograde_preprocessors],
    "late": f"{c.AssignLatePenalties.plugin_class.__module__}.{c.AssignLatePenalties.plugin_class.__name__}",
    "percent": c.CourseLatePolicy.percent_per_day,
    "limits": {k: v for k, v in c.GradeFromChecks.items()},
}))
"""


def load(config: pathlib.Path) -> dict:
    done = subprocess.run([sys.executable, "-c", LOAD, str(config)], capture_output=True, text=True,
                          cwd=config.parent, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow  # two nbgrader courses made and graded
def test_a_course_config_written_before_the_split_loads_the_same_grading(tmp_path):
    course = Course(tmp_path / "course", Settings(call_seconds=7.0)).create()
    config = course.root / "nbgrader_config.py"
    text = config.read_text()
    assert "from grader.gradebook.course import config" in text
    now = load(config)
    assert "grader.gradebook.preprocessor.GradeFromChecks" in now["steps"]
    assert not any(step.endswith(".Execute") for step in now["steps"])
    assert now["limits"]["call_seconds"] == 7.0

    config.write_text(text.replace("from grader.gradebook.course import config",
                                   "from grader.pipeline.course import config"))
    assert load(config) == now
