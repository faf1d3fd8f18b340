"""A class graded on this machine: ``jobs.py`` one learner (read, grade, late policy,
gradebook, feedback), ``pool.py`` the class in a pool of processes."""
