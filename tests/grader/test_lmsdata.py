"""The intake (``intake/lms_download.py``) on the class downloads of ``tests/lmsdata/``,
written from Canvas's and Moodle's own sources by someone who never read the intake, and
held to what its ``expected.json`` says a correct autograder concludes: each roster
learner's hand-in (the newest, byte for byte), the files superseded or refused and for
whom, the stranger refused with the roster's nearest names, Canvas's LATE marker, and
lateness from Moodle's worksheet read in the course's zone (Canvas's from submitted.csv);
and the exports written back from those rosters. Nothing is graded (a few seconds): the
score bands are the guide's recipes' to show (test_instructor_guide.py)."""

import csv
import datetime as dt
import importlib.util
import json
import pathlib
import zipfile

import pytest

from grader.intake import canvas, lms_download, moodle
from grader.lateness import lateness, parse_deadline
from grader.outputs.lms.registry import write_exports
from grader.results import LearnerResult, Verdict
from grader.tasks import PARTS, STAGES, TOTAL
from grader.term import sheets
from grader.term.times import hand_in_times

ROOT = pathlib.Path(__file__).resolve().parents[2]


if set(STAGES) != {str(n) for n in range(1, 8)}:   # a course adapted by its instructor (docs/INSTRUCTOR.md)
    pytest.skip("the LMS downloads of tests/lmsdata were built from the kit's own seven stages", allow_module_level=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> pathlib.Path:
    spec = importlib.util.spec_from_file_location("lmsdata_build", ROOT / "tests" / "lmsdata" / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    out = tmp_path_factory.mktemp("lmsdata")
    build.build(out, ROOT / "solutions" / "minitorch", unzipped=True)
    return out


EXPECTED = json.loads((ROOT / "tests" / "lmsdata" / "expected.json").read_text(encoding="utf-8"))
LAYOUTS = [("canvas", "canvas/submissions.zip", "roster"), ("canvas", "canvas/submissions.zip",
                                                              "roster_same_with_other_settings"),
           ("canvas", "canvas/submissions", "roster")]
LAYOUTS += [("moodle", f"moodle/{kind}/MT101-Minitorch-4242.zip", kind) for kind in EXPECTED["moodle"]["downloads"]]
LAYOUTS += [("moodle", "moodle/folders/MT101-Minitorch-4242", "folders")]


def _member(download: pathlib.Path, ends: str, number: str) -> bytes:
    """The one file of the download whose path ends with ``ends`` and holds the learner's ``number``."""
    if download.is_dir():
        (path,) = [p for p in download.rglob("*") if p.is_file() and p.as_posix().endswith(ends) and number in str(p)]
        return path.read_bytes()
    with zipfile.ZipFile(download) as archive:
        (info,) = [i for i in archive.infolist() if i.filename.endswith(ends) and number in i.filename]
        return archive.read(info)


@pytest.mark.parametrize("lms, download, which", LAYOUTS, ids=[f"{a}-{b}-{c}" for a, b, c in LAYOUTS])
def test_the_intake_concludes_what_the_lms_downloads_expect(built, tmp_path, lms, download, which):
    want = EXPECTED[lms]
    roster_file = want["roster"] if lms == "moodle" else want[which]
    deadline = parse_deadline(want["deadline"])
    got = lms_download.read(canvas if lms == "canvas" else moodle, built / download, built / roster_file,
                            deadline.tzinfo, tmp_path / "staged")
    key = "canvas_id" if lms == "canvas" else "identifier"
    learner_of = {row[key]: learner for learner, row in got.roster.learners.items()}
    assert sorted(learner_of) == sorted(want["learners"])   # the test student and the withdrawn learner included
    refused = {r.name: r.reason for r in got.refused}
    expected_refusals = set()
    for key_, who in want["learners"].items():
        learner = learner_of[key_]
        staged = tmp_path / "staged" / f"{learner}.zip"
        if who["counts"]:
            ends = who["counts"] if lms == "canvas" else f"_{who['counts']}" if which == "files" else f"/{who['counts']}"
            assert staged.read_bytes() == _member(built / download, ends, key_.split()[-1]), who["counts"]
        else:
            assert not staged.exists() and not (tmp_path / "staged" / learner).exists()
        for gone in who["superseded"] + who["refused"]:
            (name,) = [n for n in refused if n.endswith(gone["file"]) and key_.split()[-1] in n]
            expected_refusals.add(name)
            assert ("older hand-in" in refused[name]) == (gone in who["superseded"]), refused[name]
        if lms == "canvas":
            marked = any("Canvas marked this submission late" in note for note in got.notes.get(learner, []))
            assert marked == who["late_marker_in_file_name"] and learner not in got.roster.times
        elif who["counts"]:
            at = got.roster.times[learner]   # the worksheet's time, in Europe/Berlin: Ben's 19 minutes early stay early
            assert (at > deadline, max(0, (at - deadline) // dt.timedelta(minutes=1))) == \
                (who["late"], who["late_by_minutes"]), who["last_modified_submission"]
            assert lateness(at, deadline, 10)[0] == who["late_days_started"]
    (stranger,) = set(refused) - expected_refusals   # Tom Fischer, in the download and in no roster
    assert (want["strangers"][0].get("user_id_in_name") or want["strangers"][0]["participant_in_name"]) in stranger
    reason = refused[stranger]
    assert "is not in the roster: not graded; the roster's nearest names: '" in reason and reason.count("'") >= 6
    assert "Student, Test" not in reason   # the Test Student is nobody's near name


def _full(learner: str) -> LearnerResult:
    result = LearnerResult(learner, learner)
    result.add([Verdict(t, p, pts, pts, "", "", None) for t, parts in PARTS.items() for p, pts in parts.items()])
    return result


@pytest.mark.parametrize("lms", ["canvas", "moodle"])
def test_the_exports_go_back_into_the_lms_the_roster_came_from(built, tmp_path, lms):
    """Canvas's import and Moodle's worksheet, from their own roster files: a full grade is
    the assignment's own maximum (100 points here), never the grader's 88.5 raw; Canvas's
    Test Student has a line only when it handed in; the worksheet keeps Moodle's rows."""
    want = EXPECTED[lms]
    roster = (canvas if lms == "canvas" else moodle).read_roster(built / want["roster"], dt.UTC).learners
    key = "canvas_id" if lms == "canvas" else "identifier"
    handed_in = {learner for learner, row in roster.items() if want["learners"][row[key]]["counts"]}
    handed_in -= {learner for learner, row in roster.items() if row[key] == "10099"}   # the Test Student, not this time
    written, unknown = write_exports({learner: _full(learner) for learner in handed_in}, TOTAL, roster, tmp_path)
    assert unknown == []
    if lms == "canvas":
        assert written == ["canvas.csv"]
        rows = list(csv.reader((tmp_path / "canvas.csv").open(encoding="utf-8")))
        assert rows[:2] == [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", want["assignment_column"]],
                            ["Points Possible", "", "", "", "", "100"]]
        grades = {r[1]: r[5] for r in rows[2:]}
        assert "10099" not in grades and sorted(grades) == sorted(k for k in want["learners"] if k != "10099")
        assert {k: v for k, v in grades.items() if v != "0"} == {roster_row["canvas_id"]: "100" for learner, roster_row
                                                                  in roster.items() if learner in handed_in}
        return
    assert written == ["moodle-worksheet.csv", "moodle.csv"]
    with (built / want["roster"]).open(encoding="utf-8-sig", newline="") as file:
        before = list(csv.DictReader(file))
    with (tmp_path / "moodle-worksheet.csv").open(encoding="utf-8", newline="") as file:
        after = list(csv.DictReader(file))
    assert sorted(r["Identifier"] for r in after) == sorted(r["Identifier"] for r in before)   # every row, none added
    old = {r["Identifier"]: r for r in before}
    for row in after:
        mine = want["learners"][row["Identifier"]]["counts"] is not None
        assert row["Grade"] == ("100.00" if mine else old[row["Identifier"]]["Grade"]), row
        assert ("minitorch: 88.5 / 88.5" in row["Feedback comments"]) == mine
        same = {k: v for k, v in row.items() if k not in ("Grade", "Feedback comments")}
        assert same == {k: v for k, v in old[row["Identifier"]].items() if k not in ("Grade", "Feedback comments")}


def test_canvas_times_given_in_submitted_csv_make_the_late_days(built, tmp_path):
    """Canvas's download has no times: the guide's submitted.csv, one row per hand-in named
    by its file in the download, gives them, and the late days follow (Seán's LATE file
    8 h 31 min after the deadline starts one day; Kim's superseded file has no time)."""
    want = EXPECTED["canvas"]
    got = lms_download.read(canvas, built / want["download"], built / want["roster"], dt.UTC, tmp_path / "staged")
    learner_of = {row["canvas_id"]: learner for learner, row in got.roster.learners.items()}
    lines = ["learner,submitted_at,file"] + [
        f"{learner_of[k]},{who['submitted_at_in_canvas']},{file}" for k, who in want["learners"].items()
        for file in [who["counts"], *(s["file"] for s in who["superseded"])] if file]
    (tmp_path / "submitted.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    given = sheets.submitted(tmp_path, set(got.roster.learners))
    paths = {learner: tmp_path / "staged" / f"{learner}.zip" for learner in got.names}
    times, warnings = hand_in_times(paths, given, got.names, "Canvas")
    deadline = parse_deadline(want["deadline"])
    for key, who in want["learners"].items():
        if who["counts"]:
            assert times[learner_of[key]].source == "submitted.csv"
            assert lateness(times[learner_of[key]].at, deadline, 10)[0] == who["late_days_started_if_times_given"]
    assert warnings == []
