"""The term's record in a class's output folder: ``sheets.py`` the files the instructor
keeps there (``submitted.csv``, ``corrections.csv``, ``extensions.csv``), read strictly;
``times.py`` when each hand-in was handed in, from an explicit source; ``kept.py`` every
hand-in seen, by content; ``graded.py`` each hand-in's verdicts by what graded them, so a
re-run grades only what changed; ``log.py`` the append-only record of every change to a
score; ``lock.py`` one run at a time in the folder; ``faults.py`` the points where the
tests kill a run (nothing without its environment variable)."""
