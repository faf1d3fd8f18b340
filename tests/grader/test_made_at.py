"""Where a learner's value went wrong before anything refused it (``made_at``, the copy the
learner's process holds): the first NaN made in place (``g /= a`` keeps g's id), the
probabilities handed to ``rng.choice`` named among other names the raising line reads, and
a trace that stops at its time."""

import importlib.util

import numpy as np
import pytest

from grader.learner import made_at

SOURCE = '''import numpy as np


def backward(a, grad):
    # Task 2.3: a planted backward
    g = np.ones_like(a)
    g /= a
    g = g * a
    return grad * g


def sample(logits, rng):
    V = logits.shape[-1]
    e = np.exp(logits)
    probs = e / e.sum()
    out = np.empty(len(logits), dtype=int)
    for b in range(len(logits)):
        out[b] = rng.choice(V, p=probs[b])
    return out


def ratio(a):
    # Task 2.3: a planted ratio
    r = a / a
    return r


class Stepper:
    def __init__(self, params):
        self.params, self.state = params, [{} for _ in params]

    def step(self, first=False):
        for p, state in zip(self.params, self.state):
            buf = (state if first else self.state[0]).get("buf")
            g = np.ones_like(p.data) if buf is None else 0.9 * buf + p.data
            state["buf"] = g
            p.data -= 0.1 * g


def combine(a, b):
    x = a * 2
    y = b + 1
    return x + y
'''


@pytest.fixture
def planted(tmp_path):
    path = tmp_path / "planted.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("planted_made_at", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_nan_made_in_place_is_found_at_its_own_line(planted):
    a = np.array([0.0, 1.0])
    with np.errstate(all="ignore"):
        found = made_at.first_not_finite(lambda: planted.backward(a, np.ones(2)), [planted.backward])
    assert found is not None
    function, line, name, how, small = found
    assert (line, name, how, small) == (7, "g", "divides", ["a"])


def test_a_trace_out_of_time_names_nothing(planted):
    a = np.array([0.0, 1.0])
    with np.errstate(all="ignore"):
        assert made_at.first_not_finite(lambda: planted.backward(a, np.ones(2)), [planted.backward], 0.0) is None


def test_the_probabilities_given_to_choice_are_the_value_named(planted):
    with pytest.raises(ValueError) as raised:
        planted.sample(np.zeros((3, 4)), np.random.default_rng(0))
    path = planted.__file__
    words = made_at.explained(raised.value, lambda frame, line: frame.f_code.co_filename == path,
                              lambda file: "minitorch/language.py")
    assert "must sum to 1" in words and "probs was made at line 15 of minitorch/language.py (sample)" in words, words


def test_a_nan_of_a_0_by_0_division_is_said_to_be_one(planted):
    with np.errstate(all="ignore"):
        found = made_at.first_not_finite(lambda: planted.ratio(np.array([0.0, 1.0])), [planted.ratio])
    assert found is not None and found[1:] == (24, "r", "zero by zero", ["a"]), found


def _shape_words(planted, run):
    with pytest.raises(ValueError) as raised:
        run()
    path = planted.__file__
    return made_at.explained(raised.value, lambda frame, line: frame.f_code.co_filename == path,
                             lambda file: "minitorch/planted.py")


class _Param:
    def __init__(self, shape):
        self.data = np.ones(shape)

    @property
    def shape(self):
        return self.data.shape


def test_a_shape_error_names_the_values_of_its_shapes_and_a_state_of_another_parameter(planted):
    """fb7 (6.2c): an update in place whose value was made from the state of another parameter (of another shape): the
    words say what NumPy's mean, where each value of those shapes was made, and whose state it is."""
    stepper = planted.Stepper([_Param((2,)), _Param((1,))])
    stepper.step(first=True)
    words = _shape_words(planted, stepper.step)
    assert "NumPy's words mean: an update in place (-=, +=, *=, /=) of an array of shape (1,) by a value of shape (2,)" \
        in words and "g has shape (2,), made at line 35 of minitorch/planted.py (Stepper.step) from buf" in words, words
    assert "buf has shape (2,), made at line 34" in words, words
    assert "buf is held in the state of another parameter (self.state[0], of a parameter of shape (2,)), not in this " \
        "one's (of shape (1,))" in words, words
    fine = planted.Stepper([_Param((2,)), _Param((1,))])
    fine.step(first=True)
    fine.step(first=True)   # each parameter's own state: no error


def test_a_shape_error_without_another_parameters_state_stays_neutral(planted):
    words = _shape_words(planted, lambda: planted.combine(np.ones(3), np.ones(4)))
    assert "values of shapes (3,) and (4,) were combined elementwise" in words, words
    assert "x has shape (3,), made at line 41 of minitorch/planted.py (combine) from a: x = a * 2" in words, words
    assert "y has shape (4,), made at line 42" in words and "state" not in words, words
