"""The intake (``intake/lms_download.py``) on the class downloads of ``tests/lmsdata/``,
written from Canvas's and Moodle's own sources by someone who never read the intake, and
held to what its ``expected.json`` says a correct autograder concludes: each roster
learner's hand-in (the newest, byte for byte), the files superseded or refused and for
whom, the stranger refused with the roster's nearest names, Canvas's LATE marker, and
lateness from Moodle's worksheet read in the course's zone. Nothing is graded: the
score bands are the guide's recipes' to show (test_instructor_guide.py)."""

import datetime as dt
import importlib.util
import json
import pathlib
import zipfile

import pytest

from grader.intake import canvas, lms_download, moodle
from grader.lateness import lateness, parse_deadline

ROOT = pathlib.Path(__file__).resolve().parents[2]


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
