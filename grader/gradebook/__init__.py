"""The nbgrader course that records a class's grades: ``course.py`` the course folder and
its gradebook, ``batch.py`` a class recorded in one gradebook session, ``cells.py`` the
verdicts written into a notebook's graded cells, ``preprocessor.py`` what nbgrader's
autograde runs instead of executing a notebook, and the course's late rule, ``term.py`` what a term settles in a gradebook
(extensions, corrections, formgrader's grades), ``hubbook.py`` the JupyterHub course's
gradebook as a term's."""
