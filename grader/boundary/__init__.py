"""The boundary between the grader and the learner's code: ``cage.py`` (scratch tmpfs,
control groups, ending every process), ``confinement.py`` (what the learner's process does
to itself: Landlock, seccomp, no capabilities), ``wire.py`` (plain data only),
``runner.py`` (the grader's side: start, call, time out, restart), ``declared.py`` (what a
call may reach, against the manifest), ``lending.py`` and ``given.py`` (the given versions
of earlier tasks, computed here and lent to the call that swaps them in),
``failures.py`` (what can happen to a call); ``users.py`` (the learner's own user, on the
platforms: ending every process of it)."""
