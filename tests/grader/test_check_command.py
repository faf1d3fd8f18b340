"""``python -m grader check`` on a learner's .zip: progress, a table with explanations,
feedback pages, and the learner's own package graded (never the reference)."""

import pathlib
import shutil
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_check_a_zip_with_one_bug(tmp_path):
    work = tmp_path / "work"
    shutil.copytree(ROOT / "solutions" / "minitorch", work / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "notebooks", work / "notebooks")
    ops = work / "minitorch" / "ops_binary.py"
    ops.write_text(ops.read_text().replace("return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)",
                                           "return grad * b, grad * a"))
    archive = tmp_path / "mine.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in work.rglob("*"):
            z.write(path, pathlib.Path("mine") / path.relative_to(work))
    result = subprocess.run([sys.executable, "-m", "grader", "check", str(archive), "--out", str(tmp_path / "out")],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    assert "stage 6 ..." in out  # progress
    assert "Total: 70 / 76" in out  # both of Task 2.3's cells fail: its visible check broadcasts too
    assert "sum the gradient over the broadcast axes" in out
    assert len(list((tmp_path / "out" / "feedback" / "you").glob("*.html"))) == 6
