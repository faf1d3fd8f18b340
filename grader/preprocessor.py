"""``GradeFromChecks``: the nbgrader preprocessor that takes the place of ``Execute``.

It runs the trusted checks (``checks.run_stage``) against the ``minitorch/`` package
beside the notebook being autograded, keeps the verdicts in ``verdicts.json`` beside it
(in ``autograded/``, where no learner code ever writes), and writes each task's result
into its graded cell the way nbgrader scores cells: nothing but text when every part
passed, an ``execute_result`` holding the points earned when some did, an error when none
did. The notebook itself is never executed.

A class graded on a queue (``queue.py``) ran the checks on a worker machine; ``Course.grade``
then hands their verdicts in through ``recorded`` and nbgrader records them the same way.
"""

from __future__ import annotations

import json
import pathlib
from contextlib import contextmanager

from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Dict

from .results import LearnerResult, failed_everywhere
from .settings import Settings
from .tasks import STAGES, TASKS, marker


_recorded: list | None = None   # this stage's verdicts, already computed by a queue worker


@contextmanager
def recorded(verdicts: list | None):
    """Within this block, grade with ``verdicts`` instead of running the checks."""
    global _recorded
    _recorded = verdicts
    try:
        yield
    finally:
        _recorded = None


class GradeFromChecks(NbGraderPreprocessor):
    settings = Dict(help="grader.settings.Settings fields").tag(config=True)

    def preprocess(self, nb, resources):
        from .checks import run_stage
        folder = pathlib.Path(resources["metadata"]["path"]).resolve()
        assignment = resources["nbgrader"]["assignment"]
        stage = next(s for s, name in STAGES.items() if name == assignment)
        package = folder / "minitorch"
        if _recorded is not None:
            verdicts = _recorded
        elif (package / "__init__.py").is_file():
            verdicts = run_stage(package, stage, Settings(**self.settings))
        else:
            verdicts = failed_everywhere("no minitorch/ package was graded for this stage", "no package", [stage])
        result = LearnerResult(resources["nbgrader"]["student"])
        result.add(verdicts)
        (folder / "verdicts.json").write_text(json.dumps(result.to_json(), indent=1))
        for cell in nb.cells:
            task = {marker(t): t for t in TASKS}.get(cell.metadata.get("nbgrader", {}).get("grade_id"))
            if task in result.tasks:
                cell.outputs = outputs(result.tasks[task])
        return nb, resources


def outputs(task_result) -> list:
    lines = [f"Task {task_result.task}: {task_result.score:g} / {task_result.max_score:g}"]
    lines += [f"  {'ok' if v.passed else '--'} {v.part} ({v.earned:g} / {v.points:g})"
              + ("" if v.passed else f": {v.message}") for v in task_result.verdicts]
    text = NotebookNode(output_type="stream", name="stdout", text="\n".join(lines) + "\n")
    if task_result.score == task_result.max_score:
        return [text]
    if task_result.score == 0:
        return [text, NotebookNode(output_type="error", ename="NoPoints", evalue=task_result.message[:2000],
                                   traceback=[])]
    return [text, NotebookNode(output_type="execute_result", execution_count=None, metadata={},
                               data={"text/plain": repr(float(task_result.score))})]
