"""The class behind both downloads: who is enrolled, what each learner uploaded and when, and
what a correct autograder concludes about each. build.py turns it into the LMSs' files.

Both courses hold the same kinds of people (a few names recur so the two are easy to compare),
but each LMS has its own ids, times and deadline:

- Canvas: due Friday 27 November 2026, 23:59:59, America/New_York (Canvas's default due time
  is 23:59:59); the submissions zip and the gradebook were downloaded on Monday 30 November.
- Moodle: due Friday 27 November 2026, 11:59 PM, Europe/Berlin (UTC+01:00 in November, so a
  time read as UTC is an hour wrong); the zips on Monday 30 November at 9:30, the worksheet at
  11:05, after one learner had been unenrolled.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import unicodedata
from zoneinfo import ZoneInfo

NEW_YORK = ZoneInfo("America/New_York")
BERLIN = ZoneInfo("Europe/Berlin")

# Points of each stage (grader/tasks.toml, 88.5 in all) and the files each stage's tasks fill
# (docs/CURRICULUM.md). A partly done hand-in is the stubs with the first N stages' files
# copied from the solution; each stage's checks swap in given helpers for earlier tasks, so the
# first N stages score their points and the rest score nothing.
STAGE_POINTS = {1: 13.0, 2: 12.0, 3: 11.5, 4: 11.0, 5: 16.0, 6: 13.0, 7: 12.0}
TOTAL = sum(STAGE_POINTS.values())
STAGE_FILES = {
    1: ["numerical.py", "scalar.py", "autodiff.py"],
    2: ["shapes.py", "ops_binary.py"],
    3: ["ops_unary.py", "ops_reduce.py"],
    4: ["ops_shape.py", "ops_index.py"],
    5: ["ops_linalg.py", "ops_activation.py", "ops_softmax.py", "losses.py"],
    6: ["nn/modules.py", "optim.py", "training.py"],
    7: ["ops_norm.py", "nn/transformer.py", "language.py"],
}
WORK = {
    "full": {"stages": 7, "band": "full"},
    "stages1-5": {"stages": 5, "band": "partial"},
    "stages1-3": {"stages": 3, "band": "partial"},
    "stage1": {"stages": 1, "band": "partial"},
    "stubs": {"stages": 0, "band": "zero"},
    "notebook": {"stages": 0, "band": "zero"},
}


def points(work: str) -> float:
    return float(sum(STAGE_POINTS[s] for s in range(1, WORK[work]["stages"] + 1)))


@dataclasses.dataclass
class Upload:
    name: str                  # the file's name as the learner uploaded it (Canvas: its display name)
    work: str                  # a key of WORK
    at: dt.datetime            # when the LMS received it
    note: str = "my hand-in"   # the comment line that makes this learner's zip their own
    layout: str = "make"       # "make": as `make handin` zips; "macos": Finder's Compress
    attachment_id: int = 0     # Canvas's file id (grows with time)
    in_latest: bool = True     # Canvas: part of the attempt the download holds

    @property
    def made(self) -> dt.datetime:
        """The learner's file times inside their zip: their own clock, a few minutes before."""
        return (self.at - dt.timedelta(minutes=7)).replace(tzinfo=None)


@dataclasses.dataclass
class CanvasLearner:
    name: str
    sortable: str              # Canvas's sortable name, "Last, First"
    user_id: int
    sis_user_id: str
    login: str                 # the SIS Login ID column (the pseudonym's unique_id)
    section: str
    enrollment: str            # active, concluded (shown: "Show Concluded Enrollments" on), inactive, test
    quiz: float | None = None
    uploads: list[Upload] = dataclasses.field(default_factory=list)
    minitorch_score: float | None = None  # nobody is graded yet
    story: str = ""

    def in_download(self) -> list[Upload]:
        return sorted((u for u in self.uploads if u.in_latest), key=lambda u: u.attachment_id)

    @property
    def submitted_at(self) -> dt.datetime | None:
        latest = self.in_download()
        return max(u.at for u in latest) if latest else None

    @property
    def late(self) -> bool:
        return self.submitted_at is not None and self.submitted_at > CANVAS_DUE


@dataclasses.dataclass
class MoodleLearner:
    first: str
    last: str
    participant: int
    email: str
    enrolment: str             # active, suspended (withdrawn), unenrolled (dropped after the zip)
    uploads: list[Upload] = dataclasses.field(default_factory=list)
    grade: str | None = None
    graded_at: dt.datetime | None = None
    feedback: str | None = None
    story: str = ""

    @property
    def full_name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def last_name(self) -> str:
        return f"{self.last} {self.first}"

    @property
    def in_worksheet(self) -> bool:
        return self.enrolment != "unenrolled"

    def in_download(self) -> list[Upload]:
        return sorted(self.uploads, key=lambda u: u.at)

    @property
    def submitted_at(self) -> dt.datetime | None:
        return max((u.at for u in self.uploads), default=None)


def sort_key(name: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", name) if not unicodedata.combining(c)).casefold()


def ny(day: int, hour: int, minute: int, second: int = 0) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, minute, second, tzinfo=NEW_YORK)


def berlin(day: int, hour: int, minute: int, second: int = 0) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, minute, second, tzinfo=BERLIN)


# --- Canvas ---------------------------------------------------------------------------------

CANVAS_DUE = ny(27, 23, 59, 59)
CANVAS_ASSIGNMENT_ID = 12345
CANVAS_ZIPPED_AT_SERVER = dt.datetime(2026, 11, 30, 14, 12, 5)  # rubyzip stamps entries "now", server time (UTC)
CANVAS_EXPORT_NAME = "2026-11-30T0912_Grades-MT101.csv"
S1, S2 = "MT101 Section 01", "MT101 Section 02"

CANVAS = [
    CanvasLearner("Ana Pereira", "Pereira, Ana", 10001, "S2026001", "apereira", S1, "active", 9,
                  [Upload("minitorch.zip", "full", ny(26, 21, 14, 33), attachment_id=5501001)],
                  story="complete, on time, minitorch.zip"),
    CanvasLearner("Ben Okafor", "Okafor, Ben", 10002, "S2026002", "bokafor", S1, "active", 7.5,
                  [Upload("handin (1).zip", "full", ny(27, 22, 5, 2), attachment_id=5501010)],
                  story="complete, on time; '(1)' is his browser's download copy, not a resubmission"),
    CanvasLearner("María José de la Cruz", "de la Cruz, María José", 10003, "S2026003", "mdelacruz", S2, "active", 10,
                  [Upload("minitorch-handin.zip", "stages1-3", ny(27, 23, 41, 9), attachment_id=5501023)],
                  story="accented and two-word last name; stages 1 to 3 done"),
    CanvasLearner("Seán O'Brien", "O'Brien, Seán", 10004, "S2026004", "sobrien", S2, "active", 6,
                  [Upload("handin.zip", "full", ny(28, 8, 30, 14), attachment_id=5501044)],
                  story="apostrophe and accent; late by 8 h 31 min (Canvas marks the file LATE)"),
    CanvasLearner("Zoë Smith-Jones", "Smith-Jones, Zoë", 10005, "S2026005", "zsmithjones", S1, "active", 8,
                  [Upload("minitorch.zip", "stages1-3", ny(25, 19, 0, 41), attachment_id=5500990, in_latest=False,
                          note="first try"),
                   Upload("minitorch-1.zip", "full", ny(27, 23, 5, 27), attachment_id=5501031, note="finished")],
                  story="hyphenated name; resubmitted: Canvas renamed the second upload minitorch-1.zip, "
                        "and the download holds only that newest attempt"),
    CanvasLearner("Sam Taylor", "Taylor, Sam", 10006, "S2026006", "staylor", S1, "active", 9.5,
                  [Upload("minitorch.zip", "full", ny(24, 16, 45, 0), attachment_id=5500950)],
                  story="shares a first name with Sam Nguyen"),
    CanvasLearner("Sam Nguyen", "Nguyen, Sam", 10007, "S2026007", "snguyen", S2, "active", 8.5,
                  [Upload("minitorch.zip", "stage1", ny(22, 15, 2, 11), attachment_id=5500870, in_latest=False,
                          note="stage 1"),
                   Upload("minitorch-1.zip", "stages1-3", ny(25, 9, 48, 30), attachment_id=5500978, in_latest=False,
                          note="stages 1-3"),
                   Upload("minitorch-2.zip", "stages1-5", ny(27, 19, 12, 58), attachment_id=5501005,
                          note="stages 1-5")],
                  story="shares a first name with Sam Taylor; submitted three times, stages 1 to 5 done at the "
                        "end: the download holds only the third upload, which Canvas named minitorch-2.zip"),
    CanvasLearner("Kim Lee", "Lee, Kim", 10008, "S2026008", "klee", S2, "active", 7,
                  [Upload("handin.zip", "stubs", ny(27, 20, 2, 10), attachment_id=5501012, note="wrong folder"),
                   Upload("handin-1.zip", "full", ny(27, 20, 40, 51), attachment_id=5501019, note="right one")],
                  story="attached two files to one attempt: the stubs by mistake, then the work (Canvas "
                        "named the second handin-1.zip); the newer file counts"),
    CanvasLearner("Chloé Dubois", "Dubois, Chloé", 10009, "S2026009", "cdubois", S1, "active", 5,
                  story="enrolled, never submitted"),
    CanvasLearner("Marcus Webb", "Webb, Marcus", 10010, "S2026010", "mwebb", S2, "concluded", None,
                  story="withdrew: a concluded enrollment, listed because the instructor ticked "
                        "'Show Concluded Enrollments'; no submission"),
    CanvasLearner("Priya Raman", "Raman, Priya", 10011, "S2026011", "praman", S1, "active", 10,
                  [Upload("07_gpt.ipynb", "notebook", ny(27, 17, 30, 6), attachment_id=5501002)],
                  story="uploaded one notebook, not a hand-in zip"),
    CanvasLearner("Ravi Patel", "Patel, Ravi", 10012, "S2026012", "rpatel", S2, "active", 4,
                  [Upload("minitorch.zip", "stubs", ny(27, 23, 58, 30), attachment_id=5501040)],
                  story="zipped the untouched stubs"),
    CanvasLearner("Lena Müller", "Müller, Lena", 10013, "S2026013", "lmuller", S1, "active", 9,
                  [Upload("minitorch.zip", "stage1", ny(29, 10, 2, 45), attachment_id=5501090)],
                  story="non-ASCII letter; stage 1 only; late by 34 h 3 min"),
    CanvasLearner("Olivia Brown", "Brown, Olivia", 10014, "S2026014", "obrown", S2, "active", 8,
                  [Upload("Archive.zip", "full", ny(27, 12, 0, 19), attachment_id=5501000, layout="macos")],
                  story="a Mac user: Finder's Archive.zip with __MACOSX/ and .DS_Store beside minitorch/"),
    CanvasLearner("Tom Fischer", "Fischer, Tom", 10015, "S2026015", "tfischer", S1, "inactive", 6,
                  [Upload("minitorch.zip", "full", ny(23, 11, 20, 0), attachment_id=5500901)],
                  story="dropped: his enrollment is inactive, so the gradebook export leaves him out, "
                        "but the submissions download still holds his file"),
    CanvasLearner("Test Student", "Student, Test", 10099, "", "3f1c9a0e5b7d2c4a8e6f0b1d3c5a7e9f2b4d6c8a",
                  f"{S1} and {S2}", "test",
                  None, [Upload("handin.zip", "full", ny(20, 10, 0, 0), attachment_id=5500800, note="instructor try-out")],
                  story="Canvas's Student View user, in every section; the instructor tried the assignment "
                        "with the reference hand-in"),
]

# --- Moodle ---------------------------------------------------------------------------------

MOODLE_DUE = berlin(27, 23, 59)
MOODLE_ZIPPED_AT = dt.datetime(2026, 11, 30, 9, 30, 12)     # ZipStream stamps entries "now", site time
MOODLE_WORKSHEET_AT = berlin(30, 11, 5)
MOODLE_ZIP_NAME = "MT101-Minitorch-4242.zip"              # course short name, assignment, course module id
MOODLE_WORKSHEET_NAME = "Grades-MT101-Minitorch-4242.csv"

MOODLE = [
    MoodleLearner("Ana", "Pereira", 1487201, "ana.pereira@example.edu", "active",
                  [Upload("minitorch.zip", "full", berlin(27, 18, 12, 40))],
                  grade="100.00", graded_at=berlin(28, 10, 15, 3),
                  feedback="Clean work, well done.\nSee my note on task 2.2, though: \"keepdims\" matters.",
                  story="complete, on time; already graded by hand, feedback with a comma, quotes and a new line"),
    MoodleLearner("Ben", "Okafor", 1487202, "ben.okafor@example.edu", "active",
                  [Upload("handin.zip", "full", berlin(27, 23, 40, 55))],
                  story="complete, 19 minutes early: read as UTC against a +01:00 deadline it would look late"),
    MoodleLearner("María José", "de la Cruz", 1487203, "mj.delacruz@example.edu", "active",
                  [Upload("minitorch-handin.zip", "stages1-3", berlin(26, 10, 3, 18))],
                  story="accented and two-word names; stages 1 to 3 done"),
    MoodleLearner("Seán", "O'Brien", 1487204, "sean.obrien@example.edu", "active",
                  [Upload("handin.zip", "full", berlin(29, 2, 5, 12))],
                  story="apostrophe (Moodle drops it from file names) and accent; late by 1 day 2 hours"),
    MoodleLearner("Zoë", "Smith-Jones", 1487205, "zoe.smithjones@example.edu", "active",
                  [Upload("minitorch.zip", "stages1-3", berlin(25, 20, 11, 2), note="first try"),
                   Upload("minitorch (1).zip", "full", berlin(27, 21, 15, 44), note="finished")],
                  story="resubmitted by adding a second file; Moodle's file picker named it 'minitorch (1).zip'; "
                        "both are in the download, the newer counts"),
    MoodleLearner("Sam", "Taylor", 1487206, "sam.taylor@example.edu", "active",
                  [Upload("minitorch.zip", "full", berlin(26, 14, 0, 9))],
                  story="shares a first name with Sam Nguyen"),
    MoodleLearner("Sam", "Nguyen", 1487207, "sam.nguyen@example.edu", "active",
                  [Upload("minitorch.zip", "stages1-5", berlin(27, 16, 30, 30))],
                  story="shares a first name with Sam Taylor; stages 1 to 5 done"),
    MoodleLearner("Chloé", "Dubois", 1487208, "chloe.dubois@example.edu", "active",
                  story="enrolled, never submitted"),
    MoodleLearner("Marcus", "Webb", 1487209, "marcus.webb@example.edu", "suspended",
                  story="withdrew: enrolment suspended, listed because 'Show only active enrolments' is "
                        "unticked; no submission"),
    MoodleLearner("Priya", "Raman", 1487210, "priya.raman@example.edu", "active",
                  [Upload("07_gpt.ipynb", "notebook", berlin(27, 17, 0, 4))],
                  story="uploaded one notebook, not a hand-in zip"),
    MoodleLearner("Ravi", "Patel", 1487211, "ravi.patel@example.edu", "active",
                  [Upload("minitorch.zip", "stubs", berlin(27, 22, 48, 0))],
                  story="zipped the untouched stubs"),
    MoodleLearner("Lena", "Müller", 1487212, "lena.mueller@example.edu", "active",
                  [Upload("minitorch.zip", "stage1", berlin(28, 0, 20, 37))],
                  story="non-ASCII letter; stage 1 only; late by 21 minutes"),
    MoodleLearner("Olivia", "Brown", 1487213, "olivia.brown@example.edu", "active",
                  [Upload("Archive.zip", "full", berlin(27, 12, 0, 19), layout="macos")],
                  story="a Mac user: Finder's Archive.zip with __MACOSX/ and .DS_Store beside minitorch/"),
    MoodleLearner("Tom", "Fischer", 1487214, "tom.fischer@example.edu", "unenrolled",
                  [Upload("minitorch.zip", "full", berlin(23, 11, 20, 0))],
                  story="dropped: unenrolled between the zip download and the worksheet download, so his "
                        "file is in the zip and he is in no roster"),
]


# --- Moodle's words and dates ---------------------------------------------------------------

def format_time(seconds: float) -> str:
    """Moodle's format_time: the two largest units, in English ("1 day 2 hours", "21 mins 37 secs")."""
    seconds = int(abs(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    mins, secs = divmod(rest, 60)

    def unit(n, one, many):
        return f"{n} {one if n == 1 else many}" if n else ""
    pairs = [(days, hours, ("day", "days"), ("hour", "hours")), (hours, mins, ("hour", "hours"), ("min", "mins")),
             (mins, secs, ("min", "mins"), ("sec", "secs"))]
    for big, small, big_words, small_words in pairs:
        if big:
            return f"{unit(big, *big_words)} {unit(small, *small_words)}".strip()
    return unit(secs, "sec", "secs") or "now"


def userdate(when: dt.datetime) -> str:
    """Moodle's userdate with the default strftimedaydatetime, '%A, %d %B %Y, %I:%M %p', the
    leading zeros of the day and the hour dropped, in the course's time zone, no offset."""
    local = when.astimezone(BERLIN)
    hour = local.hour % 12 or 12
    return f"{local:%A}, {local.day} {local:%B %Y}, {hour}:{local:%M} {'AM' if local.hour < 12 else 'PM'}"


def moodle_status(learner: MoodleLearner) -> str:
    """The worksheet's Status: the grading table's lines joined with " - " (a download)."""
    if not learner.uploads:
        return "No submission - Assignment is overdue by: " + format_time((MOODLE_WORKSHEET_AT - MOODLE_DUE).total_seconds())
    parts = ["Submitted for grading"]
    if learner.submitted_at > MOODLE_DUE:
        parts.append(format_time((learner.submitted_at - MOODLE_DUE).total_seconds()) + " late")
    if learner.grade is not None:
        parts.append("Graded")
    return " - ".join(parts)


# --- what a correct autograder concludes ----------------------------------------------------

def _started_days(late: dt.timedelta) -> int:
    return 0 if late <= dt.timedelta(0) else -(-late // dt.timedelta(days=1))


def _verdict(uploads: list[Upload], names: list[str]) -> dict:
    """Which file counts (the newest that is a hand-in), which are set aside and why."""
    counted, refused, superseded = None, [], []
    for upload, name in sorted(zip(uploads, names), key=lambda p: p[0].at, reverse=True):
        if upload.work == "notebook":
            refused.append({"file": name, "why": "not a zip or a folder: a notebook alone holds no minitorch/ package"})
        elif counted is None:
            counted = (upload, name)
        else:
            superseded.append({"file": name, "why": "an older hand-in of the same learner; the newest counts"})
    work = counted[0].work if counted else None
    return {
        "counts": counted[1] if counted else None,
        "superseded": superseded,
        "refused": refused,
        "band": WORK[work]["band"] if work else "zero",
        "points_about": points(work) if work else 0.0,
        "outcome": "graded" if counted else ("refused: no hand-in" if refused else "missing: no submission"),
    }


def expected(canvas_zip_name, moodle_prefix, moodle_clean) -> dict:
    canvas_learners, canvas_strangers = {}, []
    for learner in CANVAS:
        names = [canvas_zip_name(learner, u) for u in learner.in_download()]
        if learner.enrollment == "inactive":
            canvas_strangers.append({
                "file": names[0], "user_id_in_name": str(learner.user_id),
                "why": "matches no learner of the gradebook export (his enrollment is inactive, so the "
                       "export leaves him out); refuse it, naming the nearest roster names, and grade it as nobody",
            })
            continue
        entry = {"name": learner.name, "sortable_name": learner.sortable, "enrollment": learner.enrollment,
                 "story": learner.story, "files_in_download": names}
        entry.update(_verdict(learner.in_download(), names))
        at = learner.submitted_at
        entry["late"] = learner.late
        entry["late_marker_in_file_name"] = learner.late
        entry["late_by_minutes_from_download"] = None  # Canvas's zip carries no submission time
        entry["submitted_at_in_canvas"] = at.isoformat() if at else None
        entry["late_days_started_if_times_given"] = _started_days(at - CANVAS_DUE) if at else 0
        if learner.enrollment == "test":
            entry["note"] = ("Canvas's Test Student: grading it like anyone is right; leaving it out of "
                             "exports and counts is right too. It must never be a stranger.")
        canvas_learners[str(learner.user_id)] = entry

    moodle_learners, moodle_strangers = {}, []
    for learner in MOODLE:
        uploads = learner.in_download()
        prefix = moodle_prefix(learner)
        names = {
            "folders": [moodle_clean(f"{prefix}_assignsubmission_file_") + "/" + u.name for u in uploads],
            "folders-4.1": [moodle_clean(f"{prefix}_assignsubmission_file") + "/" + u.name for u in uploads],
            "files": [moodle_clean(f"{prefix}_assignsubmission_file_{u.name}") for u in uploads],
        }
        if not learner.in_worksheet:
            moodle_strangers.append({
                "files": names, "participant_in_name": str(learner.participant),
                "why": "matches no row of the grading worksheet (unenrolled after the zip was downloaded); "
                       "refuse it, naming the nearest roster names, and grade it as nobody",
            })
            continue
        entry = {"full_name": learner.full_name, "email": learner.email, "enrolment": learner.enrolment,
                 "story": learner.story, "files_in_download": names}
        verdict = _verdict(uploads, [u.name for u in uploads])
        entry.update(verdict)
        at = learner.submitted_at
        shown = at.replace(second=0) if at else None  # the worksheet shows minutes only
        entry["last_modified_submission"] = userdate(at) if at else "-"
        entry["late"] = bool(at and shown > MOODLE_DUE)
        entry["late_by_minutes"] = int((shown - MOODLE_DUE).total_seconds() // 60) if entry["late"] else 0
        entry["late_days_started"] = _started_days(shown - MOODLE_DUE) if at else 0
        moodle_learners[f"Participant {learner.participant}"] = entry

    return {
        "about": ("What a correct autograder concludes from the downloads build.py writes. Written from "
                  "the LMSs' public source and documentation (README.md), without the autograder's intake "
                  "code. 'band' is the grade before any late penalty: full is 88.5 of 88.5, zero is 0, "
                  "partial is between; 'points_about' is what the stages done are worth."),
        "score_bands": {"full": TOTAL, "zero": 0.0, "partial": "above 0, below the total"},
        "canvas": {
            "download": "canvas/submissions.zip",
            "roster": f"canvas/{CANVAS_EXPORT_NAME}",
            "roster_same_with_other_settings": f"canvas/semicolons-bom/{CANVAS_EXPORT_NAME}",
            "assignment_column": f"Minitorch ({CANVAS_ASSIGNMENT_ID})",
            "deadline": CANVAS_DUE.isoformat(),
            "deadline_zone": "America/New_York",
            "lateness": ("Canvas's zip gives no times, only the LATE marker in a late learner's file names; "
                         "a correct autograder shows that marker and does not invent a time. "
                         "'submitted_at_in_canvas' is what Canvas knows, to try submitted.csv with."),
            "roster_rows_that_are_not_learners": ["    Points Possible", "the row before it (Manual Posting)"],
            "which_is_newest": ("a learner's files in the download are one attempt; the newest has the higher "
                                "attachment id (the number after the user id), and a re-upload of the same name "
                                "carries Canvas's -1, -2 before the extension. 'handin (1).zip' is a name the "
                                "learner's own browser gave, not a resubmission."),
            "learners": canvas_learners,
            "strangers": canvas_strangers,
        },
        "moodle": {
            "downloads": {"folders": f"moodle/folders/{MOODLE_ZIP_NAME}",
                          "folders-4.1": f"moodle/folders-4.1/{MOODLE_ZIP_NAME}",
                          "files": f"moodle/files/{MOODLE_ZIP_NAME}"},
            "roster": f"moodle/{MOODLE_WORKSHEET_NAME}",
            "deadline": MOODLE_DUE.isoformat(),
            "deadline_zone": "Europe/Berlin",
            "lateness": ("From the worksheet's 'Last modified (submission)', written in Europe/Berlin with no "
                         "offset and to the minute; give the deadline with its offset or --timezone Europe/Berlin."),
            "which_is_newest": ("Moodle lists a learner's files oldest first (the file plugin's get_files orders "
                                "them by time modified), and its file picker names a second upload of the same "
                                "name 'name (1).ext'. The worksheet has one time per learner: the last change."),
            "file_names": ("'counts', 'superseded' and 'refused' give the learner's own file name; "
                           "'files_in_download' gives each path as each of the three zips holds it."),
            "learners": moodle_learners,
            "strangers": moodle_strangers,
        },
    }
