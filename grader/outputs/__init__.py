"""What people read: ``feedback`` (a learner's page), ``tables`` (terminal table, CSV,
plots), ``classreport`` (the mistakes of a class), ``publish`` (everything a class's
grading writes) and ``lms/`` (the LMS exports, one module per LMS)."""
