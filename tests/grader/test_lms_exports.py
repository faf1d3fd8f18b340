"""The LMS exports as one registry (``grader/outputs/lms/``): each LMS's import format, and
the registry as the only place that names the export files, so that a new LMS is a
module, a line of the registry and a row of the guide's table (docs/MAINTAINER.md,
"Adding an LMS"), which this file proves by adding one."""

import csv
import io
import pathlib
import re

import pytest
from lms_downloads import WORKSHEET

from grader.outputs.lms import registry as lms
from grader.outputs.lms.export import Export, Row
from grader.results import Failure, LearnerResult, Verdict
from grader.tasks import PARTS, TOTAL

ROOT = pathlib.Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "INSTRUCTOR.md").read_text()


def result(learner: str, lose: str = "", penalty: float = 0.0) -> LearnerResult:
    """Every point but those of task ``lose``."""
    r = LearnerResult(learner, learner, penalty=penalty, late_days=1 if penalty else 0)
    r.add([Verdict(t, p, pts, 0.0 if t == lose else pts, "x" if t == lose else "", "", Failure.WRONG if t == lose
                   else None) for t, parts in PARTS.items() for p, pts in parts.items()])
    return r


def section(title: str) -> str:
    start = GUIDE.index(f"### {title}\n")
    return GUIDE[start:GUIDE.find("\n## ", start)]


def test_the_guides_table_is_the_registrys():
    assert lms.table() in section("Exports for your LMS")
    assert lms.FILES == tuple(e.file for m in lms.LMS for e in m.EXPORTS) and len(set(lms.FILES)) == len(lms.FILES)


def test_no_other_place_names_an_export_file():
    """Docstrings, help and docs name the exports through the registry, or say "the LMS
    exports": only the LMS's own module and the guide's LMS section name a file."""
    places = [*ROOT.glob("docs/**/*.md"), ROOT / "README.md", *ROOT.glob("grader/**/*.py")]
    named = re.compile("|".join(re.escape(f) for f in lms.FILES))
    for path in places:
        text = path.read_text(encoding="utf-8")
        if path == ROOT / "docs" / "INSTRUCTOR.md":
            text = text.replace(GUIDE[GUIDE.index("## From your LMS"):GUIDE.index("## Points and partial credit")], "")
        if path.parent == ROOT / "grader" / "outputs" / "lms":
            continue
        assert not named.search(text), f"{path.relative_to(ROOT)} names {named.search(text)[0]}"


def test_each_lms_import_format(tmp_path):
    worksheet = {c: "" for c in WORKSHEET} | {"Identifier": "Participant 7", "Full name": "Ana Alves",
                                               "Last modified (grade)": "Monday, 30 November 2026, 9:00 AM",
                                               "Online text": "=HYPERLINK(1)"}
    roster = {"ana": {"learner": "ana", "name": "Alves, Ana", "canvas_id": "101", "email": "ana@x", "username": "aalves",
                      "first_name": "Ana", "last_name": "Alves", "identifier": "Participant 7", **worksheet},
              "bo": {"learner": "bo", "name": "Berg, Bo", "email": "bo@x", "identifier": "Participant 8",
                     "Last modified (grade)": "-",
                     "username": "bberg"}}
    written, unknown = lms.write_exports({"ana": result("ana", "2.2", 10.0), "zed": result("zed")}, TOTAL, roster,
                                         tmp_path)
    assert written == list(lms.FILES) and unknown == ["zed"]
    ana = (TOTAL - sum(PARTS["2.2"].values())) * 0.9

    def read(name):
        return list(csv.reader((tmp_path / name).open(encoding="utf-8")))
    canvas = read("canvas.csv")
    assert canvas[:2] == [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "minitorch"],
                          ["Points Possible", "", "", "", "", f"{TOTAL:g}"]]
    assert {r[0]: float(r[5]) for r in canvas[2:]} == pytest.approx({"Alves, Ana": ana, "Berg, Bo": 0})
    sheet = {r[0]: dict(zip(read("moodle-worksheet.csv")[0], r)) for r in read("moodle-worksheet.csv")[1:]}
    assert list(sheet) == ["Participant 7", "Participant 8"] and read("moodle-worksheet.csv")[0] == [*WORKSHEET, "Online text"]
    assert float(sheet["Participant 7"]["Grade"]) == pytest.approx(ana, abs=0.01)
    assert sheet["Participant 7"]["Last modified (grade)"] == "Monday, 30 November 2026, 9:00 AM"   # as Moodle wrote it
    assert "10% for 1 day late" in sheet["Participant 7"]["Feedback comments"]
    assert "2.2 (0/" in sheet["Participant 7"]["Feedback comments"] and sheet["Participant 7"]["Online text"][0] == "'"
    assert sheet["Participant 8"]["Last modified (grade)"] == "-"   # Moodle's own "-", not made spreadsheet-safe
    assert sheet["Participant 8"]["Grade"] == ""   # no hand-in: Moodle's grade left as it was
    assert read("moodle.csv")[0] == ["Email address", "ID number", "minitorch"]
    text = (tmp_path / "blackboard.csv").read_text()
    assert text.splitlines()[0] == f'"Last Name","First Name","Username","Student ID","minitorch [Total Pts: {TOTAL:g} Score]"'
    assert {r[2]: float(r[4]) for r in csv.reader(io.StringIO(text))
            if r[2] != "Username"} == pytest.approx({"aalves": ana, "bberg": 0})


def test_an_export_that_finds_nobody_is_not_written_and_an_old_one_is_removed(tmp_path):
    (tmp_path / "blackboard.csv").write_text("from an earlier roster")
    written, _ = lms.write_exports({}, TOTAL, {"ana": {"learner": "ana", "name": "Ana"}}, tmp_path)
    assert written == ["canvas.csv"] and not (tmp_path / "blackboard.csv").exists()


def test_no_learner_passes_for_canvas_points_possible_row(tmp_path):
    roster = {"Points Possible": {"learner": "Points Possible", "name": "points possible"},
              "ana": {"learner": "ana", "name": "Ana"}}
    lms.write_exports({"Points Possible": result("Points Possible"), "ana": result("ana")}, TOTAL, roster, tmp_path)
    canvas = list(csv.reader((tmp_path / "canvas.csv").read_text().splitlines()))
    assert [row[0].lower() for row in canvas].count("points possible") == 1
    assert {row[0] for row in canvas[2:]} == {"Ana", "points possible (learner)"}


def test_a_new_lms_is_a_module_a_line_of_the_registry_and_a_row_of_the_guide(tmp_path, monkeypatch):
    """What docs/MAINTAINER.md's "Adding an LMS" says, done: a module with its EXPORTS
    (here made in place), its line in LMS; everything else follows from the registry, and
    the guide's table is the one thing left to add, which the table's test asks for."""
    def write(rows, most, file):
        csv.writer(file).writerows([["OrgDefinedId", "minitorch Points Grade"]]
                                   + [[r.get("orgdefinedid"), f"{r.grade:g}"] for r in rows])
    d2l = type(lms)("d2l")
    d2l.EXPORTS = (Export("d2l.csv", "D2L Brightspace", "Grades, Import", ("orgdefinedid",), write),)
    monkeypatch.setattr(lms, "LMS", (*lms.LMS, d2l))
    monkeypatch.setattr(lms, "EXPORTS", tuple(e for m in lms.LMS for e in m.EXPORTS))
    monkeypatch.setattr(lms, "FILES", tuple(e.file for e in lms.EXPORTS))
    written, _ = lms.write_exports({"ana": result("ana")}, TOTAL, {"ana": {"learner": "ana", "orgdefinedid": "u7"}},
                                   tmp_path)
    assert written == ["d2l.csv"] and (tmp_path / "d2l.csv").read_text().splitlines()[1] == f"u7,{TOTAL:g}"
    assert "| `d2l.csv` | D2L Brightspace | Grades, Import | `orgdefinedid` |" in lms.table()
    assert lms.table() not in section("Exports for your LMS")   # the guide's row: the third file
    from grader.commands import autograde
    assert "FILES" in autograde._graded.__code__.co_names   # the stale exports removed: the registry's list
    assert Row("ana", {}, 1.0, True, "").get("x", "-") == "-"
