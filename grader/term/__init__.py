"""The term's record in a class's output folder: ``sheets.py`` the files the instructor
keeps there (``submitted.csv``, ``corrections.csv``, ``extensions.csv``), read strictly;
``times.py`` when each hand-in was handed in, from an explicit source; ``kept.py`` every
hand-in seen, by content; ``graded.py`` each hand-in's verdicts by what graded them, so a
re-run grades only what changed; ``log.py`` the append-only record of every change to a
score."""
