"""The checks' grading power: the reference earns every point and the blank release none;
each buggy variant loses points in its own task only, with the right explanation; correct
solutions written differently keep full marks."""

import pytest
from conftest import ROOT, write_package
import variants
import variants_stage7

from grader.checks import run_stage
from grader.results import LearnerResult
from grader.settings import Settings
from grader.tasks import POINTS, STAGES, TASKS

BUGGY = variants.BUGGY + variants_stage7.BUGGY
ALTERNATIVES = variants.ALTERNATIVES + variants_stage7.ALTERNATIVES

pytestmark = pytest.mark.slow  # run by `make test`, not `make test-fast`

SETTINGS = Settings()


def grade(package) -> LearnerResult:
    result = LearnerResult("test")
    for stage in STAGES:
        result.add(run_stage(package, stage, SETTINGS))
    return result


def lost(result: LearnerResult) -> dict[str, str]:
    return {t: r.message for t, r in result.tasks.items() if r.score < r.max_score}


def test_reference_earns_every_point(tmp_path):
    result = grade(write_package(tmp_path / "minitorch"))
    assert lost(result) == {}
    assert result.total == (sum(POINTS.values()), sum(POINTS.values()))


def test_blank_release_earns_nothing_and_says_not_implemented():
    result = grade(ROOT / "minitorch")
    assert result.total[0] == 0
    for task in TASKS:
        assert f"Task {task}" in result.tasks[task].message, result.tasks[task].message


@pytest.mark.parametrize("name, patch, task, phrase", BUGGY, ids=[b[0] for b in BUGGY])
def test_buggy_variant_loses_points_in_its_task_only(tmp_path, name, patch, task, phrase):
    result = grade(write_package(tmp_path / "minitorch", [patch]))
    assert set(lost(result)) == {task}, lost(result)
    assert phrase.lower() in lost(result)[task].lower(), lost(result)[task]


@pytest.mark.parametrize("name, patches", ALTERNATIVES, ids=[a[0] for a in ALTERNATIVES])
def test_alternative_correct_solution_keeps_full_marks(tmp_path, name, patches):
    assert lost(grade(write_package(tmp_path / "minitorch", patches))) == {}


def test_a_one_op_slip_costs_only_that_ops_share(tmp_path):
    mul = next(b for b in BUGGY if b[0] == "mul forgets to unbroadcast")
    result = grade(write_package(tmp_path / "minitorch", [mul[1]]))
    assert result.tasks["2.3"].score == POINTS["2.3"] - 1


def test_dtype_drift_costs_half_of_what_wrong_maths_costs(tmp_path):
    drift = next(b for b in BUGGY if b[0] == "sigmoid float64 drift")
    wrong = next(b for b in BUGGY if b[0] == "log derivative inverted")
    drifted = grade(write_package(tmp_path / "a" / "minitorch", [drift[1]])).tasks["3.1"].score
    broken = grade(write_package(tmp_path / "b" / "minitorch", [wrong[1]])).tasks["3.1"].score
    assert POINTS["3.1"] - drifted == 0.25 and POINTS["3.1"] - broken == 0.5
