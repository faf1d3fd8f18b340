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
