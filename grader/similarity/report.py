"""``similarity.html``, for the instructor only (never a feedback page): what a flag rests
on, the flagged hand-ins, the pairs ranked, and the highest and every flagged pair side by
side, task by task, their matched lines marked, with who handed in first and each side's
kept hand-ins."""

from __future__ import annotations

import hashlib
import html
import json
import pathlib
from collections.abc import Mapping

from grader.similarity.cache import shown_of
from grader.similarity.code import TaskCode
from grader.similarity.compare import PAIR_FLAG, REFERENCE, REFERENCE_FLAG, Compared, Pair
from grader.similarity.tables import detailed, task_name, tasks_of
from grader.similarity.when import HandedIn, first, stamp
from grader.tasks import TASKS

SHOWN = 40          # pairs shown side by side (and every flagged pair, up to MOST_SHOWN)
LISTED = 500        # pairs in the ranked table
MOST_SHOWN = 200    # pairs side by side at most, flagged ones included (the rest are in the tables)

e = html.escape


def name(learner: str) -> str:
    return "the reference solution (solutions/minitorch)" if learner == REFERENCE else learner


def write_html(compared: Compared, codes: dict[str, Mapping[str, TaskCode]], notes: dict[str, list[str]],
               times: dict[str, HandedIn], target: pathlib.Path, names: Mapping[str, str] | None = None) -> None:
    """``names``: each side's read's name (cache.py), which decides its code and the pair's
    details: a pair's side-by-side part is taken from the last ``target`` when both reads
    and what it says of both sides' times are the same (a re-run after a few resubmissions
    makes only their pairs' parts again)."""
    pairs = detailed(compared)
    kept = _kept_parts(target) if names else {}
    shown = {id(p) for i, p in enumerate(pairs[:MOST_SHOWN]) if i < SHOWN or p.flagged}
    of_reference = [p.learner for p in pairs if p.flagged and p.with_reference]
    of_learners = [p for p in pairs if p.flagged and not p.with_reference]
    parts = [HEAD, "<h1>Similarity of the hand-ins</h1>",
             f"<p>{len(codes) - 1} hand-in(s) compared with each other and each with the reference solution, on "
             "every function each learner wrote (helpers written in where a task's function calls them), the "
             "released stubs' code left out. A hand-in is flagged as matching the reference when it shares "
             f"{REFERENCE_FLAG:.0%} or more of the reference's own code with it; two learners are flagged when they "
             f"share {PAIR_FLAG} or more fingerprints (about {PAIR_FLAG // 10} lines) of code that the reference "
             "does not hold. Neither depends on who else is in the class. A flag is a reason to read the pair, "
             "not a proof of copying: docs/INSTRUCTOR.md, “Checking for copying”.</p>"]
    if of_reference:
        parts.append(f"<p class=flag>{len(of_reference)} hand-in(s) match the reference solution: "
                     f"{e(', '.join(of_reference))}</p>")
    if of_learners:
        parts.append(f"<p class=flag>{len(of_learners)} pair(s) of learners flagged: "
                     f"{e('; '.join(f'{p.a} and {p.b}' for p in of_learners))}</p>")
    if notes:
        parts.append("<h2>Read only in part, or not at all</h2><ul>" + "".join(
            f"<li>{e(learner)}: {e('; '.join(why))}</li>" for learner, why in sorted(notes.items())) + "</ul>")
    parts.append("<h2>Pairs, flagged first, then by the uncommon code they share</h2><table><tr><th>#</th>"
                 "<th>score</th><th>shared</th><th>learner A</th><th>learner B</th><th>handed in first</th>"
                 "<th>tasks (shared fingerprints)</th></tr>")
    for i, pair in enumerate(pairs[:LISTED], 1):
        link = f"<a href='#pair{i}'>{i}</a>" if id(pair) in shown else str(i)
        parts.append(f"<tr{' class=flag' if pair.flagged else ''}><td>{link}</td><td>{pair.score:.2f}</td>"
                     f"<td>{pair.amount}</td><td>{e(name(pair.a))}</td><td>{e(name(pair.b))}</td>"
                     f"<td>{e(first(times.get(pair.a), times.get(pair.b), pair.a, pair.b))}</td>"
                     f"<td>{e(tasks_of(pair))}</td></tr>")
    parts.append("</table>")
    if sum(p.flagged for p in pairs) > MOST_SHOWN:
        parts.append(f"<p>Only the first {MOST_SHOWN} pairs are shown side by side below; every flagged pair is in "
                     "similarity-pairs.csv and similarity.csv, with its matched lines.</p>")
    if len(pairs) > LISTED:
        parts.append(f"<p>{len(pairs) - LISTED} more pair(s) with less shared code are in similarity-pairs.csv.</p>")
    made: dict = {}   # a side's code as shown, by learner, task and lines marked: the reference's repeats
    for i, pair in enumerate(pairs[:LISTED], 1):
        if id(pair) in shown:
            key = _key(pair, times, names or {})
            body = kept.get(key) if key else None
            parts.append(_title(i, pair) + (f"\n{PART}{key} -->\n" if key else "\n")
                         + (body if body is not None else _pair(pair, codes, times, made)) + (END if key else ""))
    target.write_text("\n".join(parts) + "\n</body></html>\n", encoding="utf-8")


def _title(number: int, pair: Pair) -> str:
    title = f"{number}. {name(pair.a)} and {name(pair.b)}: {pair.amount} fingerprints shared, score {pair.score:.2f}"
    if pair.flagged:
        title += ", matches the reference" if pair.with_reference else ", flagged"
    return f"<h2 id='pair{number}'>{e(title)}</h2>"


PART, END = "<!-- pair ", "<!-- end of the pair -->"   # around a pair's part (learners' text is escaped: no "<!")


def _key(pair: Pair, times: dict[str, HandedIn], names: Mapping[str, str]) -> str | None:
    """What a pair's side-by-side part is made from, hashed; None without both reads' names."""
    if pair.a not in names or pair.b not in names:
        return None
    said = [names[pair.a], names[pair.b], first(times.get(pair.a), times.get(pair.b), pair.a, pair.b),
            _times(pair.a, times.get(pair.a)), _times(pair.b, times.get(pair.b))]
    return hashlib.sha256(json.dumps(said).encode()).hexdigest()[:40]


def _kept_parts(target: pathlib.Path) -> dict[str, str]:
    """The pairs' parts of the last ``target``, by key (none if it cannot be read)."""
    try:
        pieces = target.read_text(encoding="utf-8").split(PART)[1:]
    except (OSError, ValueError):
        return {}
    kept = {}
    for piece in pieces:
        key, opened, rest = piece.partition(" -->\n")
        body, closed, _ = rest.partition(END)
        if opened and closed and len(key) == 40:
            kept[key] = body
    return kept


def _pair(pair: Pair, codes: dict[str, Mapping[str, TaskCode]], times: dict[str, HandedIn], made: dict) -> str:
    out = []
    if not pair.with_reference:
        out.append(f"<p>Handed in first: {e(first(times.get(pair.a), times.get(pair.b), pair.a, pair.b))}</p>")
    out.append("<div class=sides>" + "".join(f"<div>{_times(learner, times.get(learner))}</div>"
                                             for learner in (pair.a, pair.b)) + "</div>")
    for task, shared in pair.tasks.items():
        label = task_name(task) + (f": {TASKS[task]}" if task in TASKS else "")
        out.append(f"<h3>{e(label)} — {shared} fingerprints shared</h3><div class=sides>")
        for side, learner in enumerate((pair.a, pair.b)):
            marked = frozenset(pair.lines[side].get(task, ()))
            code = made.get((learner, task, marked))
            if code is None:
                code = made[learner, task, marked] = _code(shown_of(codes[learner], task), marked)
            out.append(f"<div><p>{e(name(learner))}</p>{code}</div>")
        out.append("</div>")
    return "\n".join(out)


def _times(learner: str, handed: HandedIn | None) -> str:
    if learner == REFERENCE or handed is None:
        return f"<p>{e(name(learner))}</p>"
    rows = "".join(f"<li>{e(stamp(k.when) if k.when else 'time not known')} ({e(k.source)}): {e(k.file)}</li>"
                   for k in handed.kept)
    kept = f"<ul>{rows}</ul>" if rows else "<p>no hand-in kept (a class graded as a term keeps every one)</p>"
    return f"<p><b>{e(learner)}</b>: handed in {e(handed.shown())} ({e(handed.source)}); kept hand-ins:</p>{kept}"


def _code(shown: dict[str, list[tuple[int, str]]] | None, marked: frozenset[tuple[str, int]]) -> str:
    if shown is None:
        return "<p>(the matched code is elsewhere in this hand-in: see the other tasks)</p>"
    blocks = []
    for where, numbered in shown.items():
        file = where.split(": ")[0]
        rows = [f"<span class=n>{n:4d}</span> " + (f"<mark>{e(text)}</mark>" if (file, n) in marked else e(text))
                for n, text in numbered]
        blocks.append(f"<p class=where>{e(where)}</p><pre>" + "\n".join(rows) + "</pre>")
    return "".join(blocks)


HEAD = """<!doctype html><html><head><meta charset="utf-8"><title>Similarity of the hand-ins</title><style>
body{font-family:sans-serif;margin:2em;max-width:110em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}.flag{background:#fde2e2}
.sides{display:grid;grid-template-columns:1fr 1fr;gap:1em}pre{background:#f7f7f7;padding:.5em;overflow-x:auto}
mark{background:#ffe08a}.n{color:#999}.where{font-family:monospace;margin:.3em 0}
</style></head><body>"""
