"""The late policy from nbgrader's timestamp.txt, a platform's metadata or the hand-in's
file time, and the learner ids of the course (the LMS exports: test_lms_exports.py; a
class graded from an LMS's download, late penalty included: test_instructor_guide.py)."""

import csv
import datetime as dt
import os
import pathlib

from grader.lateness import lateness, parse_deadline
from grader.term.sheets import Stated
from grader.term.times import hand_in_times

ROOT = pathlib.Path(__file__).resolve().parents[2]
UTC = dt.UTC


def test_lateness_counts_started_days_and_caps_at_100():
    deadline = dt.datetime(2026, 11, 20, 12, tzinfo=UTC)
    assert lateness(deadline, deadline, 10) == (0, 0.0)
    assert lateness(deadline + dt.timedelta(minutes=1), deadline, 10) == (1, 10.0)
    assert lateness(deadline + dt.timedelta(days=2, hours=1), deadline, 10) == (3, 30.0)
    assert lateness(deadline + dt.timedelta(days=30), deadline, 10) == (30, 100.0)
    assert parse_deadline("2026-11-20T12:00") == deadline


def test_the_hand_in_time_comes_from_a_stated_source_and_a_file_time_only_with_a_warning(tmp_path):
    folder = tmp_path / "ana"
    folder.mkdir()
    (folder / "timestamp.txt").write_text("2026-11-21 08:30:00.000000 UTC")
    for stage, stamp in (("01_chain_rule", "2026-11-18 10:00:00 UTC"), ("02_broadcasting", "2026-11-19 11:00:00 UTC")):
        (tmp_path / "nb" / stage).mkdir(parents=True)   # an nbgrader submitted/<id>/: the latest counts
        (tmp_path / "nb" / stage / "timestamp.txt").write_text(stamp)
    (tmp_path / "gs").mkdir()
    (tmp_path / "gs" / "submission_metadata.json").write_text('{"created_at": "2026-11-19T10:00:00+00:00"}')
    for name, stamp in (("bo.zip", 1_700_000_000), ("cy.zip", 1_600_000_000), ("di.zip", 1_600_000_000)):
        (tmp_path / name).write_bytes(b"")
        os.utime(tmp_path / name, (stamp, stamp))
    paths = {name.removesuffix(".zip"): tmp_path / name for name in ("ana", "gs", "nb", "bo.zip", "cy.zip")}
    times, warnings = hand_in_times(paths, {"cy": [Stated("cy", dt.datetime(2026, 11, 20, tzinfo=UTC))]})
    assert (times["ana"].at, times["ana"].source) == (dt.datetime(2026, 11, 21, 8, 30, tzinfo=UTC), "timestamp.txt")
    assert times["gs"].at == dt.datetime(2026, 11, 19, 10, tzinfo=UTC)
    assert times["nb"].at == dt.datetime(2026, 11, 19, 11, tzinfo=UTC)
    assert (times["cy"].at, times["cy"].source) == (dt.datetime(2026, 11, 20, tzinfo=UTC), "submitted.csv")
    assert times["bo"].at == dt.datetime.fromtimestamp(1_700_000_000, UTC)
    assert len(warnings) == 1 and "file's own time for bo" in warnings[0]


def test_file_times_made_by_one_copy_are_never_used(tmp_path):
    for name in ("ana.zip", "bo.zip", "cy.zip"):
        (tmp_path / name).write_bytes(b"")   # copied just now, within a second of each other
    times, warnings = hand_in_times({n: tmp_path / f"{n}.zip" for n in ("ana", "bo", "cy")}, {})
    assert {t.at for t in times.values()} == {None}
    assert len(warnings) == 1 and "as a copy makes them" in warnings[0] and "submitted.csv" in warnings[0]


def test_the_course_maps_each_learner_to_one_safe_id_however_often_it_is_graded(tmp_path):
    from grader.gradebook.course import Course
    from grader.intake.submissions import safe_id
    from grader.settings import Settings
    course = Course(tmp_path, Settings())
    ids = {name: safe_id(name) for name in ("ana", "bo b", "<x>")}
    course.record_learners(ids)
    course.record_learners({"ana": ids["ana"]})
    rows = list(csv.reader((tmp_path / "learners.csv").open()))
    assert sorted(rows) == sorted([sid, name] for name, sid in ids.items())


def test_no_learner_id_is_another_learners_safe_id():
    from grader.intake.submissions import safe_id
    changed = safe_id("weird id!")
    ids = ["ana", "weird id!", changed, changed.upper(), "x" * 60, "x" * 61, "-", "_"]
    assert len({safe_id(i) for i in ids}) == len(ids)
    assert safe_id("ana") == "ana" and safe_id(changed) != changed


def test_exported_cells_never_start_a_spreadsheet_formula(tmp_path):
    from grader.outputs.classreport import write_mistakes_csv
    from grader.outputs.tables import spreadsheet_safe
    assert [spreadsheet_safe(c) for c in ("=1+1", "@SUM(A1)", "+x", "-x", "\tx", "-1.5", "ana", 3)] == \
        ["'=1+1", "'@SUM(A1)", "'+x", "'-x", "'\tx", "-1.5", "ana", 3]
    rows = [{"task": "1.1", "part": "p", "mistake": "x", "learners": ['=HYPERLINK("http://evil","x")', "ana"]}]
    write_mistakes_csv(rows, tmp_path / "mistakes.csv", [{"learner": "=cmd()", "stages": "stage 1", "reason": "@x"}])
    table = list(csv.DictReader((tmp_path / "mistakes.csv").open()))
    assert table[0]["which"].startswith("'=HYPERLINK") and (table[1]["which"], table[1]["reason"]) == ("'=cmd()", "'@x")
    cells = [c for row in csv.reader((tmp_path / "mistakes.csv").open()) for c in row]
    assert not any(c.startswith(("=", "@", "+")) for c in cells)
