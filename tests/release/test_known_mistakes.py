"""The library of known mistakes (grader/checks/mistakes/) and the notebooks' table made from
it (minitorch/course/known_mistakes.json): one source, values only in the package, a
mistake named only when the answer is its prediction, and hints that cover each mistake.
The variants that make each mistake, graded by both kinds of check, are in
tests/grader/variants_known.py (tests/grader/test_checks.py, tests/release/test_progress.py)."""

import json
import pathlib
import sys

import numpy as np
import pytest

from grader.checks.mistakes import Mistake, Slip, fits, fits_value, library, predict, predict_value, slips, table
from minitorch.course import diagnose, hints, known_mistakes

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_messages import solution_lines

COVERED = {"2.2", "2.3", "3.1", "3.2", "3.3", "4.1", "4.3", "5.1", "5.2", "5.3"}  # the tasks the library covers so far
COVERED |= {"7.2", "7.3", "7.4"}  # ---- stage 7: attention, the Block and the GPT, training and sampling

# A word or phrase of the task's hints that steers away from each known mistake (item 5 of issue 40).
CUES: dict = {
    "gradients swapped": "not swapped", "missing unbroadcast": "unbroadcast", "sign lost on b": "minus grad",
    "sign on the wrong input": "minus grad", "b not squared": "b^2", "a's gradient times b": "grad / b",
    "exponent not lowered": "b a^(b-1)", "log missing": "log(a)", "ties not split": "half of grad",
    "ties counted twice": "half of grad", "square missing": "1 - out^2", "derivative from the input": "not the input",
    "operator precedence": "parentheses", "the 2 missing": "twice out", "times x": "divided by x",
    "sign lost": "cos has a minus sign", "sign added": "no minus", "factor missing": "out (1 - out)",
    "sign of x missing": "sign of x", "1 at the kink": "times (x > 0)", "count missing": "divides by the count",
    "divided by every element": "reduced axes' sizes only", "divided by the count": "Sum does not divide",
    "ties not shared": "share it equally", "ties counted over everything": "along ctx.axes",
    "expand_dims missing": "expand_dims", "forward permutation reused": "not the forward's permutation",
    "not summed back": "unbroadcast", "every size-1 axis squeezed": "reshape grad to ctx.shape",
    "axis not put back": "reshape grad to ctx.shape", "split at the sizes": "running totals",
    "split along the wrong axis": "along ctx.axis", "split into equal parts": "running totals",
    "read along axis 0": "along ctx.axis", "stacked axis kept": "drops the stacked axis",
    "operand not transposed": "transposed", "1-D operand not reshaped back": "reshaped to a's",
    "batch axes not summed": "unbroadcast over batch axes",
    "product term missing": "product rule", "sign of the product term": "Phi(x) + x Phi'(x)",
    "density not normalised": "normal density", "inner derivative missing": "du/dx",
    "the cube's 3 missing": "3 times the cubic coefficient", "exp of the input": "exp(x - out)",
    "sum over every axis": "along the axis", "sum term missing": "the sum of grad times out",
    "sign flipped": "grad minus the sum", "sum missing": "softmax times the sum of grad",
    ("3.3", "expand_dims missing"): "put the reduced axes back", ("5.2", "square missing"): "tanh(u)^2",
    "size-1 axes dropped": "keepdims=True", "leading axes kept": "leading axes grad has and shape lacks",
    "mean instead of sum": "sums the gradient",
    "aligned from the left": "line up from the right",
}
# ---- stage 7: attention (7.2), the Block and the GPT (7.3), training and sampling (7.4)
CUES.update({
    "heads not moved back": "move the head axis back", "heads split without the transpose": "mixes positions",
    "mask one short": "the diagonal included", "mask missing": "hides the future",
    "mask one too far": "nothing above it", "mask upside down": "np.tril of ones", "scale missing": "times 1 / sqrt(d)",
    "scaled by the model width": "not dim",
    "softmax over the queries": "over the last axis (the keys)", "masked after the softmax": "before the softmax",
    "residual missing around attention": "two residual sums", "residual missing around the MLP": "two residual sums",
    "post-norm": "the sums themselves are not normalised", "ln1 and ln2 swapped": "attention takes ln1 of x",
    "GELU after the down projection": "gelu between up and down", "GELU missing": "gelu between up and down",
    "ReLU, not GELU": "down(gelu(up(", "position embeddings missing": "token and position embeddings",
    "positions indexed by the tokens": "not the tokens", "ln_f missing": "then ln_f and the head",
    "argmin, not argmax": "argmax", "the largest logit, not its position": "not the value",
    "the largest probability, not its token": "not the value", "one argmax for the whole batch": "each row's argmax",
    "temperature multiplies": "never multiplying", "temperature ignored": "divided by the temperature",
    "leading axes only": "the axes where shape has a 1",  # Task 2.2's, which had none
    "zero_grad missing": "clear the gradients before backward", "gradients cleared before the step":
    "never between backward and step", "step missing": "then the optimizer's step",
})


@pytest.mark.slow
def test_the_notebooks_table_is_a_fresh_evaluation_of_the_library():
    """Generated by `make release`: the committed table is what the library gives now on the
    visible checks' own cases, and the package holds the same file."""
    committed = (ROOT / "solutions" / "minitorch" / "course" / "known_mistakes.json").read_text()
    assert committed == table.text(table.build()), "the library or a visible check changed: run `make release`"
    assert (ROOT / "minitorch" / "course" / "known_mistakes.json").read_text() == committed


def test_the_table_holds_values_and_words_only():
    """No code reaches the package: each entry is a prediction (values, or an exception) with
    its name, message and fix, and no message or fix quotes a solution line."""
    data = json.loads((ROOT / "minitorch" / "course" / "known_mistakes.json").read_text())
    assert set(data) == {"note", "cases"} and "do not edit" in data["note"]
    lines = solution_lines()
    words = set()
    for by_input in data["cases"].values():
        for entries in by_input.values():
            for entry in entries:
                assert set(entry) in ({"name", "message", "fix", "shape", "values"}, {"name", "message", "fix", "raises"},
                                      {"name", "message", "fix", "equals"})
                words.add(f"{entry['message']} {entry['fix']}")
    assert len(data["cases"]) > 50
    quoted = [line for line in lines for text in words if line in " ".join(text.split())]
    assert not quoted, quoted


def test_each_covered_task_has_three_or_more_known_mistakes_each_cued_by_its_hints():
    per_task: dict[str, set] = {}
    for mistake in [*library(), *slips()]:
        per_task.setdefault(mistake.task, set()).add(mistake.name)
        cue = CUES.get((mistake.task, mistake.name), CUES.get(mistake.name))
        assert cue, f"{mistake.name}: give it a cue its task's hints hold (CUES)"
        steps = " ".join(" ".join(hints.HINTS[mistake.task]).split())
        assert cue in steps, f"the hints of Task {mistake.task} do not cover {mistake.name!r}"
    assert set(per_task) == COVERED and min(len(names) for names in per_task.values()) >= 3, per_task
    assert len({(m.task, m.name) for m in [*library(), *slips()]}) >= 50


def _entries():
    data = json.loads((ROOT / "minitorch" / "course" / "known_mistakes.json").read_text())
    return [(by_input, i, entry) for by_input in data["cases"].values() for i, entries in by_input.items()
            for entry in entries]


def test_a_visible_check_names_a_known_mistake_exactly_on_its_prediction():
    """Both ways, on every case of the table: the predicted answer is named (as a mistake
    that predicts the same values), an answer off by more than the tolerance never is."""
    checked = 0
    for by_input, i, entry in _entries():
        if i == "value":  # a value's check (same(..., known=...)): its own test below
            continue
        if "values" not in entry:
            continue
        wrong = np.asarray(entry["values"], np.float64).reshape(entry["shape"])
        found = known_mistakes.fitting(by_input, int(i), wrong, 1e-6, 1e-5)
        assert found is not None and np.allclose(np.reshape(found["values"], found["shape"]), wrong, equal_nan=True)
        off = wrong + 1e-2 * (1 + np.abs(np.nan_to_num(wrong)))
        assert known_mistakes.fitting(by_input, int(i), off, 1e-6, 1e-5) is None, entry["name"]
        checked += 1
    assert checked > 100


def test_a_value_check_names_a_known_mistake_exactly_on_its_prediction():
    """The same both ways for the checks of values (a sum, a shape, a step): the predicted
    value is named, a value moved past the tolerance, or another list, never is."""
    checked = 0
    for by_input, i, entry in _entries():
        if i != "value":
            continue
        if "equals" in entry:
            wrong = tuple(entry["equals"])
            assert known_mistakes.fitting_value(by_input["value"], wrong, 1e-6, 1e-5)["name"] == entry["name"]
            assert known_mistakes.fitting_value([entry], (*wrong, 0), 1e-6, 1e-5) is None
        else:
            wrong = np.asarray(entry["values"], np.float64).reshape(entry["shape"])
            found = known_mistakes.fitting_value(by_input["value"], wrong, 1e-6, 1e-5)
            assert found is not None and np.allclose(np.reshape(found["values"], found["shape"]), wrong)
            off = wrong + 1e-2 * (1 + np.abs(wrong))
            assert known_mistakes.fitting_value(by_input["value"], off, 1e-6, 1e-5) is None, entry["name"]
        checked += 1
    assert checked >= 10


def test_a_raised_error_is_named_only_when_the_mistake_predicts_it():
    raising = [(by_input, entry) for by_input, _, entry in _entries() if "raises" in entry]
    assert raising
    for by_input, entry in raising:
        kind, message = entry["raises"]
        error = type(kind, (Exception,), {})(message)
        assert known_mistakes.raising(by_input, error)["name"] == entry["name"]
        assert known_mistakes.raising(by_input, KeyError("something else")) is None


def test_the_library_names_a_mistake_only_on_its_own_prediction():
    """The hidden side's test: on random inputs, each mistake's prediction fits itself and
    not the right answer, nor the prediction moved past the tolerance."""
    rng = np.random.default_rng(4)
    cases = {"ops_unary": ([rng.uniform(0.5, 2, (3, 4))], {}), "ops_binary": ([rng.uniform(0.5, 2, (2, 3)),
                                                                              rng.uniform(0.5, 2, (3,))], {})}
    for mistake in library():
        module = mistake.op.split(".")[0]
        if module not in cases or mistake.input >= len(cases[module][0]):
            continue
        arrays, params = cases[module]
        upstream = rng.standard_normal((2, 3) if module == "ops_binary" else (3, 4))
        predicted = predict(mistake, arrays, upstream, params)
        if predicted is None or "values" not in predicted:
            continue
        wrong = predicted["values"]
        assert fits(wrong, predicted, None, 1e-5, 1e-7), mistake
        assert not fits(wrong * 1.01 + 0.01, predicted, None, 1e-5, 1e-7), mistake


def test_a_shape_pattern_is_named_only_when_the_values_bear_it_out():
    """A Cat split in the wrong places once read "summed over the wrong axes"; now a shape
    pattern is named only when summing, reshaping or transposing gives the expected values."""
    expected = np.arange(6.0).reshape(2, 3)
    assert diagnose.shape_pattern((2, 2), (2, 3), np.ones((2, 2)), expected).text == ""
    assert diagnose.shape_pattern((2, 3), (3,), np.ones((2, 3)), np.full(3, 3.0)).text == ""
    assert "Not summed" in diagnose.shape_pattern((2, 3), (3,), np.ones((2, 3)), np.full(3, 2.0)).text
    assert "size-1 axis" in diagnose.shape_pattern((2, 3, 1), (2, 3), expected[..., None], expected).text
    assert diagnose.shape_pattern((2, 3, 1), (2, 3), expected[..., None] + 1, expected).text == ""
    assert "transposed" in diagnose.shape_pattern((3, 2), (2, 3), expected.T, expected).text
    assert diagnose.shape_pattern((3, 2), (2, 3), expected.T + 1, expected).text == ""


def test_got_and_expected_are_shown_to_the_digits_where_they_differ():
    """Adam's eps inside the square root once printed [0.99, -1.99] for both."""
    got, expected = np.array([0.99000002, -1.99]), np.array([0.99, -1.99])
    assert diagnose.precision(got, expected) == 8
    assert diagnose.digits(0.99000002, 0.99) == ("0.99000002", "0.99")
    assert "it is 0.99000002, expected 0.99" in diagnose.value_pattern(got, expected, rtol=0, atol=1e-9).where


def test_the_grader_and_the_notebooks_share_each_mistakes_words():
    """One source: every entry of the notebooks' table carries a library mistake's own name,
    message and fix."""
    words = {(m.name, m.message, m.fix) for m in [*library(), *slips()]}
    assert all((e["name"], e["message"], e["fix"]) in words for _, _, e in _entries())
    assert all(isinstance(m, Mistake) and m.message and m.fix for m in library())
    assert all(isinstance(s, Slip) and s.message and s.fix for s in slips())


def test_a_slip_is_named_only_on_its_own_prediction():
    """The hidden side's test for values: on random cases of each site, a slip's prediction
    fits itself, never the right answer, and not the prediction moved past the tolerance."""
    rng = np.random.default_rng(5)
    cases = {"unbroadcast": [{"grad": rng.standard_normal(g), "shape": s} for g, s in
                             [((2, 3), (3,)), ((4, 2, 3), (2, 1)), ((2, 3), (1, 3)), ((3, 4), ())]]}
    right = {"unbroadcast": lambda grad, shape: grad.sum(axis=tuple(range(grad.ndim - len(shape))) + tuple(
        grad.ndim - len(shape) + i for i, n in enumerate(shape) if n == 1), keepdims=True).reshape(shape)}
    stage7_cases(rng, cases, right)
    seen = set()
    for site, site_cases in cases.items():
        for slip in slips(site):
            for case in site_cases:
                predicted = predict_value(slip, case)
                if predicted is None or "values" not in predicted:
                    continue
                expected = right[site](**case)
                if fits_value(expected, predicted, None, 1e-5, 1e-7):
                    continue
                assert fits_value(predicted["values"], predicted, expected, 1e-5, 1e-7), slip
                assert not fits_value(expected, predicted, expected, 1e-5, 1e-7), slip
                assert not fits_value(predicted["values"] * 1.01 + 0.01, predicted, expected, 1e-5, 1e-7), slip
                seen.add(slip.name)
    assert seen == {s.name for s in slips() if s.site in cases}


# ---- stage 7: random cases of the sites of Tasks 7.2 to 7.4, and their right answers from the checks' own NumPy
def stage7_cases(rng, cases, right):
    from grader.checks.reference import attention_weights, layer_norm, linear_weights, numpy_attention
    from grader.checks.stage7_gpt import _block_weights, numpy_block
    attention = [{"x": rng.standard_normal((2, 5, 8)), "weights": attention_weights(rng, 8), "heads": h} for h in (1, 2, 4)]
    cases.update({"attention": attention, "attention weights": attention,
                  "block": [{"x": rng.standard_normal((2, 4, 8)), "weights": _block_weights(rng, 8), "heads": 2}]})
    right.update({"attention": numpy_attention,
                  "attention weights": lambda x, weights, heads: numpy_attention(x, weights, heads, keep_weights=True)[1],
                  "block": numpy_block})
    weights = {"token.weight": rng.standard_normal((7, 8)), "position.weight": rng.standard_normal((6, 8)),
               "ln_f.weight": 1 + 0.1 * rng.standard_normal(8), "ln_f.bias": 0.1 * rng.standard_normal(8),
               **_block_weights(rng, 8, "blocks.0."), **linear_weights(rng, "head", 8, 7)}
    cases["gpt"] = [{"idx": rng.integers(0, 6, (2, 5)), "weights": weights, "heads": 2}]

    def gpt(idx, weights, heads):
        x = numpy_block(weights["token.weight"][idx] + weights["position.weight"][np.arange(idx.shape[1])], weights, heads,
                        "blocks.0.")
        return layer_norm(x, weights["ln_f.weight"], weights["ln_f.bias"]) @ weights["head.weight"].T + weights["head.bias"]

    right["gpt"] = gpt
    logits = rng.standard_normal((4, 6)) * 2
    cases.update({"greedy": [{"logits": logits}], "temperature": [{"logits": logits[0], "temperature": t} for t in (0.5, 2.0)],
                  "training gradient": [{"first": rng.standard_normal(5), "second": rng.standard_normal(5)}],
                  "optimizer steps": [{"steps": 2}, {"steps": 3}]})
    right.update({"greedy": lambda logits: logits.argmax(axis=1),
                  "temperature": lambda logits, temperature: np.exp(logits / temperature) / np.exp(logits / temperature).sum(),
                  "training gradient": lambda first, second: second, "optimizer steps": lambda steps: steps})


def test_the_training_loops_known_mistakes_are_named_by_their_calls_only():
    """The calls of language.train (an answer compared item by item): each slip's list is
    named, the right loop's never, nor a loop that clears the gradients after the step."""
    right = ["zero_grad", "forward", "backward", "step"] * 3
    later = ["forward", "backward", "step", "zero_grad"] * 3
    made = [s for s in slips("training calls")]
    assert {s.name for s in made} == {"zero_grad missing", "gradients cleared before the step", "step missing"}
    for slip in made:
        predicted = predict_value(slip, {"steps": 3})
        assert fits_value(predicted["equals"], predicted, right, 1e-5, 1e-7), slip.name
        assert not fits_value(right, predicted, right, 1e-5, 1e-7) and not fits_value(later, predicted, right, 1e-5, 1e-7)
