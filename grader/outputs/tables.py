"""What the grader prints and writes for people: a table per stage, grades.csv, a plot."""

from __future__ import annotations

import csv
import os
import pathlib
import textwrap
from collections.abc import Sequence

from grader.outputs.words import plural
from grader.results import LearnerResult
from grader.tasks import POINTS, STAGES, TASKS, tasks_of


def table(result: LearnerResult) -> str:
    lines = [f"Grades for {result.learner}"]
    lines += [f"  ! {p}" for p in result.problems]
    for stage, name in STAGES.items():
        score, most = result.stage_score(stage)
        lines.append(f"\nStage {stage} ({name}): {score:g} / {most:g}")
        for t in tasks_of(stage):
            r = result.tasks[t]
            mark = "ok " if r.score == r.max_score else "-- "
            lines.append(f"  {mark}Task {t:4s} {r.score:>4g} / {r.max_score:<4g}"
                         + (f"  corrected from {r.checked:g}: {r.reason}" if r.corrected is not None else ""))
            if r.message:
                lines.extend(textwrap.wrap(r.message, 88, initial_indent="        ", subsequent_indent="        ",
                                           max_lines=6))
    score, most = result.total
    lines.append(f"\nTotal: {score:g} / {most:g}")
    return "\n".join(lines)


def spreadsheet_safe(cell):
    """A cell that a spreadsheet shows as text and never runs: text starting with = + - @,
    a tab or a carriage return (a formula to Excel, LibreOffice and Google Sheets) gets a
    leading apostrophe. Numbers are left as they are."""
    if isinstance(cell, str) and cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(cell)
            return cell
        except ValueError:
            return "'" + cell
    return cell


class SafeWriter:
    """``csv.writer`` for files people open in a spreadsheet: learner ids and roster
    fields are whatever was handed in, so every cell goes through ``spreadsheet_safe``."""

    def __init__(self, file) -> None:
        self.writer = csv.writer(file)

    def writerow(self, row) -> None:
        self.writer.writerow([spreadsheet_safe(cell) for cell in row])


def write_csv(results: list[LearnerResult], path: pathlib.Path, refused: Sequence[tuple[str, str]] = (),
              missing: Sequence[str] = ()) -> None:
    """The column ``row`` says what each row is: ``maximum`` (the points possible, first),
    ``graded`` (one per learner: the total, each stage, each task, the hand-in's problems),
    ``missing`` (a learner of the roster with no hand-in: 0 everywhere) or ``refused`` (an
    entry of the submissions folder not taken for a hand-in, and why).
    Whatever a learner id is, it cannot pass for another kind of row."""
    columns = ["row", "learner", "total"] + [f"stage{s}" for s in STAGES] + [f"task{t}" for t in TASKS]
    tail = ["late_days", "penalty_percent", "final", "problems"]
    part = path.with_name(path.name + ".part")   # whole or not at all: a run killed here leaves the last one
    with part.open("w", newline="", encoding="utf-8") as file:
        writer = SafeWriter(file)
        writer.writerow(columns + tail)
        writer.writerow(["maximum", "", f"{sum(POINTS.values()):g}"]
                        + [f"{sum(POINTS[t] for t in tasks_of(s)):g}" for s in STAGES]
                        + [f"{POINTS[t]:g}" for t in TASKS] + ["", "", f"{sum(POINTS.values()):g}", ""])
        for r in sorted(results, key=lambda r: r.learner):
            writer.writerow(["graded", r.learner, f"{r.total[0]:g}"] + [f"{r.stage_score(s)[0]:g}" for s in STAGES]
                            + [f"{r.tasks[t].score:g}" for t in TASKS]
                            + [r.late_days, f"{r.penalty:g}", f"{r.final:g}", "; ".join(r.problems)])
        for learner in sorted(missing):
            writer.writerow(["missing", learner, "0"] + ["0"] * (len(STAGES) + len(TASKS)) + [0, "0", "0", "missing"])
        for name, reason in sorted(refused):
            writer.writerow(["refused", name] + [""] * (len(columns) + len(tail) - 3) + [reason])
    os.replace(part, path)


def plot_distribution(results: list[LearnerResult], path: pathlib.Path) -> None:
    from matplotlib.figure import Figure  # not pyplot: no global figures, a third less to import
    fig = Figure(figsize=(7, 3.5), layout="constrained")
    ax = fig.subplots()
    data = [[100 * r.stage_score(s)[0] / r.stage_score(s)[1] for r in results] for s in STAGES]
    ax.boxplot(data, tick_labels=["\n".join([s, *n[3:].split("_")]) for s, n in STAGES.items()])
    for i, values in enumerate(data, start=1):
        ax.scatter([i] * len(values), values, s=12, alpha=0.5)
    ax.set_ylabel("score (% of the stage)")
    ax.set_ylim(-5, 105)
    ax.set_title(f"scores of {plural(len(results), 'learner')} per stage")
    fig.savefig(path, dpi=110)
