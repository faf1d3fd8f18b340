"""A stage's verdicts written into its notebook's graded cells, the way nbgrader scores
cells (``preprocessor.GradeFromChecks`` does it in nbgrader's autograde; ``batch.lay_out``
in the process that graded a learner). Nothing here imports nbgrader: a grading process
that lays out a learner's folders never pays for it.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

from nbformat import NotebookNode

from grader.results import LearnerResult, TaskResult
from grader.tasks import TASKS, marker


def keep(nb: Any, result: LearnerResult, record: pathlib.Path) -> None:
    """The verdicts kept as a record beside the notebook (where no learner writes), then
    each task's written into its graded cell, the hand-in's problems above them."""
    record.write_text(json.dumps(result.to_json(), indent=1))
    write_cells(nb, result, result.problems)


def write_cells(nb: Any, result: LearnerResult, notes: list[str] | None = None) -> None:
    """Each task's verdicts into its graded cell, as nbgrader scores cells; ``notes`` about
    the hand-in as a whole go above the first of them."""
    cells = {marker(t): t for t in TASKS}
    first = True
    for cell in nb.cells:
        task = cells.get(cell.metadata.get("nbgrader", {}).get("grade_id"))
        if task in result.tasks:
            cell.outputs = outputs(result.tasks[task])
            if first and notes:
                cell.outputs.insert(0, NotebookNode(output_type="stream", name="stdout",
                                                    text="".join(f"Note: {n}\n" for n in notes)))
            first = False


def outputs(task_result: TaskResult) -> list:
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


__all__ = ["keep", "outputs", "write_cells"]
