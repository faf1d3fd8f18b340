"""The grader's commands, one module each, each a plain ``main(*, ...) -> int`` with typed
keyword arguments (the exit status). ``grader/__main__.py`` only parses the command line
and calls them. Every way of grading goes through one function: ``check`` and both nbgrader
preprocessors call ``grading.hand_ins.grade_learner`` (read a hand-in, grade its stages);
``autograde``, the queue's workers and the platforms read the hand-in first (each notes
what it found) and call ``grade_stages``.

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
