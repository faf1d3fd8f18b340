"""The release builder: ``build`` makes the learner's ``minitorch/`` and ``notebooks/``
from ``solutions/`` (``regions`` turns solution regions into stubs) and ``bundle`` the zip
handed to learners. It imports nothing of the grader outside this folder."""
