"""Issue 31: nothing of a solution within the learner's reach. The given versions of earlier
tasks are computed on the grader's side (grader/boundary/given.py); the learner's process
holds only stand-ins that ask for them, and the grader answers a stand-in only while a call
that swapped that helper in is running. Borrowers of every kind score exactly as leaving
the task unwritten (here through `check`; tests/grader/test_class.py grades them in the
hostile class, tests/platforms/ on the platforms)."""

import ast
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from borrowers import BORROWERS, EVERYTHING

from grader.boundary import given
from grader.boundary.confinement import landlock_abi
from grader.boundary.runner import Borrowed, LearnerProcess
from grader.probe_declarations import PROBES
from grader.settings import Settings
from grader.tasks import GIVEN, SWAPS, TOTAL

ROOT = pathlib.Path(__file__).resolve().parents[2]
LEARNER = ROOT / "grader" / "learner"


def test_every_helper_is_given_on_the_graders_side_and_stood_in_for_in_the_learners():
    from grader.learner.stand_ins import STAND_INS
    assert set(GIVEN.values()) == set(STAND_INS) == set(given.NAMES)
    for name, probe in PROBES.items():
        assert all(GIVEN.get(target) == helper for target, helper in probe.swaps.items()), name
    for task, swaps in SWAPS.items():
        assert set(swaps) <= set(GIVEN), task


def test_a_stand_in_computes_nothing_but_asks():
    """Every stand-in's body reaches ``_ask``; the learner zone holds no other definition of a
    helper's name and imports nothing of the grader's side but the wire and confinement."""
    tree = ast.parse((LEARNER / "stand_ins.py").read_text())
    from grader.learner.stand_ins import STAND_INS
    functions = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    for name in STAND_INS:
        calls = {c.func.id for c in ast.walk(functions[name]) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
        assert "_ask" in calls, name
    for path in LEARNER.glob("*.py"):
        if path.name != "stand_ins.py":
            names = {n.name.lstrip("_") for n in ast.walk(ast.parse(path.read_text()))
                     if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
            assert not names & {"unbroadcast", "stable_logsumexp", "topological_order", "linear_init", "linear_forward",
                                "given_attention", "given_block", "apply_linear"}, path
        text = path.read_text()
        assert "boundary.given" not in text and "boundary.lending" not in text and "grader.checks" not in text


def unbroadcast_by_sums(grad, shape):
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


@pytest.mark.parametrize("shape,out", [((3,), (2, 3)), ((2, 1), (2, 3)), ((), (4, 5)), ((1, 3), (5, 2, 3)), ((2, 3), (2, 3))])
def test_the_given_unbroadcast_sums_what_broadcasting_added(shape, out):
    grad = np.random.default_rng(0).standard_normal(out).astype(np.float32)
    got = given.unbroadcast({"grad": grad, "shape": list(shape)})
    if shape == out:   # nothing to sum: the stand-in reshapes the learner's own array (a view, as NumPy's)
        assert got == {"reshape": list(shape)}
        return
    assert got.shape == shape and got.dtype == np.float32
    np.testing.assert_allclose(got, unbroadcast_by_sums(grad.astype(np.float64), shape), rtol=1e-5)


def test_the_given_topological_order_puts_each_node_before_its_parents():
    parents = {0: [1, 2], 1: [3], 2: [3, 4], 3: [4], 4: []}
    order = given.topological_order(lambda k: parents[k])
    assert sorted(order) == list(parents) and order[0] == 0
    assert all(order.index(k) < order.index(p) for k, ps in parents.items() for p in ps)


JUNK = [None, "x", 3, [1, 2], {"a": 1}, np.array(["a"]), np.zeros(0), np.ones((2, 2, 2, 2)), -1, 2**40, True, 1.5]


@pytest.mark.parametrize("helper", sorted(given.HELPERS))
def test_a_given_helper_refuses_junk_with_a_clear_message(helper):
    """Whatever the learner's process sends, a helper answers or raises Unusable naming what
    was wrong: never another exception, never an allocation beyond its bound."""
    keys = {"unbroadcast": ("grad", "shape"), "stable_logsumexp": ("x", "axes"),
            "linear_init": ("in_features", "out_features", "bias"), "linear_forward": ("x", "weight", "bias"),
            "attention": ("x", "heads", "layers"), "block": ("x", "heads", "layers")}[helper]
    rng = np.random.default_rng(1)
    for _ in range(300):
        args = {key: JUNK[rng.integers(len(JUNK))] for key in keys}
        try:
            given.HELPERS[helper](args)
        except given.Unusable as error:
            assert str(error)
    with pytest.raises(given.Unusable, match="larger than any check"):
        given.linear_init({"in_features": 2**21, "out_features": 2**21, "bias": True})


@pytest.mark.skipif(landlock_abi() < 1, reason="the learner's process is confined with Landlock")
def test_a_call_is_lent_what_it_swaps_in_and_nothing_else(tmp_path):
    """The reference's Mul with a given unbroadcast: lent, so right; a borrower's own
    unbroadcast calling the grader's: refused, as Borrowed, in the same process."""
    BORROWER = dict(BORROWERS)["borrows-module-table"]
    package = BORROWER(tmp_path, "b") / "minitorch"
    a, b, upstream = np.ones((2, 3)), np.arange(3.0), np.ones((2, 3))
    with LearnerProcess(package, Settings()) as w:
        seen = w.call("rule", function="ops_binary.Mul", arrays=[a, b], upstream=upstream, params={},
                      swaps={"ops_binary.unbroadcast": "unbroadcast"})
        np.testing.assert_allclose(seen["grads"][1], a.sum(axis=0))
        with pytest.raises(Borrowed, match="the grader's own version of unbroadcast \\(the work of Task 2.2\\)"):
            w.call("call", function="unbroadcast", args=[upstream, (3,)])
        with pytest.raises(Borrowed, match="unbroadcast"):   # a swap declared for another name lends nothing here
            w.call("call", function="unbroadcast", args=[upstream, (3,)], swaps={"ops_softmax.stable_logsumexp":
                                                                                  "stable_logsumexp"})
        assert w.call("call", function="broadcast_shapes", args=[(2, 1), (3,)]) == (2, 3)   # the process lives on


def test_a_given_helper_bounds_the_work_and_memory_a_request_may_cost():
    """Sizes a request may carry (64 MiB) are not enough to make the grader compute for
    seconds or allocate gigabytes: integer matrix products and huge attention are refused."""
    x = np.ones((1, 4096, 64), dtype=np.float32)
    layer = [np.ones((64, 64)), np.zeros(64)]
    with pytest.raises(given.Unusable, match="larger than any check builds"):
        given.attention({"x": x, "heads": 64, "layers": dict.fromkeys(("query", "key", "value", "proj"), layer)})
    with pytest.raises(given.Unusable, match="floats"):
        given.linear_forward({"x": np.ones((2048, 16384), np.int8), "weight": np.ones((2048, 16384), np.int8),
                              "bias": None})
    with pytest.raises(given.Unusable, match="larger than any check builds"):
        given.linear_forward({"x": np.ones((4096, 2048)), "weight": np.ones((2048, 2048)), "bias": None})
    with pytest.raises(given.Unusable):
        given.linear_forward({"x": np.array(1.0), "weight": np.ones((1, 1)), "bias": None})


FLOOD = """
import sys as _s
_channel = _s.modules["grader.learner.stand_ins"].CHANNEL
_wire = _s.modules["grader.boundary.wire"]
for _ in range(100000):   # ask and ask, and never read the refusals
    _wire.send(_channel[1], {"ask": "unbroadcast", "args": {}})
"""


@pytest.mark.skipif(landlock_abi() < 1, reason="the learner's process is confined with Landlock")
def test_a_learner_that_stops_reading_is_stopped_within_the_calls_time(tmp_path):
    import shutil
    import time

    from grader.boundary.runner import Lost, Unimportable
    package = tmp_path / "minitorch"
    shutil.copytree(ROOT / "solutions" / "minitorch", package)
    (package / "__init__.py").write_text(FLOOD + (package / "__init__.py").read_text())
    start = time.monotonic()
    with LearnerProcess(package, Settings(call_seconds=2, stage_seconds=6)) as w, \
            pytest.raises((Lost, Unimportable)) as stopped:
        w.call("call", function="broadcast_shapes", args=[(1,), (1,)])
    assert time.monotonic() - start < 8, stopped.value


@pytest.mark.slow
@pytest.mark.skipif(landlock_abi() < 1, reason="the learner's process is confined with Landlock")
def test_every_borrower_scores_as_leaving_the_tasks_unwritten_through_check(tmp_path):
    """Each borrower and the control through `check`: the same points in every part."""
    def parts(name, build):
        build(tmp_path, name)
        done = subprocess.run([sys.executable, "-m", "grader", "check", str(tmp_path / name), "--out",
                               str(tmp_path / f"{name}-out")], cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        return [line.split()[:5] for line in done.stdout.splitlines() if line.strip().startswith(("ok Task", "-- Task"))], done
    control, _ = parts(*BORROWERS[0])
    assert sum(float(row[3]) for row in control) < TOTAL   # the six tasks unwritten cost points
    for name, build in [*BORROWERS[1:], EVERYTHING]:
        found, done = parts(name, build)
        assert found == control, name
        page = " ".join((tmp_path / f"{name}-out" / "feedback.html").read_text(encoding="utf-8").split())
        if name == "borrows-captured":   # its process ended with stage 1, which lent it stage 2's unbroadcast
            assert "nothing captured yet" in page, name
        elif name != "borrows-everything":
            assert "the grader&#x27;s own version of" in page or "the grader's own version of" in page, name


@pytest.mark.skipif(landlock_abi() < 1, reason="the learner's process is confined with Landlock")
def test_a_process_lent_a_later_stages_helper_ends_with_its_stage():
    """Task 1.4's tensor graph is lent unbroadcast, Task 2.2's work: whatever the learner's
    code asked for and kept then cannot reach stage 2, whose process starts afresh. A helper
    of an earlier task (unbroadcast in stage 2's Mul) keeps the process."""
    with LearnerProcess(ROOT / "solutions" / "minitorch", Settings()) as w:
        w.new_stage()
        w.task = "2.3"
        w.call("rule", function="ops_binary.Mul", arrays=[np.ones((2, 3)), np.ones(3)], upstream=np.ones((2, 3)),
               params={}, swaps={"ops_binary.unbroadcast": "unbroadcast"})
        assert not w.lent_ahead
        w.task = "1.4"
        w.call("tensor_graph", x=np.ones((2, 3)), b=np.ones(3), upstream=np.ones((2, 3)), calls=1)
        assert w.lent_ahead and w.process is not None
        w.new_stage()
        assert w.process is None and not w.lent_ahead
