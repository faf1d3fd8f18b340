"""What every side-by-side benchmark does first: one thread for BLAS and PyTorch alike (set
before NumPy is imported), the reference package from solutions/, and PyTorch if installed.

    from setup_one_thread import mt, torch   # torch is None without PyTorch

Times are CPU seconds of this process (``cpu_time``), not wall time: on a shared machine
another program's work then does not count, and with one thread the two agree when the
machine is idle. ``baseline(folder)`` loads a second minitorch, for instance an older
commit's ``solutions/`` (``git worktree add /tmp/old COMMIT``), to time before and after
side by side in one run.
"""

import importlib.util
import os
import pathlib
import sys
import time

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "solutions"))
import minitorch as mt  # noqa: E402,F401

try:
    import torch
    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
except ImportError:
    torch = None

cpu_time = time.process_time


def baseline(folder: str | None):
    """The minitorch package in ``folder/minitorch`` under the name ``minitorch_baseline``,
    or None without a folder."""
    if not folder:
        return None
    package = pathlib.Path(folder).resolve() / "minitorch"
    spec = importlib.util.spec_from_file_location("minitorch_baseline", package / "__init__.py",
                                                  submodule_search_locations=[str(package)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["minitorch_baseline"] = module
    spec.loader.exec_module(module)
    return module


def readme_row(benchmark: str, goal: str, float32: str, float64: str) -> str:
    """One row of the table of benchmarks in benchmarks/README.md."""
    return f"| {benchmark} | {goal} | {float32} | {float64} |"
