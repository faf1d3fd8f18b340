"""What every side-by-side benchmark does first: one thread for BLAS and PyTorch alike (set
before NumPy is imported), the reference package from solutions/, and PyTorch if installed.

    from setup_one_thread import mt, torch   # torch is None without PyTorch
"""

import os
import pathlib
import sys

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "solutions"))
import minitorch as mt  # noqa: E402,F401

try:
    import torch
    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
except ImportError:
    torch = None
