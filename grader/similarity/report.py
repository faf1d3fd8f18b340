"""The copying check's two files, for the instructor only (never a feedback page):
``similarity.csv``, a row per pair and task where the two share uncommon code (a pair and
task with no row share none: at 300 hand-ins, writing those would be a million rows of
zeros), and ``similarity.html``, the pairs ranked, the highest shown side by side with
their matched lines marked."""

from __future__ import annotations

import html
import pathlib

from grader.outputs.tables import SafeWriter
from grader.similarity.code import TaskCode
from grader.similarity.compare import FLAG, REFERENCE, Pair, TaskMatch, line_ranges
from grader.tasks import TASKS

COLUMNS = ["learner_a", "learner_b", "task", "score", "lines"]
SHOWN = 40          # pairs shown side by side (and every pair flagged as matching the reference)
LISTED = 500        # pairs in the ranked table


def write_csv(pairs: list[Pair], target: pathlib.Path) -> None:
    with target.open("w", newline="", encoding="utf-8") as file:
        writer = SafeWriter(file)
        writer.writerow(COLUMNS)
        for pair in pairs:
            for t in pair.tasks:
                writer.writerow([pair.a, pair.b, t.task, f"{t.score:.3f}",
                                 f"{line_ranges(t.lines[0])} | {line_ranges(t.lines[1])}"])


def name(learner: str) -> str:
    return "the reference solution (solutions/minitorch)" if learner == REFERENCE else learner


def write_html(pairs: list[Pair], codes: dict[str, dict[str, TaskCode]], notes: dict[str, list[str]],
               target: pathlib.Path) -> None:
    e = html.escape
    shown = [p for i, p in enumerate(pairs[:LISTED]) if i < SHOWN or p.flagged]
    flagged = [p for p in pairs if p.flagged]
    parts = [HEAD, "<h1>Similarity of the hand-ins</h1>",
             f"<p>{len(codes) - 1} hand-in(s) and the reference solution, compared task by task on the code "
             "each task's regions fill (the released stubs' code left out). A pair's score is the share of the "
             "smaller side's uncommon code found in the other, over its tasks. A high score is a reason to read "
             "the pair, not a proof of copying: docs/INSTRUCTOR.md, “Checking for copying”.</p>"]
    if flagged:
        parts.append(f"<p class=flag>{len(flagged)} hand-in(s) match the reference solution (score at least "
                     f"{FLAG:g}): {e(', '.join(p.b if p.a == REFERENCE else p.a for p in flagged))}</p>")
    if notes:
        parts.append("<h2>Read only in part, or not at all</h2><ul>" + "".join(
            f"<li>{e(learner)}: {e('; '.join(why))}</li>" for learner, why in sorted(notes.items())) + "</ul>")
    parts.append("<h2>Pairs, highest score first</h2><table><tr><th>#</th><th>score</th><th>learner A</th>"
                 "<th>learner B</th><th>tasks alike (score of 0.5 or more)</th></tr>")
    for i, pair in enumerate(pairs[:LISTED], 1):
        alike = ", ".join(t.task for t in pair.tasks if t.score >= 0.5)
        link = f"<a href='#pair{i}'>{i}</a>" if pair in shown else str(i)
        parts.append(f"<tr{' class=flag' if pair.flagged else ''}><td>{link}</td><td>{pair.score:.2f}</td>"
                     f"<td>{e(name(pair.a))}</td><td>{e(name(pair.b))}</td><td>{e(alike)}</td></tr>")
    parts.append("</table>")
    if len(pairs) > LISTED:
        parts.append(f"<p>{len(pairs) - LISTED} more pair(s) with lower scores are in similarity.csv.</p>")
    for i, pair in enumerate(pairs[:LISTED], 1):
        if pair in shown:
            parts.append(_pair(i, pair, codes))
    target.write_text("\n".join(parts) + "\n</body></html>\n", encoding="utf-8")


def _pair(number: int, pair: Pair, codes: dict[str, dict[str, TaskCode]]) -> str:
    e = html.escape
    title = f"{number}. {name(pair.a)} and {name(pair.b)}: {pair.score:.2f}"
    if pair.flagged:
        title += ", matches the reference"
    out = [f"<h2 id='pair{number}'>{e(title)}</h2>"]
    for t in sorted(pair.tasks, key=lambda t: (-t.score * t.weight, t.task)):
        out.append(f"<h3>Task {e(t.task)}: {e(TASKS.get(t.task, ''))} — {t.score:.2f}</h3><div class=sides>")
        for side, learner in enumerate((pair.a, pair.b)):
            out.append(f"<div><p>{e(name(learner))}</p>{_code(codes[learner][t.task], t, side)}</div>")
        out.append("</div>")
    return "\n".join(out)


def _code(code: TaskCode, match: TaskMatch, side: int) -> str:
    marked = {(file, number) for _, file, number in match.lines[side]}
    blocks = []
    for where, numbered in code.shown.items():
        file = where.split(": ")[0]
        rows = [f"<span class=n>{n:4d}</span> " + (f"<mark>{html.escape(text)}</mark>" if (file, n) in marked
                                                  else html.escape(text)) for n, text in numbered]
        blocks.append(f"<p class=where>{html.escape(where)}</p><pre>" + "\n".join(rows) + "</pre>")
    return "".join(blocks)


HEAD = """<!doctype html><html><head><meta charset="utf-8"><title>Similarity of the hand-ins</title><style>
body{font-family:sans-serif;margin:2em;max-width:110em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}.flag{background:#fde2e2}
.sides{display:grid;grid-template-columns:1fr 1fr;gap:1em}pre{background:#f7f7f7;padding:.5em;overflow-x:auto}
mark{background:#ffe08a}.n{color:#999}.where{font-family:monospace;margin:.3em 0}
</style></head><body>"""
