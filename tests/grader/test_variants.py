"""The planted bugs and the alternative solutions the grader's tests use (variants*.py)
still apply to the reference: each patch finds its text exactly once, and each buggy
variant names the task it must cost (a task of the manifest, or of a stage since dropped,
whose variants the grading tests then leave out)."""

import pathlib
import re

import pytest
import variants
import variants_edges
import variants_known
import variants_repair
import variants_stage7

REFERENCE = pathlib.Path(__file__).resolve().parents[2] / "solutions" / "minitorch"

BUGGY = variants.BUGGY + variants_stage7.BUGGY + variants_edges.BUGGY + variants_known.BUGGY + variants_repair.BUGGY
ALTERNATIVES = variants.ALTERNATIVES + variants_stage7.ALTERNATIVES + variants_edges.ALTERNATIVES
PATCHES = [(b[0], b[1]) for b in BUGGY] + [(a[0], p) for a in ALTERNATIVES for p in a[1]]


@pytest.mark.parametrize("name, patch", PATCHES, ids=[p[0] for p in PATCHES])
def test_every_patch_applies_once_to_the_reference(name, patch):
    file, old, _ = patch
    assert (REFERENCE / file).read_text().count(old) == 1, f"{name}: the patch does not apply to {file}"


def test_names_are_unique_and_tasks_well_formed():
    names = [b[0] for b in BUGGY] + [a[0] for a in ALTERNATIVES]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"\d+\.\d+", b[2]) for b in BUGGY)
