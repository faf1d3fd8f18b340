"""The course on a JupyterHub, through nbgrader's exchange (``docs/JUPYTERHUB.md``).

    course.py        ``python -m grader hub-course``: the instructor's course folder (the
                     source and release of one assignment holding the whole course, the
                     gradebook, ``nbgrader_config.py``) and the learners' Jupyter settings
    config.py        the nbgrader settings the course's ``nbgrader_config.py`` loads
    preprocessor.py  ``GradeNotebookStage``: autograde grades each notebook's stage with the
                     grader's checks, against the package beside it
    collect.py       ``OwnedCollect``: nbgrader's collect, taking only what each learner's
                     own account submitted, and regular files only

The late rule is the course's own (``gradebook.preprocessor.CourseLatePolicy``).
"""
