"""An LMS's bulk download read as it comes (``intake/lms_download.py``, ``canvas.py``,
``moodle.py``): each file its learner's, none a stranger, a file of nobody in the roster
refused with the nearest names, the LMS's times read in the course's zone; and
``submitted.csv``'s rows matched to hand-ins by file name or content. Nothing is graded
here: the guide's recipes grade such downloads (test_instructor_guide.py)."""

import datetime as dt
import zipfile
import zoneinfo

import pytest
from lms_downloads import canvas_gradebook, moodle_worksheet, write_zip

from grader.intake import canvas, lms_download, moodle
from grader.term import sheets
from grader.term.kept import content_of
from grader.term.times import hand_in_times

PARIS = zoneinfo.ZoneInfo("Europe/Paris")
STUDENTS = [("Pereira, Ana", "10001", "S1", "apereira"), ("Berg, Bo", "10002", "S2", ""),
            ("O'Neil-Chen, Cy", "10003", "S3", "cchen")]


def test_a_canvas_download_is_its_learners_and_a_stranger_is_refused_with_the_nearest_names(tmp_path):
    canvas_gradebook(tmp_path / "gradebook.csv", STUDENTS)
    download = write_zip(tmp_path / "submissions.zip", {
        "pereiraana_LATE_10001_4502_minitorch-1.zip": b"PK-ana",          # resubmitted under the same name
        "bergbo_10002_4503_scalar.py": b"x = 1\n",                          # loose files, no package: refused
        "bergbo_10002_4504_autodiff.py": b"y = 2\n",
        "pereiranna_10077_4505_minitorch.zip": b"PK-stranger",             # not in the gradebook
        "README.txt": b"not a submission",
    })
    got = lms_download.read(canvas, download, tmp_path / "gradebook.csv", dt.UTC, tmp_path / "staged")
    assert sorted(got.roster.learners) == ["10002", "10999", "apereira", "cchen"]   # no SIS login: the Canvas id
    assert got.roster.learners["10999"]["only_if_handed_in"] and "10999" not in got.names   # the test student
    assert got.roster.learners["apereira"]["canvas_id"] == "10001" and got.roster.times == {}
    assert sorted(p.name for p in (tmp_path / "staged").iterdir()) == ["apereira.zip"]
    assert (tmp_path / "staged" / "apereira.zip").read_bytes() == b"PK-ana"
    assert got.notes["apereira"] == ["Canvas marked this submission late (LATE in its file name in Canvas's download)"]
    assert got.names["apereira"] == ["minitorch-1.zip", "pereiraana_LATE_10001_4502_minitorch-1.zip"]
    refused = {r.name: r.reason for r in got.refused}
    assert set(refused) == {"pereiranna_10077_4505_minitorch.zip", "README.txt", "bergbo_10002_4503_scalar.py",
                            "bergbo_10002_4504_autodiff.py"}
    assert "a .py alone holds no minitorch/ package" in refused["bergbo_10002_4503_scalar.py"]
    assert "'pereiranna' (10077) is not in the roster" in refused["pereiranna_10077_4505_minitorch.zip"]
    assert "nearest names: 'Pereira, Ana'" in refused["pereiranna_10077_4505_minitorch.zip"]
    assert "not named as Canvas names" in refused["README.txt"]


@pytest.mark.parametrize("manual_posting", [True, False])
def test_the_canvas_gradebook_export_is_read_with_or_without_its_posting_row(tmp_path, manual_posting):
    canvas_gradebook(tmp_path / "g.csv", STUDENTS, manual_posting)
    roster = canvas.read_roster(tmp_path / "g.csv", dt.UTC)
    assert roster.names["cchen"] == "O'Neil-Chen, Cy" and "Points Possible" not in str(roster.names)
    assert roster.learners["cchen"]["canvas_assignment"] == "minitorch (88002)"   # canvas.csv fills the course's own
    (tmp_path / "bad.csv").write_text("learner,name\nana,Ana\n")
    with pytest.raises(ValueError, match="not Canvas's gradebook export"):
        canvas.read_roster(tmp_path / "bad.csv", dt.UTC)


@pytest.mark.parametrize("folders", [True, False])
def test_a_moodle_download_in_folders_or_prefixed_files_and_its_worksheet_times(tmp_path, folders):
    moodle_worksheet(tmp_path / "worksheet.csv", [
        ("5501", "Ana Pereira", "ana@uni.example", "Tuesday, 1 December 2026, 11:30 PM"),
        ("5502", "Bo Berg", "", "Wednesday, 2 December 2026, 9:05 AM"),
        ("5503", "Cy Chen", "cy@uni.example", "-")])
    prefix = {"5501": "Ana Pereira_5501_assignsubmission_file_", "5509": "Zed Pereira_5509_assignsubmission_file_",
              "5502": "Bo Berg_5502_assignsubmission_file_"}
    sep = "/" if folders else ""
    download = write_zip(tmp_path / "submissions.zip", {
        f"{prefix['5501']}{sep}minitorch.zip": b"PK-ana", f"{prefix['5502']}{sep}handin.zip": b"PK-bo",
        f"{prefix['5509']}{sep}minitorch.zip": b"PK-zed",
        "Bo Berg_5502_assignsubmission_onlinetext_onlinetext.html": b"<p>see my zip</p>"})
    got = lms_download.read(moodle, download, tmp_path / "worksheet.csv", PARIS, tmp_path / "staged")
    assert got.roster.times == {"ana@uni.example": dt.datetime(2026, 12, 1, 22, 30, tzinfo=dt.UTC),
                                "participant-5502": dt.datetime(2026, 12, 2, 8, 5, tzinfo=dt.UTC)}
    assert sorted(p.name for p in (tmp_path / "staged").iterdir()) == ["ana@uni.example.zip", "participant-5502.zip"]
    assert (tmp_path / "staged" / "participant-5502.zip").read_bytes() == b"PK-bo"   # the online text beside it is not
    (beside,), (stranger,) = ([r for r in got.refused if key in r.name] for key in ("onlinetext", "5509"))
    assert beside.name.endswith("onlinetext.html") and "not a hand-in .zip; 'handin.zip' counts" in beside.reason
    assert "'Zed Pereira' (5509) is not in the roster" in stranger.reason and "'Ana Pereira'" in stranger.reason


def test_a_moodle_time_not_in_moodles_english_is_named(tmp_path):
    moodle_worksheet(tmp_path / "w.csv", [("1", "Ana", "a@x", "mardi 1 décembre 2026, 23:30")])
    with pytest.raises(ValueError, match=r"row 2: Last modified \(submission\) 'mardi.*in English"):
        moodle.read_roster(tmp_path / "w.csv", PARIS)


def test_a_download_that_is_not_a_zip_or_folder_is_named(tmp_path):
    (tmp_path / "x.zip").write_bytes(b"not a zip")
    canvas_gradebook(tmp_path / "g.csv", STUDENTS)
    with pytest.raises(zipfile.BadZipFile):
        lms_download.read(canvas, tmp_path / "x.zip", tmp_path / "g.csv", dt.UTC, tmp_path / "staged")
    with pytest.raises(ValueError, match="neither the LMS's .zip nor the folder"):
        lms_download.read(canvas, tmp_path / "x.txt", tmp_path / "g.csv", dt.UTC, tmp_path / "staged")


def test_submitted_csv_takes_a_row_per_hand_in_matched_by_file_name_or_content(tmp_path):
    (tmp_path / "ana.zip").write_bytes(b"second hand-in")
    (tmp_path / "bo.zip").write_bytes(b"bo's")
    (tmp_path / "cy.zip").write_bytes(b"cy's")
    content = content_of(tmp_path / "ana.zip")
    (tmp_path / "submitted.csv").write_text(
        "learner,submitted_at,file,content\n"
        "ana,2026-11-20T10:00:00+00:00,,0123abcd0123\n"              # her first hand-in, no longer here
        f"ana,2026-11-22T10:00:00+00:00,,{content[:10]}\n"           # this one, by content
        "bo,2026-11-21T08:00:00+00:00,bo_LATE_7_8_minitorch.zip,\n"  # by its name in the LMS's download
        "bo,2026-11-19T08:00:00+00:00,,\n"                           # any other of bo's
        "cy,2026-11-19T09:00:00+00:00,first.zip,\n")
    given = sheets.submitted(tmp_path, {"ana", "bo", "cy"})
    assert len(given["ana"]) == 2
    paths = {n: tmp_path / f"{n}.zip" for n in ("ana", "bo", "cy")}
    times, warnings = hand_in_times(paths, given, {"bo": ["bo_LATE_7_8_minitorch.zip"]})
    assert times["ana"].at == dt.datetime(2026, 11, 22, 10, tzinfo=dt.UTC) and times["ana"].source == "submitted.csv"
    assert times["bo"].at == dt.datetime(2026, 11, 21, 8, tzinfo=dt.UTC)
    assert times["cy"].source != "submitted.csv" and any("none for the hand-in they have now" in w and "cy" in w
                                                         for w in warnings)
    times, _ = hand_in_times(paths, given)   # bo's file under another name: his row naming no file
    assert times["bo"].at == dt.datetime(2026, 11, 19, 8, tzinfo=dt.UTC)


@pytest.mark.parametrize("text, problem", [
    ("learner,submitted_at,file\nana,2026-11-20T10:00,a.zip\nana,2026-11-21T10:00,a.zip\n", "row 3: a second row for ana, a.zip"),
    ("learner,submitted_at,content\nana,2026-11-20T10:00,xyz\n", "row 2: content 'xyz' is not the start of a content hash"),
])
def test_a_wrong_row_of_submitted_csv_is_named(tmp_path, text, problem):
    (tmp_path / "submitted.csv").write_text(text)
    with pytest.raises(sheets.SheetError, match=problem):
        sheets.submitted(tmp_path, {"ana"})


def test_shards_of_a_canvas_class_merge_with_canvas_own_roster(tmp_path):
    from grader.commands import merge
    from grader.outputs.publish import write_part
    from grader.results import Failure, LearnerResult, failed_everywhere
    canvas_gradebook(tmp_path / "gradebook.csv", STUDENTS)
    (tmp_path / "shard" / "feedback").mkdir(parents=True)
    ana = LearnerResult("apereira", "apereira")
    ana.add(failed_everywhere("x", Failure.WRONG))
    part = write_part([ana], tmp_path / "shard", "1/1")
    assert merge.main(out=tmp_path / "merged", parts=[part], roster=tmp_path / "gradebook.csv", source="canvas") == 0
    rows = (tmp_path / "merged" / "canvas.csv").read_text().splitlines()
    assert rows[0].endswith(",minitorch (88002)") and rows[2].startswith('"Berg, Bo",10002') and len(rows) == 5
