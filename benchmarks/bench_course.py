"""What a learner waits for in the course itself: `make progress` on a finished package,
and the source notebooks run top to bottom against the reference (notebook 07 training
300 steps, as the tests run it). Each is printed with its goal and the ratio to it.

    .venv/bin/python benchmarks/bench_course.py

Goals (they were timed assertions in the tests until the suite ran in two workers, where a
loaded machine made them flaky): `make progress` on the reference in at most 30 s, and the
seven source notebooks in at most 120 s together.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.release import build as release  # noqa: E402

PROGRESS_GOAL, NOTEBOOKS_GOAL = 30.0, 120.0


def progress_seconds() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "minitorch.course.progress"], cwd=ROOT, capture_output=True, check=True,
                   env=dict(os.environ, PYTHONPATH=str(ROOT / "solutions")), timeout=600)
    return time.perf_counter() - start


def notebook_seconds() -> dict[str, float]:
    from nbclient import NotebookClient
    os.environ.update(PYTHONPATH=os.pathsep.join([str(ROOT / "solutions"), str(ROOT)]), MINITORCH_GPT_STEPS="300",
                      MPLBACKEND="module://matplotlib_inline.backend_inline", OPENBLAS_NUM_THREADS="1")
    seconds = {}
    for path in release.source_notebooks():
        notebook = release.read_source_notebook(path)
        with tempfile.TemporaryDirectory() as cwd:
            start = time.perf_counter()
            NotebookClient(notebook, timeout=600, kernel_name="python3",
                           resources={"metadata": {"path": cwd}}).execute()
            seconds[path.stem] = time.perf_counter() - start
    return seconds


def main() -> None:
    took = progress_seconds()
    print(f"make progress on the reference: {took:.1f} s, {took / PROGRESS_GOAL:.2f}x its goal of {PROGRESS_GOAL:g} s")
    seconds = notebook_seconds()
    for name, value in seconds.items():
        print(f"  {name:<22} {value:6.1f} s")
    total = sum(seconds.values())
    print(f"the source notebooks together: {total:.1f} s, {total / NOTEBOOKS_GOAL:.2f}x their goal of {NOTEBOOKS_GOAL:g} s")


if __name__ == "__main__":
    main()
