"""Loaded at start-up by every kernel that grades a submission (this folder is first on
its PYTHONPATH). It confines the kernel (``grader/sandbox.py``: bounded memory, writes only
to its own folders), and sends warnings to stdout: nbgrader scores a test cell 0 if
anything reaches stderr, and a NumPy RuntimeWarning from correct code must not cost points.
Kernels started by the fork server (``grader/forkserver.py``) get the same treatment there."""

import sys
import warnings

from grader import sandbox

sandbox.confine()


def _to_stdout(message, category, filename, lineno, file=None, line=None):
    sys.stdout.write(warnings.formatwarning(message, category, filename, lineno, line))


warnings.showwarning = _to_stdout
