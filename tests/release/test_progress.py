"""The learner's progress table (`make progress`): every visible check of every notebook,
run against a package, in under 30 s; done, not started, or failing with the reason."""

import os
import pathlib
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def progress(package_parent: pathlib.Path) -> tuple[str, float]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "minitorch.progress"], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(package_parent)), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, time.perf_counter() - start


def rows(text: str) -> dict[str, str]:
    return {line.split()[0]: line for line in text.splitlines() if line[:1].isdigit()}


def test_reference_is_done_everywhere_and_fast():
    text, seconds = progress(ROOT / "solutions")
    assert len(rows(text)) == 25 and all(" done " in row for row in rows(text).values()), text
    assert seconds < 30


def test_the_release_shows_where_work_is_needed():
    table = rows(progress(ROOT)[0])
    assert "not started  Task 2.3" in table["2.3"] and "needs Task 1.4 first" in table["7.1"]
    assert len(table) == 25 and not [t for t, row in table.items() if " done " in row], table
    for task, row in table.items():  # a stub of the task itself, or one it builds on
        assert f"not started  Task {task}: " in row or "failing      needs Task " in row, row
        assert row.count("(") == row.count(")") and "…" not in row, f"a reason cut short: {row}"


def test_a_planted_bug_shows_as_failing_with_its_reason(tmp_path):
    shutil.copytree(ROOT / "solutions" / "minitorch", tmp_path / "minitorch")
    ops = tmp_path / "minitorch" / "ops_unary.py"
    ops.write_text(ops.read_text().replace("return grad / x", "return grad * x"))
    table = rows(progress(tmp_path)[0])
    assert "failing" in table["3.1"] and all(" done " in table[t] for t in ("2.3", "3.2"))
