"""The names of the files in a class's output folder (``autograde --out``), in one place:
what the grader writes there, and what the instructor keeps there for the term."""

from __future__ import annotations

# Written by every run (never edited by hand: the next run writes them again).
GRADES = "grades.csv"
SCORES = "scores.png"
MISTAKES_CSV = "mistakes.csv"
MISTAKES_PNG = "mistakes.png"
REPORT = "report.html"
# and the LMS exports: grader/outputs/lms/registry.py's FILES
FEEDBACK = "feedback"            # a folder: <safe id>.html per learner
SIMILARITY = ("similarity-pairs.csv", "similarity.csv", "similarity.html")   # the copying check's
SIMILARITY_INPUTS = "similarity-inputs.txt"   # what the copying check last read: kept while it is unchanged
SIMILARITY_READS = "similarity-reads"         # a folder: each hand-in's reading, by content (a cache)
COURSE = "course"                # a folder: the nbgrader course
FROM_LMS = "from-lms"            # a folder: an LMS's download (--from), one hand-in per learner
# A roster row's mark: a learner in the class only once they hand in (Canvas's Test Student):
# without a hand-in, no "missing" row and no line in the exports.
ONLY_IF_HANDED_IN = "only_if_handed_in"

# Kept by the instructor, read by every run, never written by the grader.
SUBMITTED = "submitted.csv"      # learner, submitted_at
CORRECTIONS = "corrections.csv"  # learner, task, points, reason
EXTENSIONS = "extensions.csv"    # learner, deadline or days, reason

# The term's record, kept by the grader and only ever added to.
KEPT = "hand-ins"                # a folder: every hand-in seen, by learner and content
GRADED = "graded"                # a folder: each hand-in's verdicts, by what they were graded with
LOG = "log.jsonl"                # every change to a score: when, which run, what, why
TERM = "term.json"               # the course's term settings and what the gradebook last holds
LOCK = "term.lock"               # held by the run writing the folder: its pid, host and start time
