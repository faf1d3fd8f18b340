"""The grader on the platforms classes grade on (docs/PLATFORMS.md).

    gradescope.py     the autograder zip (setup.sh, run_autograder) and its results.json
    prairielearn.py   the grading image, serverFilesCourse/ and one question per stage
    container.py      grading one hand-in inside either container, behind the boundary
    shipping.py       what both carry: the grader, the course's data, the grading pins

Both grade with ``read_hand_in`` and ``grade_stages``, the path of ``python -m grader
check``, so parts, points and reasons are check's.
"""
