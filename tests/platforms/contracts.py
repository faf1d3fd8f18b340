"""The documented results.json formats, and reading what `check` reported, for comparing.

Gradescope: docs/specs.md of gradescope/autograder_samples ("Output format", "Test case
status", "Output String Formatting"). PrairieLearn: docs/externalGrading.md ("Grading
results") of PrairieLearn/PrairieLearn.
"""

import html
import re
import subprocess
import sys

from grader.tasks import PARTS

GS_TOP = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
          "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
GS_TEST = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format", "tags",
           "visibility", "extra_data"}
GS_VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
GS_FORMATS = {"text", "html", "simple_format", "md", "ansi"}
PL_TOP = {"gradable", "score", "message", "output", "format_errors", "images", "tests"}
PL_TEST = {"name", "description", "points", "max_points", "message", "output", "images"}
NUMBER = (int, float)


def valid_gradescope(data: dict) -> None:
    assert set(data) <= GS_TOP, set(data) - GS_TOP
    assert isinstance(data["score"], NUMBER) and isinstance(data["output"], str)
    assert data.get("visibility", "visible") in GS_VISIBILITY and data.get("stdout_visibility", "hidden") in GS_VISIBILITY
    for key in ("output_format", "test_output_format", "test_name_format"):
        assert data.get(key, "text") in GS_FORMATS
    for test in data["tests"]:
        assert set(test) <= GS_TEST, set(test) - GS_TEST
        assert isinstance(test["name"], str) and isinstance(test["score"], NUMBER)
        assert isinstance(test["max_score"], NUMBER) and 0 <= test["score"] <= test["max_score"]
        assert test.get("status", "passed") in ("passed", "failed") and test.get("visibility", "visible") in GS_VISIBILITY
        assert (test["status"] == "passed") == (test["score"] == test["max_score"])
        assert isinstance(test.get("output", ""), str)


def valid_prairielearn(data: dict) -> None:
    assert set(data) <= PL_TOP, set(data) - PL_TOP
    if data.get("gradable", True):
        assert isinstance(data["score"], NUMBER) and 0.0 <= data["score"] <= 1.0
    else:
        assert data["gradable"] is False and data["format_errors"]
    assert isinstance(data["message"], str) and isinstance(data.get("output", ""), str)
    for test in data["tests"]:
        assert set(test) <= PL_TEST, set(test) - PL_TEST
        assert isinstance(test["name"], str) and isinstance(test["output"], str)
        assert isinstance(test["points"], NUMBER) and isinstance(test["max_points"], NUMBER)  # on every test
        assert 0 <= test["points"] <= test["max_points"]


def check(path, out) -> tuple[str, dict]:
    """`python -m grader check PATH`: its table, and {(task, part): (earned, points, reason)}
    from the feedback page it writes (the table shortens reasons, the page does not)."""
    from handins import ROOT
    done = subprocess.run([sys.executable, "-m", "grader", "check", str(path), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    text = done.stdout[done.stdout.index("Grades for"):done.stdout.index("\n\nFeedback:")]
    page = (out / "feedback.html").read_text(encoding="utf-8")
    parts, task = {}, None
    for row in re.finditer(r"<b>Task ([\d.]+)</b>|<td class='part (?:ok|lost)'>(.*?)</td><td class='(?:ok|lost)'>"
                           r"([\d.]+) / ([\d.]+)</td><td>(.*?)</td>", page, re.S):
        if row[1]:
            task = row[1]
        else:
            parts[(task, html.unescape(row[2]))] = (float(row[3]), float(row[4]), html.unescape(row[5]))
    assert len(parts) == sum(len(p) for p in PARTS.values())
    return text, parts


def parts_of(tests: list[dict], score: str, most: str) -> dict:
    """{(task, part): (earned, points, reason)} from a platform's tests."""
    found = {}
    for test in tests:
        task, part = re.fullmatch(r"Task ([\d.]+) · (.+)", test["name"]).groups()
        found[(task, part)] = (float(test[score]), float(test[most]), test.get("output", ""))
    return found


def code_lines(paths) -> set[str]:
    """Lines of Python code (names and operators, no string in them, 24 characters or
    more) of ``paths``: what a copy of those files would bring along, and no message does."""
    import io
    import tokenize
    found = set()
    for path in paths:
        source = path.read_text()
        lines = source.splitlines()
        strings, codes = set(), set()
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            rows = range(token.start[0], token.end[0] + 1)
            (strings if token.type == tokenize.STRING else codes if token.type == tokenize.NAME else set()).update(rows)
        found |= {lines[n - 1].strip() for n in codes - strings if len(lines[n - 1].strip()) >= 24}
    return {line for line in found if not line.startswith("#")}


def solution_lines() -> set[str]:
    """Lines written only inside the reference's solution regions (more than 20 characters)."""
    from handins import REFERENCE

    from grader.release.regions import find_regions
    inside, given = set(), set()
    for path in sorted(REFERENCE.glob("*.py")):
        lines = path.read_text().splitlines()
        spans = [range(r.begin + 1, r.end) for r in find_regions(path.read_text())]
        for number, line in enumerate(lines):
            (inside if any(number in span for span in spans) else given).add(line.strip())
    return {line for line in inside - given if len(line) > 20 and not line.startswith("#")}


def secret_lines() -> set[str]:
    """The hidden checks' code and the reference's solution code."""
    from handins import ROOT
    return code_lines(sorted((ROOT / "grader" / "checks").glob("*.py"))) | solution_lines()
