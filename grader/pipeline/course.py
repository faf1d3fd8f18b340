"""Where a course folder made before the split finds its nbgrader set-up: its
``nbgrader_config.py`` says ``from grader.pipeline.course import config``. New course
folders import ``grader.gradebook.course`` (its ``config``)."""

from grader.gradebook.course import config

__all__ = ["config"]
