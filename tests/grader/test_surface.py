"""The graded surface (declared in the manifest, grader/tasks.toml) holds: every name the
checks use exists in the reference and in the learner's release, a check that uses a name
its task does not declare is refused loudly, and every swap reaches the code that uses the
swapped name."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

from grader import tasks as surface
from grader.boundary.runner import Undeclared, check_declared
from grader.learner.probes import given, resolve
from grader.learner.stand_ins import STAND_INS as GIVEN

ROOT = pathlib.Path(__file__).resolve().parents[2]
NAMES = sorted({n for names in surface.CALLS.values() for n in names} | set(surface.ALWAYS) | set(surface.GIVEN))


def load(folder: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py", submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("package", ["solutions/minitorch", "minitorch"])
def test_every_name_exists(package):
    mt = load(ROOT / package, "minitorch_surface_" + package.replace("/", "_"))
    missing = []
    for name in NAMES:
        try:
            resolve(mt, name)
        except AttributeError:
            missing.append(name)
    assert missing == []


def test_a_check_may_use_only_the_names_its_task_declares():
    has = set(surface.TASKS).__contains__  # a dropped stage's examples are left out (docs/INSTRUCTOR.md)
    if has("2.3"):
        check_declared("2.3", "rule", {"function": "ops_binary.Mul", "swaps": {"ops_binary.unbroadcast": "unbroadcast"}})
    if has("6.2"):
        check_declared("6.2", "optimizer", {"name": "SGD"})
        with pytest.raises(Undeclared, match="optim.Adam"):
            check_declared("6.2", "optimizer", {"name": "Adam"})
    with pytest.raises(Undeclared, match="task 2.2 uses ops_binary.Mul"):
        check_declared("2.2", "rule", {"function": "ops_binary.Mul"})
    if has("5.1"):
        with pytest.raises(Undeclared, match="ops_softmax.stable_logsumexp"):  # a swap is a use too
            check_declared("5.1", "rule", {"function": "ops_linalg.MatMul",
                                           "swaps": {"ops_softmax.stable_logsumexp": "stable_logsumexp"}})
    with pytest.raises(Undeclared, match="nn.GPT"):  # names a probe uses by itself
        check_declared("7.2", "gpt", {})


def test_an_undeclared_name_stops_the_grading_instead_of_costing_a_learner(tmp_path):
    from grader.boundary.runner import LearnerProcess
    from grader.grading.stages import _run_part
    from grader.settings import Settings

    def sloppy_check(w, rng):  # a check of 1.1 reaching into 2.3's op
        w.call("rule", function="ops_binary.Mul", arrays=[], upstream=None, params={})

    with LearnerProcess(ROOT / "solutions" / "minitorch", Settings()) as w:
        w.task = "1.1"
        with pytest.raises(Undeclared):
            _run_part(sloppy_check, w, "1.1/values")


def test_every_swap_takes_effect():
    mt = load(ROOT / "solutions" / "minitorch", "minitorch_surface_swaps")
    sentinel = RuntimeError("the swapped helper was called")

    def boom(*args, **kwargs):
        raise sentinel

    calls = {
        "autodiff.topological_order": lambda: mt.Tensor(np.ones(2), requires_grad=True).sum().backward(),
        "ops_binary.unbroadcast": lambda: run(mt.ops_binary.Mul, np.ones((2, 3)), np.ones(3)),
        "ops_shape.unbroadcast": lambda: run(mt.ops_shape.BroadcastTo, np.ones(3), shape=(2, 3)),
        "ops_linalg.unbroadcast": lambda: run(mt.ops_linalg.MatMul, np.ones((2, 2, 3)), np.ones((3, 4))),
        "ops_softmax.stable_logsumexp": lambda: run(mt.ops_softmax.LogSumExp, np.ones((2, 3)), axis=1),
        "nn.Linear.__init__": lambda: mt.nn.CausalSelfAttention(4, 1),
        "nn.Linear.forward": lambda: mt.nn.Linear(2, 2)(mt.Tensor(np.ones((1, 2)))),
        "nn.CausalSelfAttention.forward": lambda: mt.nn.Block(4, 1)(mt.Tensor(np.ones((1, 2, 4)))),
        "nn.Block.forward": lambda: mt.nn.GPT(5, 4, 4, 1, 1)(np.zeros((1, 2), dtype=np.int64)),
    }

    def run(function, *arrays, **params):
        ctx = mt.function.Context(tuple(True for _ in arrays))
        out = function.forward(ctx, *arrays, **params)
        function.backward(ctx, np.ones_like(out))

    assert set(calls) == set(surface.GIVEN)
    for name, helper in surface.GIVEN.items():
        assert helper in GIVEN
        GIVEN["_boom"] = boom
        try:
            with given(mt, {name: "_boom"}), pytest.raises(RuntimeError, match="swapped helper"):
                calls[name]()
        finally:
            del GIVEN["_boom"]


def test_the_course_config_replaces_nbgraders_execute_and_fails_loudly_if_it_cannot(monkeypatch, tmp_path):
    from nbgrader.converters import Autograde

    from grader.gradebook.course import config
    from grader.gradebook.preprocessor import GradeFromChecks
    steps = config(tmp_path, {}).Autograde.autograde_preprocessors
    assert GradeFromChecks in steps and "Execute" not in [p.__name__ for p in steps]
    trait = Autograde.class_traits()["autograde_preprocessors"]
    monkeypatch.setattr(trait, "default", lambda: [p for p in steps if p is not GradeFromChecks])
    with pytest.raises(RuntimeError, match="nbgrader 0.9.6"):
        config(tmp_path, {})


def test_the_learners_process_knows_every_probe():
    from grader.boundary.runner import LearnerProcess
    from grader.learner import probes_gpt, probes_modules, probes_repair, process  # noqa: F401  (each registers its probes)
    from grader.learner.probes import PROBES
    from grader.probe_declarations import PROBES as DECLARED
    from grader.settings import Settings
    assert set(PROBES) == set(DECLARED)
    with LearnerProcess(ROOT / "solutions" / "minitorch", Settings()) as w:
        for name in PROBES:
            try:
                w.call(name)
            except Exception as error:  # noqa: BLE001 - wrong arguments are fine: an unknown probe is not
                assert "KeyError" not in str(error), f"the learner's process has no probe {name!r}"
