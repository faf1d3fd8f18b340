"""Grading a class on Celery workers: ``instructor.py`` sends each hand-in and records what
comes back, ``worker.py`` grades on a grading machine."""
