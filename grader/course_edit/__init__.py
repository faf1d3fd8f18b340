"""Tools that reshape the course: add a task, add a stage, drop a stage (docs/INSTRUCTOR.md).

Each edits the sources an instructor would otherwise edit by hand (the manifest
``grader/tasks.toml``, ``solutions/``, ``grader/checks/``, ``tests/reference/``) and returns
the files it changed, so the command can print them. None of them touches what the release
writes (``minitorch/``, ``notebooks/``, the docs' task table): ``make release`` does.
"""
