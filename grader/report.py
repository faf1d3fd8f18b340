"""What the grader prints and writes: a table per stage, grades.csv, a score plot."""

from __future__ import annotations

import csv
import pathlib
import textwrap

from .course import LearnerResult
from .tasks import POINTS, STAGES, TASKS


def table(result: LearnerResult) -> str:
    lines = [f"Grades for {result.learner}"]
    for problem in result.problems:
        lines.append(f"  ! {problem}")
    for stage, name in STAGES.items():
        score, most = result.stage_score(stage)
        lines.append(f"\nStage {stage} ({name}): {score:g} / {most:g}")
        for t in (t for t in TASKS if t.split(".")[0] == stage):
            r = result.tasks[t]
            mark = "ok " if r.score == r.max_score else "-- "
            lines.append(f"  {mark}Task {t:4s} {r.score:>3g} / {r.max_score:<3g}")
            if r.message:
                lines.extend(textwrap.wrap(r.message, 88, initial_indent="        ", subsequent_indent="        "))
    score, most = result.total
    lines.append(f"\nTotal: {score:g} / {most:g}")
    return "\n".join(lines)


def write_csv(results: list[LearnerResult], path: pathlib.Path) -> None:
    """One row per learner: the total, each stage, each task."""
    columns = ["learner", "total"] + [f"stage{s}" for s in STAGES] + [f"task{t}" for t in TASKS]
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(columns + ["problems"])
        writer.writerow(["(maximum)", sum(POINTS.values())]
                        + [sum(POINTS[t] for t in TASKS if t.split(".")[0] == s) for s in STAGES]
                        + [POINTS[t] for t in TASKS] + [""])
        for r in sorted(results, key=lambda r: r.learner):
            writer.writerow([r.learner, r.total[0]] + [r.stage_score(s)[0] for s in STAGES]
                            + [r.tasks[t].score for t in TASKS] + ["; ".join(r.problems)])


def plot_distribution(results: list[LearnerResult], path: pathlib.Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
    data = [[100 * r.stage_score(s)[0] / r.stage_score(s)[1] for r in results] for s in STAGES]
    ax.boxplot(data, tick_labels=[f"{s}\n{n[3:]}" for s, n in STAGES.items()])
    for i, values in enumerate(data, start=1):
        ax.scatter([i] * len(values), values, s=12, alpha=0.5)
    ax.set_ylabel("score (% of the stage)")
    ax.set_ylim(-5, 105)
    ax.set_title(f"scores of {len(results)} learner(s) per stage")
    fig.savefig(path, dpi=110)
    plt.close(fig)
