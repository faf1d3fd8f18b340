"""The committed release (minitorch/ and notebooks/) is what ``python -m grader release``
makes now, and carries no solution or hidden-test text."""

import json

import pytest

from grader.release import build as release
from grader.release.regions import find_regions

ROOT = release.ROOT


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    out = tmp_path_factory.mktemp("release")
    release.build_package(out / "minitorch")
    release.build_notebooks(out / "notebooks")
    return out


@pytest.mark.parametrize("folder", ["minitorch", "notebooks"])
def test_committed_release_is_fresh(fresh, folder):
    stale = release.differences(fresh / folder, ROOT / folder)
    assert not stale, "run `make release` (python -m grader release) and commit: " + "; ".join(stale)


def solution_lines() -> set[str]:
    """Distinctive lines of solution code: long enough not to occur by chance elsewhere."""
    inside, given = set(), set()
    for path in (ROOT / "solutions" / "minitorch").rglob("*.py"):
        text = path.read_text().splitlines()
        spans = [range(r.begin + 1, r.end) for r in find_regions(path.read_text())]
        for number, line in enumerate(text):
            (inside if any(number in span for span in spans) else given).add(line.strip())
    return {line for line in inside - given if len(line) > 20 and not line.startswith("#")}


def release_texts():
    for path in sorted((ROOT / "minitorch").rglob("*.py")):
        yield path, path.read_text()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        yield path, "\n".join("".join(c["source"]) for c in cells)


def test_no_solution_or_hidden_test_text_in_the_release():
    secret = solution_lines()
    assert len(secret) > 40
    for path, text in release_texts():
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "import grader", "from grader"):
            assert marker not in text, f"{path} contains {marker}"
        leaked = [line for line in secret if line in text]
        assert not leaked, f"{path} contains solution code: {leaked[:3]}"


def test_release_notebooks_have_no_outputs():
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            assert not cell.get("outputs"), f"{path} has outputs"


def test_stub_package_marks_every_task():
    text = "\n".join(p.read_text() for p in (ROOT / "minitorch").rglob("*.py"))
    for task in __import__("grader.tasks", fromlist=["TASKS"]).TASKS:
        assert f'raise NotImplementedError("Task {task}:' in text
