"""Batch mode for clusters without a broker: shards graded separately (`--shard I/N`) and
merged (`python -m grader merge`) give the same grades.csv as one run, and the copying check
runs once, at merge, on the whole class; no feedback page names another learner."""

import pathlib
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, write_package

pytestmark = pytest.mark.slow  # run by `make test`, not `make test-fast`


def autograde(hand_ins: pathlib.Path, out: pathlib.Path, *extra: str) -> str:
    done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(hand_ins), "--out", str(out), "--jobs", "2",
                           *extra], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_shards_merged_give_the_grades_of_one_run(tmp_path):
    hand_ins = tmp_path / "hand-ins"
    write_package(hand_ins / "ana" / "minitorch")
    shutil.copytree(ROOT / "minitorch", hand_ins / "bo" / "minitorch")
    write_package(hand_ins / "cy" / "minitorch", [("ops_unary.py", "return grad / x", "return grad * x")])
    one = autograde(hand_ins, tmp_path / "one")
    assert "learners/min" in one and "left" in one  # the progress bar
    parts = []
    for shard in ("1/2", "2/2"):
        out = tmp_path / f"shard{shard[0]}"
        autograde(hand_ins, out, "--shard", shard)
        parts += list(out.glob("part-*.json"))
    assert len(parts) == 2
    done = subprocess.run([sys.executable, "-m", "grader", "merge", str(tmp_path / "merged"), *map(str, parts)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "merged" / "grades.csv").read_text() == (tmp_path / "one" / "grades.csv").read_text()
    from grader.term import log  # the merge logs every score with the shards' reasons, as one run logs them
    merged = log.read_grades(tmp_path / "merged" / "grades.csv")
    assert log.rebuild(tmp_path / "merged") == merged == log.rebuild(tmp_path / "one")
    lines = log.read(tmp_path / "merged")
    assert {line["why"] for line in lines} == {"a first hand-in"} and all("merged shards" in line["run"] for line in lines)
    assert sorted(p.name for p in (tmp_path / "merged" / "feedback").iterdir()) == ["ana.html", "bo.html", "cy.html"]
    for out in ("one", "merged"):   # the copying check ran once for the whole class, at merge for the shards
        rows = (tmp_path / out / "similarity.csv").read_text().splitlines()
        assert rows[0] == "learner_a,learner_b,task,score,lines" and any(r.startswith("ana,solutions/minitorch,") for r in rows)
    assert not list((tmp_path / "shard1").glob("similarity.*")) and "matches the reference: ana" in one
    for page in (tmp_path / "merged" / "feedback").iterdir():   # no learner reads another's id, nor the check
        text = page.read_text()
        others = {"ana", "bo", "cy"} - {page.stem}
        assert not [o for o in others if re.search(rf"\b{o}\b", text)] and "similarity" not in text.lower(), page.name
    again = subprocess.run([sys.executable, "-m", "grader", "merge", str(tmp_path / "twice"), *map(str, parts + parts)],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 2 and "more than one part" in again.stderr
