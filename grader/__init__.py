"""The minitorch course's autograder and release builder (``python -m grader``).

How a hand-in flows (docs/GRADER.md has more):

    intake.py        read a folder or .zip without trusting it; copy the package's .py files
    checks/          the trusted checks: one module per stage, one @part per part of a task
      -> runner.py   starts the learner's process in a cage (isolation.py) and calls it:
         worker.py + probes*.py run inside it, confined (confinement.py); wire.py
         carries plain data only
    results.py       verdicts -> points (the only place scores are computed)
    course.py        the nbgrader course; preprocessor.py grades inside nbgrader's autograde
    grading.py       one path per learner (check, autograde, nbgrader's own autograde)
    queueing.py      grading on Celery workers through a Redis broker (autograde --broker)
    feedback.py, report.py, classreport.py, publish.py, lms.py    what people read
    platforms/       Gradescope's autograder and PrairieLearn's external grader (check's path)
    settings.py      the limits; tasks.py the tasks and their parts; surface.py the package
                     names the checks use

The release builder (release.py, regions.py, bundle.py) imports nothing of the grader.
"""
