"""The hidden checks' grading power, in-process: the reference passes every task, each
buggy variant loses its task (and only its task) with the right explanation, and correct
solutions written differently keep full marks."""

import importlib.util
import pathlib
import shutil
import sys

import pytest

from grader.checks import CheckFailure
from grader.registry import check
from grader.tasks import TASKS
from variants import ALTERNATIVES, BUGGY

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "solutions" / "minitorch"
_count = 0


def load_package(folder: pathlib.Path):
    """Import a copy of the package under a fresh name (its imports are all relative)."""
    global _count
    _count += 1
    name = f"minitorch_variant_{_count}"
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def patched_package(tmp_path, patches):
    folder = tmp_path / "minitorch"
    shutil.copytree(REFERENCE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for file, old, new in patches:
        text = (folder / file).read_text()
        assert text.count(old) == 1, f"the patch does not apply to {file}: {old!r}"
        (folder / file).write_text(text.replace(old, new))
    return load_package(folder)


def outcomes(mt):
    failed = {}
    for task in TASKS:
        try:
            check(task, mt)
        except CheckFailure as failure:
            failed[task] = str(failure)
    return failed


def test_reference_passes_every_task(tmp_path):
    assert outcomes(patched_package(tmp_path, [])) == {}


@pytest.mark.parametrize("name, patch, task, phrase", BUGGY, ids=[b[0] for b in BUGGY])
def test_buggy_variant_loses_its_task_with_the_right_explanation(tmp_path, name, patch, task, phrase):
    failed = outcomes(patched_package(tmp_path, [patch]))
    assert task in failed, f"{name} was not caught"
    assert phrase.lower() in failed[task].lower(), failed[task]
    assert set(failed) == {task}, f"{name} also cost points in {sorted(set(failed) - {task})}"


def test_there_are_at_least_25_buggy_variants():
    assert len(BUGGY) >= 25 and len({b[0] for b in BUGGY}) == len(BUGGY)


@pytest.mark.parametrize("name, patches", ALTERNATIVES, ids=[a[0] for a in ALTERNATIVES])
def test_alternative_correct_solution_keeps_full_marks(tmp_path, name, patches):
    assert outcomes(patched_package(tmp_path, patches)) == {}
