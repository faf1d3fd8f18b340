"""The submissions folder's entries and grades.csv: every entry is a hand-in graded under an
id no other shares (in grades.csv, as a safe id, as a feedback file, even where case is
ignored) or a refusal named with its reason; grades.csv says what each row is."""

import csv
import json
import os
import unicodedata

import pytest

from grader.intake.submissions import assign_sids, find_learners, safe_id
from grader.outputs.publish import merge, write_part
from grader.outputs.tables import write_csv
from grader.results import Failure, LearnerResult, failed_everywhere

NAMES = ["ana", "Ana", "   ", "-dash", "l" * 200, unicodedata.normalize("NFC", "crème"),
         unicodedata.normalize("NFD", "crème"), os.fsdecode(b"caf\xe9"), "caf\\xe9", "new\nline", "(maximum)",
         "dup", "dup.zip", "x.ZIP"]
HIDDEN = ["...zip", ".DS_Store", "._ana.zip", "..."]


@pytest.fixture()
def submissions(tmp_path):
    (tmp_path / "in").mkdir()
    for name in NAMES + HIDDEN:
        path = tmp_path / "in" / name
        if name.lower().endswith(".zip") or name == ".DS_Store":
            path.write_bytes(b"PK")
        else:
            path.mkdir()
    return tmp_path / "in"


def test_every_entry_is_a_hand_in_or_a_refusal_named_with_its_reason(submissions):
    found, refused = find_learners(submissions)
    assert len(found) + len(refused) == len(os.listdir(submissions)) == len(NAMES + HIDDEN)
    assert sorted(r.name for r in refused) == sorted(HIDDEN) and all("starts with a dot" in r.reason for r in refused)
    ids = [f.learner for f in found]
    assert len({unicodedata.normalize("NFC", i) for i in ids}) == len(ids)  # no two rows look alike
    assert len({f.sid.casefold() for f in found}) == len(found)             # nor two files, ignoring case
    assert all(i.isprintable() for i in ids) and "latin1" not in ids
    by_id = {f.learner: f for f in found}
    # bytes not UTF-8 as \\xNN; names alike even so (that one, a literal backslash) all escaped
    assert {"caf\\udce9", "caf\\\\xe9", "new\\nline", "cr\\xe8me", "cre\\u0300me", "   ", "(maximum)"} <= set(by_id)
    assert find_learners_of(submissions.parent / "one", os.fsdecode(b"caf\xe9")) == ["caf\\xe9"]
    assert "Unicode normalisation" in by_id["cr\\xe8me"].notes[0] and "differ only in case" in by_id["Ana"].notes[0]
    assert "the same learner id" in by_id["dup.zip"].notes[0] and by_id["dup"].notes == by_id["dup.zip"].notes
    assert by_id["x"].notes == () and by_id["-dash"].sid[0] != "-"


def find_learners_of(folder, *names):
    for name in names:
        (folder / name).mkdir(parents=True)
    return [f.learner for f in find_learners(folder)[0]]


def test_safe_ids_are_distinct_where_case_is_ignored_and_start_with_a_letter_or_digit():
    ids = ["ana", "Ana", "ANA", "-rf", "--", " ", "\udce9", "a" * 41, "ana-0123abcd"]
    sids = [safe_id(i) for i in ids]
    assert len({s.casefold() for s in sids}) == len(ids) and all(s[0].isalnum() for s in sids)
    assert safe_id("ana") == "ana" and safe_id("a_b-1") == "a_b-1"
    assert assign_sids(["x", "y"]) == {"x": "x", "y": "y"}


def test_a_clash_of_safe_ids_left_by_the_hash_is_resolved(monkeypatch):
    import grader.intake.submissions as submissions
    monkeypatch.setattr(submissions, "safe_id", lambda learner: "same")
    assert list(submissions.assign_sids(["a", "b", "c"]).values()) == ["same", "same-2", "same-3"]


def results(*learners):
    out = []
    for learner in learners:
        result = LearnerResult(learner, learner)
        result.add(failed_everywhere("not implemented yet", Failure.NOT_IMPLEMENTED))
        out.append(result)
    return out


def test_grades_csv_says_what_each_row_is_whatever_the_ids(tmp_path):
    write_csv(results("(maximum)", "maximum", "refused", "ana"), tmp_path / "grades.csv",
              [(".DS_Store", "its name starts with a dot")])
    rows = list(csv.DictReader((tmp_path / "grades.csv").read_text(encoding="utf-8").splitlines()))
    assert [r["row"] for r in rows] == ["maximum"] + ["graded"] * 4 + ["refused"]
    assert rows[0]["learner"] == "" and float(rows[0]["total"]) > 0 and rows[0]["final"] == rows[0]["total"]
    assert {r["learner"] for r in rows if r["row"] == "graded"} == {"(maximum)", "maximum", "refused", "ana"}
    assert rows[-1]["learner"] == ".DS_Store" and rows[-1]["total"] == "" and "dot" in rows[-1]["problems"]


def test_a_merge_of_shards_names_each_refusal_once(tmp_path):
    refused = [("...zip", "its name starts with a dot")]
    parts = []
    for index, learner in enumerate(["ana", "bo"], start=1):
        shard = tmp_path / f"shard{index}"
        (shard / "feedback").mkdir(parents=True)
        parts.append(write_part(results(learner), shard, f"{index}/2", refused))
    assert json.loads(parts[0].read_text())["refused"] == [list(refused[0])]
    merge(tmp_path / "merged", parts, None)
    rows = list(csv.DictReader((tmp_path / "merged" / "grades.csv").read_text(encoding="utf-8").splitlines()))
    assert [(r["row"], r["learner"]) for r in rows] == [("maximum", ""), ("graded", "ana"), ("graded", "bo"),
                                                         ("refused", "...zip")]


def test_a_stray_file_is_refused_and_named_not_graded(tmp_path):
    (tmp_path / "ana").mkdir()
    (tmp_path / "bo.zip").write_bytes(b"PK")
    (tmp_path / "notes.txt").write_text("remember to grade bo")
    found, refused = find_learners(tmp_path)
    assert sorted(f.learner for f in found) == ["ana", "bo"]
    assert [r.name for r in refused] == ["notes.txt"] and "not a hand-in" in refused[0].reason


def test_every_learner_of_the_roster_is_in_every_export_one_without_a_hand_in_as_missing(tmp_path):
    from grader.outputs.publish import write_all
    graded = LearnerResult("ana", "ana")
    graded.add(failed_everywhere("x", Failure.WRONG))
    roster = {name: {"learner": name, "name": name.title(), "email": f"{name}@example.org"} for name in ("ana", "cy")}
    _, unknown = write_all([graded], tmp_path, roster)
    assert unknown == []
    rows = {r["learner"]: r for r in csv.DictReader((tmp_path / "grades.csv").open())}
    assert rows["cy"]["row"] == "missing" and rows["cy"]["final"] == "0" and rows["cy"]["problems"] == "missing"
    canvas = {r[0]: r[5] for r in csv.reader((tmp_path / "canvas.csv").open())}
    assert canvas["Cy"] == "0" and canvas["Ana"] == "0"
    moodle = {r[0]: r[2] for r in csv.reader((tmp_path / "moodle.csv").open())}
    assert moodle["cy@example.org"] == "0"
    assert "Missing: 1 learner" in (tmp_path / "report.html").read_text() and "cy" in (tmp_path / "report.html").read_text()
