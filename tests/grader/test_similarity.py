"""The copying check (``python -m grader similarity``; grader/similarity/): what it reads of a
task, that a disguise does not hide a copy, its precision on a class of honest hand-ins
written in six styles with two planted copies, and its files: exact columns, escaped code,
hostile hand-ins named rather than crashing it."""

import ast
import csv
import pathlib
import shutil
import zipfile

import pytest
from conftest import ROOT
from similarity_class import disguise, make_class, reference_bodies

from grader.commands import similarity as command
from grader.similarity.code import function_lines, text_lines
from grader.similarity.compare import REFERENCE, compare_class
from grader.similarity.read import read_class, read_reference, shape

HONEST = """
def backward(ctx, grad):
    '''The gradient.'''
    a, b = ctx.saved
    # scale by the other input
    left = grad * b
    right = grad * a
    return unbroadcast(left, a.shape), unbroadcast(right, b.shape)
"""
DISGUISED = """
def backward(ctx, grad):
    a, b = ctx.saved
    second = (grad
              * a)   # was: right
    first = grad*b
    return unbroadcast(first, a.shape), unbroadcast(second, b.shape)
"""


def lines(source: str) -> list[str]:
    functions = {node.name: node for node in ast.parse(source).body}
    return [line[0] for line in function_lines(functions, source.splitlines(), "backward", "f.py")[0]]


def test_names_layout_comments_and_docstrings_do_not_change_what_is_compared():
    honest, disguised = lines(HONEST), lines(DISGUISED)
    assert honest[0] == "v, v = v.saved" and "'''" not in "".join(honest) and "#" not in "".join(honest)
    assert honest == disguised   # renamed, reordered, laid out anew, commented otherwise: the same lines


def test_a_file_that_does_not_parse_is_read_as_text_less_its_comments():
    source = "class Mul:\n    def backward(ctx, grad):\n        return grad * b  # mine\n        )(\n\nx = 1\n"
    found, shown = text_lines(source.splitlines(), "Mul.backward", "f.py")
    assert [line[0] for line in found] == ["return grad * b", ")("] and shown[0] == (2, "    def backward(ctx, grad):")
    assert text_lines(source.splitlines(), "Mul.forward", "f.py") is None


def test_only_the_learners_lines_are_compared_never_the_released_stubs():
    reference = read_reference()
    units, given = shape()
    from grader.tasks import TASKS
    assert {u.task for u in units} == set(reference) == set(TASKS)   # every task has functions to compare
    assert all("NotImplementedError" in "".join(given[task]) for task in given)
    topological = "\n".join(line[0] for line in reference["1.3"].lines)
    assert "while v:" in topological and "def " not in topological and "Every node" not in topological


@pytest.fixture(scope="module")
def test_class(tmp_path_factory):
    folder = tmp_path_factory.mktemp("similarity") / "class"
    what = make_class(folder)
    from grader.intake.submissions import find_learners
    found, refused = find_learners(folder)
    assert not refused
    read = read_class(found, jobs=2)
    return what, read.codes, read.notes, compare_class(read.codes, read.prints)


@pytest.mark.slow
def test_the_planted_copies_rank_above_every_honest_pair(test_class):
    what, codes, notes, pairs = test_class
    assert not notes and set(codes) == set(what) | {REFERENCE} and all(len(c) == 25 for c in codes.values())
    planted = {frozenset(("copier-of-verbose", "verbose")), frozenset(("copier-of-reference", REFERENCE))}
    print("\nThe test class, ranked:")
    for rank, pair in enumerate(pairs, 1):
        kind = "planted" if frozenset((pair.a, pair.b)) in planted else "honest" if not {pair.a, pair.b} & {
            "copier-of-verbose", "copier-of-reference"} else "a copier and another"
        print(f"{rank:3d}. {pair.score:.3f}  {pair.a:20} {pair.b:20} {kind}{'  (matches the reference)' * pair.flagged}")
    honest = [p.score for p in pairs if not {p.a, p.b} & {"copier-of-verbose", "copier-of-reference"}]
    assert len(honest) == 21 and {frozenset((p.a, p.b)) for p in pairs[:2]} == planted
    assert min(p.score for p in pairs[:2]) > max(honest) + 0.3
    assert [p.b if p.a == REFERENCE else p.a for p in pairs if p.flagged] == ["copier-of-reference"]


@pytest.mark.slow
def test_the_disguise_changed_most_lines_of_the_copies(test_class):
    bodies = reference_bodies()
    changed = disguise(bodies)
    same = sum(1 for name in bodies for line in changed[name].splitlines() if line.strip() in bodies[name])
    assert same < 0.5 * sum(len(b.splitlines()) for b in bodies.values())


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


def test_the_command_writes_its_two_files_and_names_what_it_could_not_read(tmp_path, capsys):
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
    assert {("ana", "bo <b>"), ("ana", REFERENCE), ("bo <b>", REFERENCE)} <= pairs   # cy wrote nothing
    assert not [p for p in pairs if "cy" in p]
    unbroadcast = [row for row in rows[1:] if row[:3] == ["ana", REFERENCE, "2.2"]]
    assert unbroadcast[0][3] == "1.000" and unbroadcast[0][4] == "shapes.py:66-68 | shapes.py:66-68"
    page = (tmp_path / "out" / "similarity.html").read_text()
    assert "<script>" not in page and "&lt;/pre&gt;&lt;script&gt;" in page and "bo &lt;b&gt;" in page
    assert "cy: no task" in printed
    assert "fay: minitorch/numerical.py: central_difference is nested too deeply to parse: compared as text" in printed
    assert "minitorch/shapes.py does not parse" in printed.split("fay:")[1]


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

    def broken(*args):
        raise OSError("disk full")
    monkeypatch.setattr(reading, "read_class", broken)
    said = check.along_with_grading(found, tmp_path / "out", 1, tmp_path)
    assert said[0].startswith("warning: the similarity check stopped (OSError: disk full)")
