"""The grader's commands, one module each, each a plain ``main(*, ...) -> int`` with typed
keyword arguments (the exit status). ``grader/__main__.py`` only parses the command line
and calls them; the nbgrader course and the platforms grade through the same pipeline
functions they call (``pipeline.intake.read_hand_in``, ``pipeline.grading.grade_stages``).

    check.py         grade one hand-in (a learner's own work)
    autograde.py     grade a class, on this machine, in shards or on a queue
    merge.py         collect a class graded in shards
    worker.py        grade hand-ins from a queue
    release.py       rebuild minitorch/ and notebooks/ from solutions/
    bundle.py        the zip to hand to learners
    tasks.py         the task manifest as the docs' table
    hub_course.py    the course on a JupyterHub (``hub-course``)
    gradescope.py    a Gradescope autograder
    prairielearn.py  a PrairieLearn grader
    handin.py        a hand-in zip (``handin --reference``: the reference's, to try a platform with)
    task.py, stage.py  reshape the course: ``task add``, ``stage add``, ``stage drop``
                     (their work: grader/course_edit/)
"""
