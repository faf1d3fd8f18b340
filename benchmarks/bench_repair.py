"""The repair search's time per failing check, in the notebook and in the autograder.

    .venv/bin/python benchmarks/bench_repair.py [--repeats 3]

Each planted mistake is a one-line change of the reference (``solutions/minitorch``) in a
copy. For the notebook, a fresh process runs the task's visible check with the search
and without it (``repair.SECONDS = 0``), interleaved, ``--repeats`` times each; the
difference of the medians is the search's time, held to 1 s. For the autograder, the
task's stage is graded (``run_stage``) with the search and without it (``BUDGET = 0``),
interleaved; the search's own time (each search ``checks/repair.py`` runs, the call into the
learner's process included) is held to 5 s per hand-in. Each row also says what the
search found: the line it names, or nothing.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
PLANTED = [  # (what, file, the reference's text, the mistake, task)
    ("a sign flipped (Sigmoid)", "ops_unary.py", "return grad * out * (1 - out)", "return grad * out * (1 + out)", "3.1"),
    ("precedence (Div's b squared)", "ops_binary.py", "-grad * a / (b * b)", "-grad * a / b * b", "2.3"),
    ("keepdims dropped (LogSoftmax)", "ops_softmax.py", "np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)",
     "np.exp(out) * np.sum(grad, axis=ctx.axis)", "5.3"),
    ("operands swapped (Sub)", "ops_binary.py", "unbroadcast(-grad, b_shape)", "unbroadcast(-grad, a_shape)", "2.3"),
    ("operands swapped in a helper (_to_extremes)", "ops_reduce.py", "return hit * (grad / ties)",
     "return hit * (ties / grad)", "3.3"),
    ("axis=-1 for ctx.axis (Softmax)", "ops_softmax.py", "np.sum(grad * out, axis=ctx.axis, keepdims=True)",
     "np.sum(grad * out, axis=-1, keepdims=True)", "5.3"),
    ("outside the model (x >= out: Min's ties)", "ops_reduce.py", "hit = x == out", "hit = x >= out", "3.3"),
    ("Adam's v corrected with beta1", "optim.py", "denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + self.eps",
     "denom = np.sqrt(v) / math.sqrt(1 - beta1 ** t) + self.eps", "6.3"),
    # a fresh learner's own (issue 45): the kinds added for them
    ("a minus lost in a tuple (Scalar div)", "scalar.py", "return g / b.data, -g * a.data / (b.data * b.data)",
     "return g / b.data, g * a.data / (b.data * b.data)", "1.2"),
    ("a variable for an attribute (Scalar sin)", "scalar.py", "return (g * math.cos(a.data),)",
     "return (g * math.cos(g),)", "1.2"),
    ("grad forgotten (Log)", "ops_unary.py", "return grad / x", "return 1 / x", "3.1"),
    ("exp applied again (Exp)", "ops_unary.py", "return grad * out\n", "return grad * np.exp(out)\n", "3.1"),
    ("exp missing (LogSoftmax)", "ops_softmax.py", "grad - np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)",
     "grad - out * np.sum(grad, axis=ctx.axis, keepdims=True)", "5.3"),
    ("axis 0 for ctx.axis (Softmax)", "ops_softmax.py", "np.sum(grad * out, axis=ctx.axis, keepdims=True)",
     "np.sum(grad * out, axis=0, keepdims=True)", "5.3"),
    ("Adam's corrected m stored (a divisor too many)", "optim.py",
     'm = state["m"] = beta1 * state.get("m", 0) + (1 - beta1) * g',
     'm = state["m"] = (beta1 * state.get("m", 0) + (1 - beta1) * g) / (1 - beta1 ** t)', "6.3"),
    # fb6 (a real learner's): one thing put for its usual twin, the kinds of edit_swaps.py
    ("b * 2 for b ** 2 (Scalar div)", "scalar.py", "-g * a.data / (b.data * b.data)", "-g * a.data / (b.data * 2)",
     "1.2"),
    ("abs for sign (Abs)", "ops_unary.py", "return grad * np.sign(x)", "return grad * np.abs(x)", "3.1"),
    ("a.shape for b.shape (Mul)", "ops_binary.py", "unbroadcast(grad * a, b.shape)", "unbroadcast(grad * a, a.shape)",
     "2.3"),
    # fb7's kinds: a helper of the module's for a value, a 1/2 missing on one term of a sum
    ("the cdf for the density (exact Gelu)", "ops_activation.py", "return grad * (cdf + x * normal_pdf(x))",
     "return grad * (cdf + x * cdf)", "5.2"),
    ("a 1/2 missing on one term (tanh Gelu)", "ops_activation.py", "            return grad * (cdf + 2 * x * cdf * (1 - cdf) * du)",
     "            t = 2 * cdf - 1\n            return grad * (cdf + x * (1 - t * t) * du)", "5.2"),
]

NOTEBOOK = r"""
import json, statistics, sys, time, pathlib
from minitorch.course import progress, repair
task, repeats = sys.argv[1], int(sys.argv[2])
path = next(pathlib.Path(sys.argv[3]).glob(f"0{task[0]}_*.ipynb"))
setup, checks, _, _ = progress._cells(path)
base = {"__name__": "__bench__"}
exec(compile("\n".join(l for l in setup.splitlines() if not l.lstrip().startswith(("%", "!"))), "setup", "exec"), base)
source = dict(checks)[task]
times, message = {True: [], False: []}, ""
for _ in range(repeats):
    for search in (True, False):
        repair.SECONDS = 1.0 if search else 0.0
        began = time.perf_counter()
        try:
            exec(compile(source, f"check {task}", "exec"), dict(base))
        except Exception as error:
            message = message or (str(error) if search else "")
        times[search].append(time.perf_counter() - began)
found = [l.strip() for l in message.splitlines() if "A small edit" in l]
print(json.dumps({"with": statistics.median(times[True]), "without": statistics.median(times[False]),
                  "found": found[0] if found else ""}))
"""


def planted(root: pathlib.Path, file: str, old: str, new: str) -> pathlib.Path:
    package = root / "minitorch"
    shutil.copytree(ROOT / "solutions" / "minitorch", package, ignore=shutil.ignore_patterns("__pycache__"))
    text = (package / file).read_text()
    assert text.count(old) == 1, f"the mistake does not apply to {file}: {old!r}"
    (package / file).write_text(text.replace(old, new))
    return package


def notebook(package: pathlib.Path, task: str, repeats: int) -> dict:
    done = subprocess.run([sys.executable, "-c", NOTEBOOK, task, str(repeats), str(ROOT / "notebooks")],
                          capture_output=True, text=True, cwd=package.parent, check=True,
                          env={"PYTHONPATH": str(package.parent), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"})
    return json.loads(done.stdout.strip().splitlines()[-1])


def autograder(package: pathlib.Path, task: str, repeats: int) -> dict:
    from grader.checks import repair
    from grader.grading.stages import run_stage
    from grader.settings import Settings
    from grader.tasks import stage_of
    searches: list[float] = []
    found: list[str] = []
    original = repair._budgeted

    def timed(failure, w, search):  # every search, of a rule or of a value, as it runs
        def measured(seconds):
            began = time.perf_counter()
            note = search(seconds)
            searches.append(time.perf_counter() - began)
            found.append(note)
            return note
        return original(failure, w, measured)
    repair._budgeted = timed
    times: dict[bool, list[float]] = {True: [], False: []}
    try:
        for _ in range(repeats):
            for search in (True, False):
                repair.BUDGET = 5.0 if search else 0.0
                began = time.perf_counter()
                run_stage(package, stage_of(task), Settings())
                times[search].append(time.perf_counter() - began)
    finally:
        repair._budgeted, repair.BUDGET = original, 5.0
    per_hand_in = sum(searches) / repeats
    return {"with": statistics.median(times[True]), "without": statistics.median(times[False]),
            "search": statistics.median(searches) if searches else 0.0, "per_hand_in": per_hand_in,
            "count": len(searches) // repeats, "found": next((f for f in found if f), "")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    sys.path.insert(0, str(ROOT))
    print(f"{'planted mistake':44} {'notebook: search':>17} {'check':>7} {'autograder: search':>19} {'hand-in':>8}")
    worst_notebook = worst_hand_in = 0.0
    for what, file, old, new, task in PLANTED:
        with tempfile.TemporaryDirectory() as tmp:
            package = planted(pathlib.Path(tmp), file, old, new)
            seen = notebook(package, task, repeats)
            graded = autograder(package, task, repeats)
        search = max(seen["with"] - seen["without"], 0.0)
        worst_notebook, worst_hand_in = max(worst_notebook, search), max(worst_hand_in, graded["per_hand_in"])
        print(f"{what:44} {search:>15.3f} s {seen['with']:>5.2f} s {graded['search']:>17.3f} s "
              f"{graded['per_hand_in']:>6.2f} s   (Task {task}, {graded['count']} search(es) in the stage)")
        print(f"    notebook:   {seen['found'] or 'no line named'}")
        print(f"    autograder: {graded['found'] or 'no line named'}")
    print(f"worst notebook search {worst_notebook:.3f} s: {worst_notebook / 1.0:.2f}x the goal of 1 s per failing check; "
          f"worst hand-in {worst_hand_in:.2f} s of searches: {worst_hand_in / 5.0:.2f}x the goal of 5 s")


if __name__ == "__main__":
    main()
