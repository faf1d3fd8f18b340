"""The copying check (``python -m grader similarity``; grader/similarity/): what it reads of a
package, that no disguise hides a copy, its verdicts on a class built as real classes are
(tests/grader/similarity_disguises.py: honest learners in six styles, some writing easy
tasks as the reference does, some in helpers of their own; disguised copies of a classmate
and of the reference), the same in every part of that class, and its files: exact columns,
times, escaped code, hostile hand-ins named rather than crashing it."""

import ast
import csv
import datetime as dt
import itertools
import os
import pathlib
import shutil
import time
import zipfile

import pytest
from conftest import ROOT
from similarity_class import disguise, reference_bodies
from similarity_disguises import COPIES, make_class

from grader.commands import similarity as command
from grader.similarity import normal
from grader.similarity.code import text_lines
from grader.similarity.compare import PAIR_FLAG, REFERENCE, compare_class
from grader.similarity.read import read_class, read_reference, shape

HONEST_CODE = """
def backward(ctx, grad):
    '''The gradient.'''
    a, b = ctx.saved
    # scale by the other input
    left = grad * b
    right = grad * a
    rows = []
    for row in right:
        if row is not None:
            rows.append(row * 2)
    return unbroadcast(left, a.shape), unbroadcast(rows, b.shape)
"""
DISGUISED_CODE = """
def backward(ctx, grad):
    unused = 3
    a, b = ctx.saved
    first = grad*b
    second = [r * 2 for r in (grad
              * a) if r is not None]   # was: right
    result = unbroadcast(first, a.shape), unbroadcast(second, b.shape)
    return result
    print("never")
"""


def tokens(source: str) -> list[str]:
    node = ast.parse(source).body[0]
    canon = normal.canonical(node)
    out: list = []
    for stmt in canon.body:
        normal.tokens(stmt, normal.bound_names(canon), stmt.lineno, "f.py", out)
    return [t[0] for t in out]


def test_names_loops_dead_code_layout_and_comments_do_not_change_what_is_compared():
    honest, disguised = tokens(HONEST_CODE), tokens(DISGUISED_CODE)
    assert "unbroadcast" in honest and ".shape" in honest and "right" not in honest and "ListComp" in honest
    assert len(honest) > 30 and len(set(honest) - {"v"}) > 10
    # renamed, a loop as a comprehension, a local returned, dead code before and after: the right
    # product computed inside the comprehension is the one difference left
    assert honest[:8] == disguised[:8] and honest[-12:] == disguised[-12:]


def test_a_file_that_does_not_parse_is_read_as_text_less_its_comments():
    source = "class Mul:\n    def backward(ctx, grad):\n        return grad * b  # mine\n        )(\n\nx = 1\n"
    found, shown = text_lines(source.splitlines(), "Mul.backward", "f.py")
    assert [t[0] for t in found] == ["return", "grad", "*", "b", ")", "("] and shown[0] == (2, "    def backward(ctx, grad):")
    assert text_lines(source.splitlines(), "Mul.forward", "f.py") is None


def test_only_the_learners_code_is_compared_never_the_released_stubs():
    reference, known = read_reference(), shape()
    from grader.tasks import TASKS
    assert {u.task for u in known.units} == set(TASKS) <= set(reference.codes)   # every task has code to compare
    assert len(known.base) > 1000 and not known.base & reference.prints.keys()
    shown = "".join(text for _, text in reference.codes["1.3"].shown["autodiff.py: topological_order"])
    assert "while " in shown and "def topological_order" in shown


@pytest.fixture(scope="module")
def test_class(tmp_path_factory):
    from grader.tasks import STAGES
    if set(STAGES) != {str(n) for n in range(1, 8)}:   # a course adapted by its instructor (docs/INSTRUCTOR.md)
        pytest.skip("the disguised class (similarity_disguises.py) was built from the kit's own seven stages")
    folder = tmp_path_factory.mktemp("similarity") / "class"
    what = make_class(folder)
    from grader.intake.submissions import find_learners
    found, refused = find_learners(folder)
    assert not refused
    from grader.similarity import read as reading
    pool_from, reading.POOL_FROM = reading.POOL_FROM, 1   # read in a pool of processes, as a large class is
    try:
        read = read_class(found, jobs=2)
    finally:
        reading.POOL_FROM = pool_from
    return what, read, found


def compared(read, names, detailed=1000):
    codes = {k: v for k, v in read.codes.items() if k in names or k == REFERENCE}
    return compare_class(codes, {k: read.prints[k] for k in codes}, detailed).pairs


COPY_PAIRS = {frozenset((copier, REFERENCE if source == "reference" else source)) for copier, source in COPIES.items()}


def test_every_disguised_copy_ranks_above_every_honest_pair_and_is_flagged(test_class):
    what, read, _ = test_class
    assert not read.notes and set(read.codes) == set(what) | {REFERENCE}
    pairs = compared(read, set(what))
    print("\nThe test class, ranked:")
    for rank, pair in enumerate(pairs, 1):
        kind = "copy" if frozenset((pair.a, pair.b)) in COPY_PAIRS else "honest" if not {pair.a, pair.b} & set(
            COPIES) else "a copier and another"
        print(f"{rank:3d}. {pair.amount:5d} {pair.uncommon:5d} {pair.score:.2f}  {pair.a:20} {pair.b:20} {kind}"
              f"{'  FLAGGED' * pair.flagged}")
    ranked = [frozenset((p.a, p.b)) for p in pairs]
    honest = [p for p in pairs if not {p.a, p.b} & set(COPIES)]
    top = pairs[:len(COPY_PAIRS)]
    assert len(honest) >= 15 and {frozenset((p.a, p.b)) for p in top} == COPY_PAIRS
    assert all(p.flagged for p in top) and not any(p.flagged for p in honest)
    assert min(p.amount for p in top) > 2 * max(p.amount for p in honest)   # far apart, not just apart
    copy_of_verbose = pairs[ranked.index(frozenset(("copier-of-verbose", "verbose")))]
    assert len([t for t, n in copy_of_verbose.tasks.items() if n >= 10]) >= 20   # moved into helpers, still every task


def test_the_same_pair_gets_the_same_verdict_whoever_else_is_in_the_class(test_class):
    what, read, _ = test_class
    names = sorted(what)
    verdicts: dict[frozenset, set[bool]] = {}
    parts = [()] + [(n,) for n in names] + list(itertools.combinations(names, 2)) + \
        list(itertools.combinations(names, 5))[::8] + [tuple(names)]
    for part in parts:
        pairs = compared(read, set(part), detailed=0)
        for pair in pairs:
            verdicts.setdefault(frozenset((pair.a, pair.b)), set()).add(pair.flagged)
        for copier in {"copier-of-reference", "mover-of-reference"} & set(part):   # alone, or with 1, 4 or 8 others
            assert any(p.flagged and p.learner == copier for p in pairs if p.with_reference), part
    assert all(len(v) == 1 for v in verdicts.values()), {k: v for k, v in verdicts.items() if len(v) > 1}
    assert {k for k, v in verdicts.items() if True in v} == COPY_PAIRS   # and no honest learner, in any part
    tutorial = [p for p in compared(read, {"beginner", "defensive"}) if not p.with_reference][0]
    assert tutorial.tasks.get("1.1", 0) >= 30 and tutorial.amount < PAIR_FLAG   # one short task alike: no evidence


def test_the_disguise_changed_most_lines_of_the_copies_and_moved_every_body(test_class):
    bodies = reference_bodies()
    changed = disguise(bodies)
    same = sum(1 for name in bodies for line in changed[name].splitlines() if line.strip() in bodies[name])
    assert same < 0.5 * sum(len(b.splitlines()) for b in bodies.values())
    what, read, _ = test_class
    shown = read.codes["copier-of-reference"]["1.3"].shown
    assert any(": _part" in where for where in shown)   # the task's function calls a helper, inlined
    assert any(where.startswith("my_helpers.py: _part") for where in read.codes["mover-of-reference"]["1.3"].shown)


def test_a_pair_says_who_handed_in_first_and_each_sides_kept_hand_ins(test_class, tmp_path):
    from grader.similarity.compare import compare_class
    from grader.similarity.report import write_html
    from grader.similarity.tables import write_pairs
    from grader.similarity.when import handed_in
    from grader.term import kept
    what, read, found = test_class
    out = tmp_path / "out"
    out.mkdir()
    (out / "submitted.csv").write_text("learner,submitted_at\nverbose,2026-11-02T10:00:00+00:00\n"   # zoe: no hand-in
                                       "copier-of-verbose,2026-11-02T12:30:00+00:00\nzoe,2026-11-03T08:00:00+00:00\n")
    early = next(f for f in found if f.learner == "verbose")
    kept.keep(out, early.sid, early.path, dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC), "submitted.csv")
    times, warnings = handed_in(found, out)
    assert times["verbose"].source == "submitted.csv" and len(times["verbose"].kept) == 1
    compared = compare_class(read.codes, read.prints)
    write_pairs(compared, times, out / "similarity-pairs.csv")
    with (out / "similarity-pairs.csv").open() as file:
        row = next(r for r in csv.DictReader(file) if {r["learner_a"], r["learner_b"]} == {"verbose", "copier-of-verbose"})
    assert row["flagged"] == "yes" and int(row["shared"]) >= PAIR_FLAG and int(row["matched_lines"]) > 100
    assert {row["handed_in_a"], row["handed_in_b"]} == {"2026-11-02 10:00:00 UTC", "2026-11-02 12:30:00 UTC"}
    assert row["first"] == "verbose, 2 h 30 min before copier-of-verbose"
    write_html(compared, read.codes, read.notes, times, out / "similarity.html")
    page = (out / "similarity.html").read_text()
    assert "Handed in first: verbose, 2 h 30 min before copier-of-verbose" in page
    assert "2026-11-01 09:00:00 UTC (submitted.csv)" in page   # verbose's kept hand-in
    assert "1 pair(s) of learners flagged: copier-of-verbose and verbose" in page


def hand_ins(folder: pathlib.Path) -> None:
    """A small class as learners hand it in: a zip, a folder, a copy with a file that does not
    parse, code nested too deeply to read, a broken zip, a link, and code and ids that would
    be markup."""
    folder.mkdir()
    shutil.copytree(ROOT / "solutions" / "minitorch", folder / "ana" / "minitorch")
    (folder / "ana" / "minitorch" / "ops_unary.py").write_text(
        (ROOT / "solutions" / "minitorch" / "ops_unary.py").read_text().replace(
            "return grad * out\n", "return grad * out  # </pre><script>alert(1)</script>\n", 1))
    shutil.copytree(ROOT / "solutions" / "minitorch", folder / "bo <b>" / "minitorch")
    broken = folder / "bo <b>" / "minitorch" / "shapes.py"
    broken.write_text(broken.read_text().replace("extra = grad.ndim - len(shape)", "extra = grad.ndim - len(shape"))
    with zipfile.ZipFile(folder / "cy.zip", "w") as archive:
        for path in (ROOT / "minitorch").rglob("*.py"):
            archive.write(path, "minitorch/" + path.relative_to(ROOT / "minitorch").as_posix())
    shutil.copytree(ROOT / "minitorch", folder / "fay" / "minitorch")   # sums nested too deep to rewrite, and to parse
    deep = folder / "fay" / "minitorch" / "numerical.py"
    deep.write_text(deep.read_text().replace('raise NotImplementedError("Task 1.1: central_difference")',
                                             "return " + "+".join(["eps"] * 1000)))
    shapes = folder / "fay" / "minitorch" / "shapes.py"
    shapes.write_text(shapes.read_text().replace('raise NotImplementedError("Task 2.2: unbroadcast")',
                                                 "return " + "+".join(["grad"] * 5000)))
    (folder / "dee.zip").write_bytes(b"PK\x03\x04 not a zip")
    (folder / "eve").symlink_to(folder / "ana")


def test_the_command_writes_its_files_and_names_what_it_could_not_read(tmp_path, capsys):
    hand_ins(tmp_path / "class")
    assert command.main(submissions=tmp_path / "class", out=tmp_path / "out") == 0
    printed = capsys.readouterr().out
    assert "matches the reference: ana" in printed and "matches the reference: bo <b>" in printed
    assert "dee: dee.zip is not a readable .zip file" in printed and "refused 'eve': a symbolic link" in printed
    assert "bo <b>: minitorch/shapes.py does not parse at line" in printed
    with (tmp_path / "out" / "similarity.csv").open() as file:
        rows = list(csv.reader(file))
    assert rows[0] == ["learner_a", "learner_b", "task", "score", "lines"]
    assert all(0 <= float(row[3]) <= 1 for row in rows[1:])
    pairs = {(a, b) for a, b, *_ in rows[1:]}
    # ana and bo are both the reference: each matches it; what they share with each other is the
    # reference's code, which is no evidence between two learners. cy wrote nothing; fay's code
    # cannot be parsed and is the released stubs' else
    assert pairs == {("ana", REFERENCE), ("bo <b>", REFERENCE)}
    unbroadcast = [row for row in rows[1:] if row[:3] == ["ana", REFERENCE, "2.2"]]
    assert unbroadcast[0][3] == "1.000" and unbroadcast[0][4].endswith("66-68 | shapes.py:61-62,66-68")
    with (tmp_path / "out" / "similarity-pairs.csv").open() as file:
        table = list(csv.DictReader(file))
    assert list(table[0]) == ["learner_a", "learner_b", "flagged", "score", "shared", "matched_lines", "tasks",
                              "handed_in_a", "handed_in_b", "first"]
    assert [(r["learner_a"], r["flagged"]) for r in table] == [("ana", "yes"), ("bo <b>", "yes")]
    assert "2.2(" in table[0]["tasks"] and "2.2(" not in table[1]["tasks"]   # bo's shapes.py is read as text
    page = (tmp_path / "out" / "similarity.html").read_text()
    assert "<script>" not in page and "&lt;/pre&gt;&lt;script&gt;" in page and "bo &lt;b&gt;" in page
    assert "cy: no task" in printed and "no late penalty" in printed   # copied folders: no time told
    fay = next(line for line in printed.splitlines() if line.strip().startswith("fay:"))
    assert "minitorch/numerical.py: central_difference is nested too deeply to parse: compared as text" in fay
    assert "minitorch/shapes.py does not parse" in fay


def test_a_rerun_reads_only_changed_hand_ins_and_writes_what_a_run_without_kept_reads_writes(tmp_path, capsys):
    import json

    from grader.similarity import cache, framing
    from grader.term.kept import content_of
    hand_ins(tmp_path / "class")
    assert command.main(submissions=tmp_path / "class", out=tmp_path / "first") == 0
    kept = tmp_path / "first" / cache.FOLDER
    assert len(list(kept.glob("*.read"))) == 5   # every hand-in read to its end (eve is refused)
    for path in kept.glob("*.read"):             # nothing that a moved folder would not find
        assert all(str(tmp_path).encode() not in part for part in framing.parts_of(path, 4))
    ana = tmp_path / "class" / "ana" / "minitorch" / "ops_unary.py"
    ana.write_text(ana.read_text().replace("return grad * out  #", "return out * grad  #"))   # ana hands in again
    bo = kept / cache.name_of(cache.key_of("bo <b>", content_of(tmp_path / "class" / "bo <b>")))
    bo.write_bytes(bo.read_bytes()[:-40])                                           # cut short
    cy = kept / cache.name_of(cache.key_of("cy", content_of(tmp_path / "class" / "cy.zip")))
    fay = kept / cache.name_of(cache.key_of("fay", content_of(tmp_path / "class" / "fay")))
    shutil.copyfile(fay, cy)                                                       # another's, in cy's place
    dee = kept / cache.name_of(cache.key_of("dee", content_of(tmp_path / "class" / "dee.zip")))
    head, *rest = framing.parts_of(dee, 4)
    dee.write_bytes(framing.framed([json.dumps({**json.loads(head), "coded": [0]}).encode(), *rest]))   # its
    # key, values of the wrong types
    (tmp_path / "first").rename(tmp_path / "moved")
    capsys.readouterr()
    assert command.main(submissions=tmp_path / "class", out=tmp_path / "moved") == 0
    assert "(1 unchanged since the last run, kept in similarity-reads/)" in capsys.readouterr().out   # fay
    assert len(list((tmp_path / "moved" / cache.FOLDER).glob("*.read"))) == 5   # ana's old read gone, the others again
    assert sorted(p.suffix for p in (tmp_path / "moved" / cache.FOLDER).iterdir()) == \
        [".base", ".details"] + [".read"] * 5   # and the base code's fingerprints, and the pairs' details, once
    assert command.main(submissions=tmp_path / "class", out=tmp_path / "cold") == 0
    for name in ("similarity-pairs.csv", "similarity.csv", "similarity.html"):   # (the page's parts taken back)
        assert (tmp_path / "moved" / name).read_bytes() == (tmp_path / "cold" / name).read_bytes()
    page = tmp_path / "moved" / "similarity.html"
    assert "return out * grad" in page.read_text()   # ana's new code
    page.write_text(page.read_text().replace("<p>bo &lt;b&gt;</p>", "<p>bo &lt;b&gt; (as kept)</p>"))
    # the pairs' details are taken back where both sides are unchanged: a forged one shows it
    from grader.similarity import details
    kept = details.load_details(tmp_path / "moved")
    assert len(kept) == 2 and all(a and b for a, b in kept)
    names = next(pair for pair in kept if bo.name in pair)   # bo with the reference: unchanged below
    tasks, lines = kept[names]
    kept[names] = ({"2.2": 999, **tasks}, lines)
    details.store_details(tmp_path / "moved", kept)
    ana.write_text(ana.read_text().replace("return out * grad  #", "return (out * grad)  #"))   # ana again
    assert command.main(submissions=tmp_path / "class", out=tmp_path / "moved") == 0
    shares = (tmp_path / "moved" / "similarity.csv").read_text()
    assert "bo <b>,solutions/minitorch,2.2,1.000," in shares   # (its share is capped at 1)
    assert "2.2(999)" in (tmp_path / "moved" / "similarity-pairs.csv").read_text()
    assert "bo &lt;b&gt; (as kept)" in page.read_text() and "return (out * grad)" in page.read_text()   # ana's remade
    (tmp_path / "moved" / cache.FOLDER / details.DETAILS).write_bytes(   # the right hash, values of the wrong types
        framing.framed([b'[["a", "b", {"2.2": "many"}, {}, {}]]']))
    assert details.load_details(tmp_path / "moved") == {}


def test_the_command_refuses_an_output_inside_the_submissions(tmp_path, capsys):
    (tmp_path / "class").mkdir()
    assert command.main(submissions=tmp_path / "class", out=tmp_path / "class" / "out") == 2
    assert "overlap" in capsys.readouterr().err


def test_grading_runs_the_check_for_a_class_it_can_compare_and_never_fails_for_it(tmp_path, monkeypatch):
    import grader.similarity as check
    import grader.similarity.read as reading
    from grader.intake.submissions import Found
    found = [Found(name, name, tmp_path / name) for name in ("ana", "bo")]
    monkeypatch.setattr(check, "AT_MOST_ALONG", 1)
    said = check.along_with_grading(found, tmp_path / "out", 1, tmp_path)
    assert "2 hand-ins are more than the 1 checked along with grading" in said[0] and not (tmp_path / "out").exists()
    monkeypatch.setattr(check, "AT_MOST_ALONG", 2)

    def broken(*args, **kwargs):
        raise OSError("disk full")
    monkeypatch.setattr(reading, "read_class", broken)
    said = check.along_with_grading(found, tmp_path / "out", 1, tmp_path)
    assert said[0].startswith("warning: the similarity check stopped (OSError: disk full)")


def test_the_check_beside_a_run_writes_nothing_before_the_plan_and_nothing_for_a_run_that_stops(tmp_path):
    from grader.intake.submissions import find_learners
    from grader.similarity import Beside
    hand_ins(tmp_path / "class")
    found = find_learners(tmp_path / "class")[0]
    out = tmp_path / "out"
    stopped = Beside(found, out, 2, tmp_path / "class")
    pid = stopped.pid
    assert pid   # forked: it reads and compares while the run sets up
    time.sleep(1.5)
    stopped.stop()       # the run stopped before its plan (a wrong row in a sheet)
    assert not out.exists()
    with pytest.raises(ChildProcessError):   # ended and reaped
        os.waitpid(pid, os.WNOHANG)
    out.mkdir()
    started = Beside(found, out, 2, tmp_path / "class")
    time.sleep(0.5)
    assert list(out.iterdir()) == []
    started.go()
    said = started.lines()
    assert said[0].startswith("Similarity: 5 hand-in(s) and the reference read in ") and started.pid == 0
    assert {p.name for p in out.iterdir()} >= {"similarity-pairs.csv", "similarity.csv", "similarity.html",
                                                "similarity-inputs.txt", "similarity-reads"}


def test_a_kept_reading_is_taken_back_whole_or_not_at_all(tmp_path, monkeypatch):
    import json

    import numpy as np

    from grader.similarity import cache, framing
    from grader.similarity.code import TaskCode
    codes = {"1.1": TaskCode([("x", "a.py", 3), ("=", "a.py", 3)], {"a.py: f": [(3, "x =")]})}
    key, prints = cache.key_of("ana", "c0"), {7: [("1.1", 0)], -2**63: [("1.1", 1)]}
    cache.store(tmp_path, key, codes, prints, ["a note"])
    got = cache.load(tmp_path, key)
    assert got is not None and dict(got[0]) == codes and dict(got[1]) == prints and got[2] == ["a note"]
    assert cache.shown_of(got[0], "1.1") == {"a.py: f": [(3, "x =")]} and cache.shown_of(got[0], "2.1") is None
    path = tmp_path / cache.FOLDER / cache.name_of(key)
    head, numbers, *rest = framing.parts_of(path, 4, packed=(2, 3))
    for forged in ([head, np.array([[7], [0], [-1]], dtype="<i8").tobytes(), *rest],        # a token's place < 0
                   [head, np.array([[7], [5], [0]], dtype="<i8").tobytes(), *rest],         # no such task
                   [json.dumps({**json.loads(head), "coded": []}).encode(), numbers, *rest],  # prints of no code
                   [head, numbers]):                                                        # a part missing
        path.write_bytes(framing.framed([p if i < 2 else framing.unpacked(p) for i, p in enumerate(forged)]))
        assert cache.load(tmp_path, key) is None   # read again, never a crash
    path.unlink()
    monkeypatch.setattr(framing, "AT_MOST", 100)   # a reading too large to be taken back is not kept
    cache.store(tmp_path, key, codes, prints, ["a note"])
    assert not path.exists()


def test_a_kept_pairs_lines_are_made_when_asked_for_and_written_back_as_read(tmp_path):
    import json

    from grader.similarity import details, framing
    from grader.similarity.cache import FOLDER
    (tmp_path / FOLDER).mkdir()
    rows = [["a", "b", {"2.2": 3}, {"2.2": [["shapes.py", 71], ["shapes.py", 70]]}, {}],
            ["c", "d", {"2.2": 1}, {"2.2": [["shapes.py"]]}, {}]]   # c and d's lines cut short
    (tmp_path / FOLDER / details.DETAILS).write_bytes(framing.framed([json.dumps(rows).encode()]))
    kept = details.load_details(tmp_path)
    assert sorted(kept) == [("a", "b"), ("c", "d")]
    assert kept["a", "b"] == ({"2.2": 3}, ({"2.2": {("shapes.py", 70), ("shapes.py", 71)}}, {}))
    with pytest.raises((TypeError, ValueError)):
        kept["c", "d"]
    made = ({"2.2": 1}, ({"2.2": {("shapes.py", 9), ("shapes.py", 8)}}, {}))   # worked out again
    details.store_details(tmp_path, {("a", "b"): kept["a", "b"], ("c", "d"): made}, kept)
    again = framing.unpack(tmp_path / FOLDER / details.DETAILS)
    assert again == [rows[0], ["c", "d", {"2.2": 1}, {"2.2": [["shapes.py", 8], ["shapes.py", 9]]}, {}]]


def test_a_kept_reads_occurrences_are_those_of_its_fingerprints(tmp_path):
    from grader.similarity import cache, engine
    codes = {"3.1": next(iter(read_reference().codes.values()))}
    prints = engine.fingerprint(codes, frozenset())
    cache.store(tmp_path, cache.key_of("ana", "c1"), codes, prints, [])
    lazy = cache.load(tmp_path, cache.key_of("ana", "c1"))[1]
    mine, plain = engine.occurrences(lazy), engine.occurrences(dict(prints))
    for one, other in zip(mine[:3], plain[:3]):
        assert len(one) > 10 and one.shape == other.shape
    assert mine[0].tolist() == plain[0].tolist() and mine[2].tolist() == plain[2].tolist()
    assert [mine[3][t] for t in mine[1].tolist()] == [plain[3][t] for t in plain[1].tolist()]
