"""The boundary between the grader and the learner's code: ``cage.py`` (scratch tmpfs,
control groups, ending every process), ``confinement.py`` (what the learner's process does
to itself: Landlock, seccomp, no capabilities), ``wire.py`` (plain data only) and
``runner.py`` (the grader's side: start, call, time out, restart); ``users.py`` (the
learner's own user, on the platforms: ending every process of it)."""
