"""Loaded at start-up by every kernel that grades a submission (this folder is first on
its PYTHONPATH). It bounds the kernel's memory, and sends warnings to stdout: nbgrader
scores a test cell 0 if anything reaches stderr, and a NumPy RuntimeWarning from correct
code must not cost points."""

import os
import sys
import warnings

_limit = os.environ.get("MINITORCH_MEMORY_LIMIT_MB")
if _limit:
    import resource

    _bytes = int(_limit) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (_bytes, _bytes))


def _to_stdout(message, category, filename, lineno, file=None, line=None):
    sys.stdout.write(warnings.formatwarning(message, category, filename, lineno, line))


warnings.showwarning = _to_stdout
