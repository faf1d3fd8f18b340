"""``stage drop``: a stage leaves the course, and everything it graded leaves with it.

Its solution regions become given code (the solution stays, its label and markers go), so
learners get working code instead of stubs nothing grades, and later stages that build on
it still run, each graded on the learner's own code of that stage. Its manifest tables, its
source notebook, its checks (``grader/checks/stageN.py``, ``stageN_*.py``, and its known
mistakes, ``grader/checks/mistakes/stageN*.py``) and its tests of
the reference (``tests/reference/test_stageN_*.py``, and its task marks elsewhere), its tasks'
hints, buggy variants and planted mistakes (``companions.py``) go."""

from __future__ import annotations

import pathlib
import re
import tomllib

from grader.course_edit import companions, manifest
from grader.release.regions import find_regions

ROOT = pathlib.Path(__file__).resolve().parents[2]


def given(text: str, tasks: set[str], filename: str) -> str:
    """``text`` with the regions of ``tasks`` turned into given code."""
    lines = text.splitlines(keepends=True)
    for region in reversed(find_regions(text, filename)):
        if region.task in tasks:
            del lines[region.end]
            del lines[region.begin - 1:region.begin + 1]  # the label and BEGIN
    return "".join(lines)


def drop_stage(stage: str, root: pathlib.Path = ROOT) -> list[str]:
    text = (root / "grader" / "tasks.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    if stage not in data.get("stage", {}):
        raise manifest.EditError(f"the manifest declares no stage {stage!r}; it has {', '.join(data.get('stage', {}))}")
    if len(data["stage"]) == 1:
        raise manifest.EditError(f"stage {stage} is the course's only stage")
    tasks = {t for t in data.get("task", {}) if t.split(".")[0] == stage}
    changed: list[str] = []

    def note(path: pathlib.Path, what: str) -> None:
        changed.append(f"{what} {path.relative_to(root)}")

    marks = re.compile(rf"^\s*@pytest\.mark\.task{stage}_\d+\s*\n", re.M)
    for path in sorted((root / "tests").rglob("*.py")):   # before anything is written: a refusal changes nothing
        if re.search(rf"mark\.task{stage}_\d", marks.sub("", path.read_text(encoding="utf-8"))):
            raise manifest.EditError(f"{path.relative_to(root)} still marks a test with a task of stage {stage}: "
                                     "remove the mark, or the test")
    (root / "grader" / "tasks.toml").write_text(manifest.drop_stage(text, stage), encoding="utf-8")
    note(root / "grader" / "tasks.toml", "changed")
    for path in sorted((root / "solutions" / "minitorch").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if (new := given(source, tasks, str(path))) != source:
            path.write_text(new, encoding="utf-8")
            note(path, "made given code of its regions in")
    doomed = [root / "solutions" / "notebooks" / f"{data['stage'][stage]['notebook']}.py",
              *(root / "grader" / "checks").glob(f"stage{stage}.py"),
              *(root / "grader" / "checks").glob(f"stage{stage}_*.py"),
              *(root / "grader" / "checks" / "mistakes").glob(f"stage{stage}.py"),
              *(root / "grader" / "checks" / "mistakes").glob(f"stage{stage}_*.py"),
              *(root / "tests" / "reference").glob(f"test_stage{stage}_*.py")]
    for path in doomed:
        if path.exists():
            path.unlink()
            note(path, "deleted")
    for path in sorted((root / "tests").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if (new := marks.sub("", source)) != source:
            path.write_text(new, encoding="utf-8")
            note(path, f"took stage {stage}'s task marks out of")
    for path in companions.drop(root, tasks):
        note(path, f"took stage {stage}'s hints or variants out of")
    doc = root / "docs" / "CURRICULUM.md"
    if doc.exists():
        lines = doc.read_text(encoding="utf-8").splitlines(keepends=True)
        kept = [line for line in lines if not line.startswith(f"| {stage} | `")]
        if kept != lines:
            doc.write_text("".join(kept), encoding="utf-8")
            note(doc, "took the stage's row of the stage table out of")
    return changed
