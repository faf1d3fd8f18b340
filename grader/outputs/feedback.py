"""The learner's feedback page: every task, every part, its points and the reason for each
point lost. Everything that came from a learner (ids, messages quoting their exceptions,
file names) is escaped; the page holds no hidden check's source."""

from __future__ import annotations

import html
import pathlib
from collections.abc import Sequence

from grader.results import Failure, LearnerResult, Verdict
from grader.tasks import STAGES, TASKS, tasks_of

STYLE = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%;margin-bottom:1.5rem}td,th{border:1px solid #ccc;padding:.3rem .5rem;
vertical-align:top;text-align:left}.ok{color:#176b1d}.lost{color:#a12020}.part{padding-left:1.5rem}
.problems{background:#fff6e0;border:1px solid #e8c66b;padding:.5rem 1rem}"""


def page(result: LearnerResult, extra: Sequence[str] = ()) -> str:
    e = html.escape
    score, most = result.total
    body = [f"<h1>minitorch: feedback for {e(result.learner)}</h1>", f"<p><b>Total: {score:g} / {most:g}</b></p>"]
    imports = list(dict.fromkeys(v.message for v in result.all_verdicts() if v.kind is Failure.IMPORT_FAILED))
    notes = [*result.problems, *extra, *(f"{m[:1].upper()}{m[1:]}. Every part that needs the package lost its points "
                                         "to this one error: fix it first." for m in imports)]
    if notes:
        body.append("<div class='problems'><ul>" + "".join(f"<li>{e(p)}</li>" for p in notes) + "</ul></div>")
    for stage, name in STAGES.items():
        got, of = result.stage_score(stage)
        body.append(f"<h2>Stage {stage} ({e(name)}): {got:g} / {of:g}</h2><table>"
                    "<tr><th>task / part</th><th>points</th><th>why points were lost</th></tr>")
        for task in tasks_of(stage):
            r = result.tasks.get(task)
            if r is None:
                continue
            mark = "ok" if r.score == r.max_score else "lost"
            why = (f"corrected by the instructor from {r.checked:g} to {r.score:g}: {r.reason}"
                   if r.corrected is not None else "")
            body.append(f"<tr><td class='{mark}'><b>Task {task}</b>: {e(TASKS[task])}</td>"
                        f"<td class='{mark}'>{r.score:g} / {r.max_score:g}</td><td>{e(why)}</td></tr>")
            for v in r.verdicts:
                mark = "ok" if v.passed else "lost"
                body.append(f"<tr><td class='part {mark}'>{e(v.part)}</td><td class='{mark}'>{v.earned:g} / "
                            f"{v.points:g}</td><td>{e(_reason(v, imports))}</td></tr>")
        body.append("</table>")
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>minitorch feedback</title>"
            f"<style>{STYLE}</style></head><body>{''.join(body)}</body></html>")


def _reason(verdict: Verdict, imports: list[str]) -> str:
    """A part's reason; an import error, said once at the top of the page, is only pointed at."""
    if verdict.kind is Failure.IMPORT_FAILED and len(imports) == 1:
        return "not run: the package could not be imported (the error is at the top of this page)"
    return verdict.message


def write(result: LearnerResult, target: pathlib.Path, extra: Sequence[str] = (), made_from: str = "") -> pathlib.Path:
    """The page of ``result`` at ``target``. ``made_from``: a hash of all the page is made of
    (``class_grading.jobs.page_key``), kept in the page: a page that holds the same one is
    left as it is, not made again (a learner whose verdicts stand, in a re-run)."""
    head = f"<!DOCTYPE html><!-- made from {made_from} -->" if made_from else "<!DOCTYPE html>"
    if made_from:
        try:
            with target.open("rb") as file:
                if file.read(len(head)) == head.encode():
                    return target
        except OSError:
            pass
    # a name that was not UTF-8 on disk (surrogates) never stops the page: it is shown escaped
    body = (head + page(result, extra).removeprefix("<!DOCTYPE html>")).encode("utf-8", errors="backslashreplace")
    try:
        if target.stat().st_size == len(body) and target.read_bytes() == body:
            return target   # as it was (a learner whose verdicts stand): left alone, not written again
    except OSError:
        target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(body)
    return target
