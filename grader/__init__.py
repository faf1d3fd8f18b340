"""The autograder and release builder of the minitorch course (see ``python -m grader``)."""
