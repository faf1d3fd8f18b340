"""The checks' grading power: the reference earns every point and the blank release none;
each buggy variant loses points in its own task only, with the right explanation; correct
solutions written differently keep full marks."""

import pathlib
import re
import sys

import pytest
import variants
import variants_edges
import variants_known
import variants_repair
import variants_stage7
from batch import Batch
from conftest import ROOT, write_package

from grader.grading.stages import run_stage
from grader.results import LearnerResult
from grader.settings import Settings
from grader.tasks import PARTS, POINTS, STAGES, TASKS
from tests.messages_log import note_message

# a variant of a task the course no longer has (its stage dropped, docs/INSTRUCTOR.md) is left out
BUGGY = [b for b in variants.BUGGY + variants_stage7.BUGGY + variants_edges.BUGGY + variants_known.BUGGY
         + variants_repair.BUGGY if b[2] in TASKS]
ALTERNATIVES = variants.ALTERNATIVES + variants_stage7.ALTERNATIVES + variants_edges.ALTERNATIVES

# run by `make test`, not `make test-fast`; the first test to ask pays for the whole batch
# (about 5 minutes on an idle 2-core machine), so the module's tests get more than the default 10
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

SETTINGS = Settings()
# The variants that make a known mistake are there to test its naming: each is graded in its own
# stage only (a task's bug costing only that task is the other variants' test, every stage graded).
OWN_STAGE = {b[0]: {b[2].split(".")[0]} for b in variants_known.BUGGY + variants_repair.BUGGY}
BY_NAME = {b[0]: [b[1]] for b in BUGGY} | {f"alternative: {a[0]}": a[1] for a in ALTERNATIVES}


def needs(*tasks: str):
    """A test about these tasks: skipped, saying why, in a course without them."""
    missing = [t for t in tasks if t not in TASKS]
    return pytest.mark.skipif(bool(missing), reason=f"the course has no task {', '.join(missing)}")


def _package(name: str, target: pathlib.Path) -> pathlib.Path:
    """The package a name stands for: the reference, the blank release, or the reference
    with a variant's patches."""
    if name == "blank release":
        return ROOT / "minitorch"
    return write_package(target, [] if name == "reference" else BY_NAME[name])


@pytest.fixture(scope="module")
def graded(request, tmp_path_factory) -> Batch:
    """Every package this module's selected tests ask for, graded together at first use, as a
    class is (two at a time, each hand-in in one learner process for all its stages)."""
    pending = []
    for item in request.session.items:
        if getattr(item, "module", None) is not sys.modules[__name__]:
            continue
        params = getattr(item, "callspec", None)
        params = params.params if params else {}
        if "patches" in params:
            pending.append(f"alternative: {params['name']}")
        elif "name" in params:
            pending.append(params["name"])
        elif item.originalname == "test_a_one_op_bug_costs_its_parts_share_in_every_multi_part_task":
            pending += [name for name, _, _ in ONE_OP.values()]
        elif item.originalname == "test_reference_earns_every_point":
            pending.append("reference")
        elif item.originalname == "test_blank_release_earns_nothing_and_says_not_implemented":
            pending.append("blank release")
    # a test of a task the course dropped names a variant it no longer has: that test is skipped
    known = [name for name in pending if name in BY_NAME or name in ("reference", "blank release")]
    return Batch(_package, tmp_path_factory.mktemp("variants"), known, lambda name: OWN_STAGE.get(name))


def lost(result: LearnerResult) -> dict[str, str]:
    return {t: r.message for t, r in result.tasks.items() if r.score < r.max_score}


def test_reference_earns_every_point(graded):
    result = graded["reference"]
    assert lost(result) == {}
    assert result.total == (sum(POINTS.values()), sum(POINTS.values()))


def test_blank_release_earns_nothing_and_says_not_implemented(graded):
    result = graded["blank release"]
    assert result.total[0] == 0
    for task in TASKS:
        assert f"Task {task}" in result.tasks[task].message, result.tasks[task].message


@pytest.mark.parametrize("name, patch, task, phrase", BUGGY, ids=[b[0] for b in BUGGY])
def test_buggy_variant_loses_points_in_its_task_only(graded, name, patch, task, phrase):
    result = graded[name]
    note_message("autograder", name, task, lost(result).get(task, ""))
    graded_stages = OWN_STAGE.get(name, STAGES)
    assert {t for t in lost(result) if t.split(".")[0] in graded_stages} == {task}, lost(result)
    assert phrase.lower() in lost(result)[task].lower(), lost(result)[task]
    # never misleading: a known mistake is named only by the variant that makes it (variants_known.NAMED), and always
    named = set(re.findall(r"\(known mistake: ([^)]+)\)", lost(result)[task]))
    assert named == ({variants_known.NAMED[name]} if name in variants_known.NAMED else set()), lost(result)[task]


@pytest.mark.parametrize("name, patches", ALTERNATIVES, ids=[a[0] for a in ALTERNATIVES])
def test_alternative_correct_solution_keeps_full_marks(graded, name, patches):
    assert lost(graded[f"alternative: {name}"]) == {}


@needs("2.3")
def test_a_one_op_mistake_costs_only_that_ops_share(graded):
    result = graded["mul forgets to unbroadcast"]
    assert result.tasks["2.3"].score == POINTS["2.3"] - 1


@needs("7.3")
@pytest.mark.parametrize("name", ["block without the residual around attention", "block with ReLU instead of GELU",
                                  "block applies GELU after the down projection",
                                  "block without the residual around the MLP"])
def test_a_block_mistake_is_not_charged_again_to_the_gpt(graded, name):
    result = graded[name].tasks["7.3"]
    assert [v.part for v in result.verdicts if not v.passed] == ["Block"]


@needs("6.1")
def test_a_linear_mistake_is_not_charged_again_to_the_mlp(graded):
    result = graded["linear weight stored as (in, out)"].tasks["6.1"]
    assert [v.part for v in result.verdicts if not v.passed] == ["Linear"]


@needs("7.2")
@pytest.mark.parametrize("name", ["mask lets a position see the next one", "mask upside down"])
def test_a_mask_mistake_costs_only_the_causal_part(graded, name):
    result = graded[name].tasks["7.2"]
    assert [v.part for v in result.verdicts if not v.passed] == ["causal"]


@needs("7.2")
def test_a_missing_attention_scale_is_charged_once(graded):
    result = graded["attention without the scale"].tasks["7.2"]
    assert [v.part for v in result.verdicts if not v.passed] == ["one head"]


@needs("7.1")
def test_right_numbers_from_a_changed_upstream_gradient_keep_half(graded):
    result = graded["layer norm scales the upstream gradient in place"].tasks["7.1"]
    assert result.score == POINTS["7.1"] / 2


@needs("3.1")
def test_dtype_drift_costs_half_of_what_wrong_maths_costs(graded):
    drifted = graded["sigmoid float64 drift"].tasks["3.1"].score
    broken = graded["log derivative inverted"].tasks["3.1"].score
    assert POINTS["3.1"] - drifted == 0.25 and POINTS["3.1"] - broken == 0.5


# task -> (a buggy variant that breaks one op or case of it, the part it breaks, the share of
# that part's points it keeps: 0, or 0.5 when only float32 inputs get float64 gradients)
ONE_OP = {task: case for task, case in {
    "1.1": ("central difference one-sided", "two-sided difference", 0), "1.2": ("mul backward swapped", "mul", 0),
    "1.3": ("topological order by recursion", "deep graphs", 0),
    "1.4": ("backpropagate adds in place", "tensor graphs", 0),
    "2.1": ("broadcast_shapes ignores clashes", "raises on a clash", 0),
    "2.2": ("unbroadcast in float64", "float32, no side effects", 0.5), "2.3": ("sub wrong sign", "Sub", 0),
    "3.1": ("log derivative inverted", "Log", 0), "3.2": ("mean forgets the count", "Mean", 0),
    "3.3": ("max gives every tie the full gradient", "ties", 0), "4.1": ("transpose without inverse", "Transpose", 0),
    "4.2": ("getitem loses repeats", "repeated integer indices", 0), "4.3": ("cat splits at the wrong place", "Cat", 0),
    "5.1": ("matmul forgets to reshape a 1-D gradient", "1-D operands", 0),
    "5.2": ("gelu tanh derivative drops a term", "tanh", 0), "5.3": ("log_softmax forgets the sum", "LogSoftmax", 0),
    "5.4": ("cross-entropy target gradient sign", "probabilities", 0),
    "6.1": ("linear ignores bias=False", "Linear", 0), "6.2": ("sgd weight decay subtracted", "weight decay", 0),
    "6.3": ("adam decoupled weight decay", "weight decay", 0),
    "6.4": ("training loop averages batch means", "batches and the mean", 0),
    "7.1": ("layer norm bias gradient not summed over the batch", "gradients for weight and bias", 0),
    "7.2": ("heads merged without the transpose", "several heads", 0),
    "7.3": ("gpt skips the final layer norm", "GPT", 0),
    "7.4": ("sampling ignores the temperature", "temperature", 0),
}.items() if task in TASKS}  # a task of more than one part added to the course needs its one-op variant here


def test_a_one_op_bug_costs_its_parts_share_in_every_multi_part_task(graded, capsys):
    """The table printed here is the points a one-op bug costs in each task (``pytest -s``)."""
    rows, wrong = [], []
    for task, (name, part, keep) in ONE_OP.items():
        result = graded[name].tasks[task]
        failed = [v.part for v in result.verdicts if not v.passed]
        cost, share = POINTS[task] - result.score, PARTS[task][part] * (1 - keep)
        rows.append(f"{task:>4}  {len(PARTS[task])} parts  {POINTS[task]:>4g} points  one-op bug in {part!r} costs "
                    f"{cost:g} (its share {share:g})  [{name}]")
        if failed != [part] or cost != share:
            wrong.append((task, name, failed, cost, share))
    with capsys.disabled():
        print("\n" + "\n".join(rows))
    assert set(ONE_OP) == {t for t in TASKS if len(PARTS[t]) > 1}
    assert wrong == []



@needs("3.1")
def test_an_answer_that_overflows_at_large_magnitudes_is_named_unstable(tmp_path):
    """The class report names the mistake from what the answer holds (NaN or inf where the
    right answer is finite), not from the words the learner reads: a sigmoid rule that
    gets x back from the output and then uses the textbook formula overflows at x = -100."""
    patch = ("ops_unary.py", "        return grad * out * (1 - out)\n",
             "        x = np.log(out / (1 - out))  # x again, from the output\n"
             "        e = np.exp(-x)\n        return grad * e / (1 + e) ** 2\n")
    verdicts = run_stage(write_package(tmp_path / "minitorch", [patch]), "3", SETTINGS)
    lost = {v.part: v.mistake for v in verdicts if v.earned < v.points}
    assert lost == {"Sigmoid": "unstable at large magnitudes"}, lost
