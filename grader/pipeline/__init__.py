"""A forwarding address, nothing else. The hand-in's way now lives in rooms by job
(``intake/``, ``grading/``, ``gradebook/``, ``queue/``, ``lateness.py``); course folders
made before that split import ``grader.pipeline.course`` from their ``nbgrader_config.py``,
and ``course.py`` here keeps that line working."""
