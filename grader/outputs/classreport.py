"""What the class got wrong: every lost part carries a named pitfall (``Verdict.pitfall``);
here they are counted per task and part (``mistakes.csv``), drawn (``mistakes.png``: the
most common mistakes of each stage) and put on one page with the score distribution and a
link to each learner's feedback (``report.html``). Everything learner-supplied is escaped."""

from __future__ import annotations

import html
import pathlib
from collections import defaultdict

from grader.outputs.tables import SafeWriter
from grader.results import Failure, LearnerResult
from grader.tasks import STAGES, TASKS, stage_of


def mistakes(results: list[LearnerResult]) -> list[dict]:
    """Rows (task, part, pitfall, learners) sorted by stage, then by how many made it."""
    who: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for result in results:
        for verdict in result.all_verdicts():
            # an empty stub is not a mistake to teach against
            if not verdict.passed and verdict.pitfall and verdict.kind is not Failure.NOT_IMPLEMENTED:
                who[(verdict.task, verdict.part, verdict.pitfall)].add(result.learner)
    rows = [{"task": t, "part": p, "pitfall": f, "learners": sorted(names)} for (t, p, f), names in who.items()]
    return sorted(rows, key=lambda r: (list(TASKS).index(r["task"]), -len(r["learners"]), r["part"], r["pitfall"]))


def write_mistakes_csv(rows: list[dict], path: pathlib.Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = SafeWriter(file)
        writer.writerow(["task", "part", "pitfall", "learners", "which"])
        for r in rows:
            writer.writerow([r["task"], r["part"], r["pitfall"], len(r["learners"]), "; ".join(r["learners"])])


def plot_mistakes(rows: list[dict], path: pathlib.Path, per_stage: int = 4) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
    shown = []
    for stage in STAGES:
        ours = sorted((r for r in rows if stage_of(r["task"]) == stage), key=lambda r: -len(r["learners"]))
        shown += ours[:per_stage]
    fig, ax = plt.subplots(figsize=(8, 0.35 * max(len(shown), 2) + 1), layout="constrained")
    labels = [f"{r['task']} {r['part']}: {r['pitfall']}" for r in shown]
    ax.barh(range(len(shown)), [len(r["learners"]) for r in shown],
            color=[f"C{int(stage_of(r['task'])) - 1}" for r in shown])
    ax.set_yticks(range(len(shown)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("learners")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # whole learners
    ax.set_title("the most common mistakes of each stage" if shown else "no mistakes")
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(results: list[LearnerResult], rows: list[dict], out: pathlib.Path) -> pathlib.Path:
    """``report.html`` beside scores.png and mistakes.png, linking each learner's page
    (``feedback/<safe id>.html``)."""
    e = html.escape
    stages = "".join(f"<th>{e(s)}</th>" for s in STAGES)
    people = "".join(
        f"<tr><td><a href='{e('feedback/' + r.sid + '.html')}'>{e(r.learner)}</a></td><td>{r.total[0]:g}</td>"
        + "".join(f"<td>{r.stage_score(s)[0]:g}</td>" for s in STAGES) + "</tr>"
        for r in sorted(results, key=lambda r: r.learner))
    table = "".join(f"<tr><td>{e(r['task'])}</td><td>{e(r['part'])}</td><td>{e(r['pitfall'])}</td>"
                    f"<td>{len(r['learners'])}</td><td>{e(', '.join(r['learners']))}</td></tr>" for r in rows)
    page = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>class report</title><style>"
            "body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}"
            f"</style></head><body><h1>Class report: {len(results)} learner(s)</h1>"
            "<h2>Scores per stage</h2><img src='scores.png' alt='score distribution per stage'>"
            "<h2>What the class got wrong</h2><img src='mistakes.png' alt='most common mistakes'>"
            "<table><tr><th>task</th><th>part</th><th>mistake</th><th>learners</th><th>who</th></tr>"
            f"{table}</table><h2>Learners</h2><table><tr><th>learner</th><th>total</th>{stages}</tr>{people}"
            "</table></body></html>")
    target = out / "report.html"
    target.write_text(page, encoding="utf-8")
    return target
