"""What the class got wrong, for an instructor to read in a minute.

Every lost part carries a named mistake (``Verdict.mistake``). Two kinds are told apart:

* a hand-in whose package could not be graded in a stage (it does not import, there is
  none, the grader crashed on it, or it hung or died in every part of the stage): one line
  per learner with the stages and the reason (``not_graded``), never a row per part;
* the class's real mistakes, in packages that ran: counted per task, part and mistake and
  ranked by how many learners made them (``mistakes``).

Both go into ``mistakes.csv``, ``mistakes.png`` and ``report.html``; the report also has the
score distribution, each learner's total, late days, penalty and final score, and a link
to their feedback. Everything learner-supplied is escaped.
"""

from __future__ import annotations

import html
import pathlib
from collections import defaultdict

import grader.files as files
from grader.outputs.tables import SafeWriter
from grader.outputs.words import plural, spans
from grader.results import Failure, LearnerResult
from grader.tasks import STAGES, TASKS, TOTAL, stage_of

NOT_RUN = {Failure.IMPORT_FAILED, Failure.NO_PACKAGE, Failure.NOT_GRADED}  # the package itself, not a part of it
CHART = 20                          # the most common mistakes drawn in mistakes.png
CHART_UNGRADED = 10                 # learners named in it whose hand-in could not be graded


def _stages_not_graded(result: LearnerResult) -> dict[str, str]:
    """Stage -> why the package could not be graded there (the first such part's message)."""
    by_stage: dict[str, list] = defaultdict(list)
    for verdict in result.all_verdicts():
        by_stage[stage_of(verdict.task)].append(verdict)
    found = {}
    for stage, verdicts in by_stage.items():
        whole = [v for v in verdicts if v.kind in NOT_RUN and not v.passed]
        if not whole and all(not v.passed and v.kind is not None and v.kind.lost for v in verdicts):
            whole = verdicts
        if whole:
            found[stage] = whole[0].message
    return found


def not_graded(results: list[LearnerResult]) -> list[dict]:
    """One row per learner whose package could not be graded in some stage: (learner,
    stages, reason), the reason naming the stages it applies to when they differ."""
    rows = []
    for result in sorted(results, key=lambda r: r.learner):
        found = _stages_not_graded(result)
        if not found:
            continue
        why: dict[str, list[str]] = defaultdict(list)
        for stage, message in found.items():
            why[message].append(stage)
        reason = "; ".join(f"{spans(stages, list(STAGES))}: {message}" if len(why) > 1 else message
                                   for message, stages in why.items())
        rows.append({"learner": result.learner, "stages": spans(list(found), list(STAGES)), "reason": reason})
    return rows


def mistakes(results: list[LearnerResult]) -> list[dict]:
    """Rows (task, part, mistake, learners) of the real mistakes, the most common first."""
    who: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for result in results:
        skipped = _stages_not_graded(result)
        for verdict in result.all_verdicts():
            if verdict.passed or not verdict.mistake or verdict.kind in NOT_RUN | {Failure.NOT_IMPLEMENTED} \
                    or stage_of(verdict.task) in skipped:  # an empty stub is not a mistake to teach against
                continue
            who[(verdict.task, verdict.part, verdict.mistake)].add(result.learner)
    rows = [{"task": t, "part": p, "mistake": f, "learners": sorted(names)} for (t, p, f), names in who.items()]
    return sorted(rows, key=lambda r: (-len(r["learners"]), list(TASKS).index(r["task"]), r["part"], r["mistake"]))


def write_mistakes_csv(rows: list[dict], path: pathlib.Path, ungraded: list[dict] | None = None) -> None:
    """The ranked mistakes, then one ``not graded`` row per learner whose package could
    not be graded (its stages in ``part``, its reason in ``reason``)."""
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = SafeWriter(file)
        writer.writerow(["rank", "task", "part", "mistake", "learners", "which", "reason"])
        for rank, r in enumerate(rows, start=1):
            writer.writerow([rank, r["task"], r["part"], r["mistake"], len(r["learners"]), "; ".join(r["learners"]), ""])
        for u in ungraded or []:
            writer.writerow(["", "", u["stages"], "not graded", 1, u["learner"], u["reason"]])


def _short(text: str, most: int = 100) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def plot_mistakes(rows: list[dict], path: pathlib.Path, ungraded: list[dict] | None = None) -> None:
    """The ``CHART`` most common mistakes, coloured by stage, then (grey) one bar per
    learner whose hand-in could not be graded, with its reason."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator
    shown, ungraded = rows[:CHART], ungraded or []
    named = ungraded[:CHART_UNGRADED]
    labels = [f"{r['task']} {r['part']}: {r['mistake']}" for r in shown]
    labels += [_short(f"{u['learner']}, not graded ({u['stages']}): {u['reason']}") for u in named]
    counts = [len(r["learners"]) for r in shown] + [1] * len(named)
    colours = [f"C{list(STAGES).index(stage_of(r['task'])) % 10}" for r in shown] + ["0.6"] * len(named)
    fig = Figure(figsize=(10, 0.35 * max(len(labels), 2) + 1.2), layout="constrained")
    ax = fig.subplots()
    ax.barh(range(len(labels)), counts, color=colours)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("learners")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # whole learners
    title = "the class's most common mistakes" if shown else "no mistakes in the packages that ran"
    if ungraded:
        more = f" ({len(ungraded) - len(named)} more in report.html)" if len(ungraded) > len(named) else ""
        title += f"; {plural(len(ungraded), 'hand-in')} not graded{more}"
    fig.suptitle(title)
    fig.savefig(path, dpi=110)


def write_report(results: list[LearnerResult], rows: list[dict], out: pathlib.Path,
                 ungraded: list[dict] | None = None, missing: list[str] | None = None) -> pathlib.Path:
    """``report.html`` beside scores.png and mistakes.png, linking each learner's page
    (``feedback/<safe id>.html``); ``missing``: the roster's learners with no hand-in."""
    e, ungraded = html.escape, ungraded or []
    sids = {r.learner: r.sid for r in results}

    def link(learner: str) -> str:
        return f"<a href='{e('feedback/' + sids[learner] + '.html')}'>{e(learner)}</a>"

    stages = "".join(f"<th>stage {e(s)}</th>" for s in STAGES)
    people = "".join(
        f"<tr><td>{link(r.learner)}</td><td>{r.total[0]:g}</td>"
        + "".join(f"<td>{r.stage_score(s)[0]:g}</td>" for s in STAGES)
        + f"<td>{r.late_days}</td><td>{r.penalty:g}%</td><td><b>{r.final:g}</b></td></tr>"
        for r in sorted(results, key=lambda r: r.learner))
    table = "".join(f"<tr><td>{rank}</td><td>{e(r['task'])}</td><td>{e(r['part'])}</td><td>{e(r['mistake'])}</td>"
                    f"<td>{len(r['learners'])}</td><td>{', '.join(link(n) for n in r['learners'])}</td></tr>"
                    for rank, r in enumerate(rows, start=1))
    broken = "".join(f"<tr><td>{link(u['learner'])}</td><td>{e(u['stages'])}</td><td>{e(u['reason'])}</td></tr>"
                     for u in ungraded)
    broken = (f"<h2>Not graded: {plural(len(ungraded), 'hand-in')}</h2><p>Their package did not run in these "
              "stages (it does not import, hangs or is missing), so none of their parts counts as a mistake "
              "below.</p><table><tr><th>learner</th><th>stages</th><th>why</th></tr>"
              f"{broken}</table>") if ungraded else ""
    if missing:
        broken = (f"<h2>Missing: {plural(len(missing), 'learner')} of the roster, no hand-in (0)</h2><p>"
                  f"{e(', '.join(missing))}</p>") + broken
    page = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>class report</title><style>"
            "body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}"
            f"</style></head><body><h1>Class report: {plural(len(results), 'learner')}</h1>{broken}"
            "<h2>What the class got wrong, the most common first</h2>"
            "<img src='mistakes.png' alt='the most common mistakes'>"
            "<table><tr><th>rank</th><th>task</th><th>part</th><th>mistake</th><th>learners</th><th>who</th></tr>"
            f"{table}</table><h2>Scores per stage</h2><img src='scores.png' alt='score distribution per stage'>"
            f"<h2>Learners</h2><p>Out of {plural(TOTAL, 'point')}; the final score is the total less the late "
            f"penalty.</p><table><tr><th>learner</th><th>total</th>{stages}<th>late days</th><th>penalty</th>"
            f"<th>final</th></tr>{people}</table></body></html>")
    target = out / files.REPORT
    target.write_text(page, encoding="utf-8")
    return target
