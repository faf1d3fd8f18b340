"""A hand-in's way through grading: ``intake`` reads it, ``stages`` runs the checks,
``grading`` is the one path per learner, ``course`` and ``preprocessor`` the nbgrader
course, ``lateness`` the late policy, ``queueing`` the Celery queue."""
