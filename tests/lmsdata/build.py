"""Writes two class downloads as an instructor gets them from the LMS, for the autograder's
``--from canvas`` and ``--from moodle`` to be tried against.

    python tests/lmsdata/build.py OUT [--package solutions/minitorch] [--stubs minitorch] [--unzipped]

OUT then holds:

    canvas/submissions.zip                    Canvas "Download Submissions" of one assignment
    canvas/2026-11-30T0912_Grades-MT101.csv   Canvas gradebook export of the course
    canvas/semicolons-bom/2026-...csv         the same export by an instructor whose Canvas settings
                                              ask for ";" between fields and a byte order mark
    moodle/folders/MT101-Minitorch-4242.zip   Moodle "Download all submissions", one folder per
                                              learner (the 3.1 to 4.0 folder names, ending in "_")
    moodle/folders-4.1/MT101-Minitorch-4242.zip   the same, as Moodle 4.1 and later name folders
    moodle/files/MT101-Minitorch-4242.zip     the same, "Download submissions in folders" unticked
    moodle/Grades-MT101-Minitorch-4242.csv    Moodle "Download grading worksheet"
    expected.json                             what a correct autograder concludes (also kept
                                              beside this script)

The class is written out in class_list.py; README.md gives the source of every format
detail. Nothing here reads the autograder's own code: the formats come from the LMSs'
public source and documentation. The output is the same, byte for byte, on every run (with
the same zlib).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import json
import pathlib
import re
import shutil
import sys
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import class_list as cl  # the class: people, files, times (beside this script)

# --- the learners' own hand-ins -------------------------------------------------------------

def _package_files(package: pathlib.Path) -> dict[str, bytes]:
    """What a hand-in zip takes of a package folder: its .py files and its data, keyed by the
    name in the zip (``minitorch/...``); never caches or hidden files."""
    files = {}
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package)
        if not path.is_file() or any(p == "__pycache__" or p.startswith(".") for p in rel.parts):
            continue
        if path.suffix == ".py" or "data" in rel.parts:
            files[f"minitorch/{rel.as_posix()}"] = path.read_bytes()
    return files


class Packages:
    """The complete package, the stub-only one, and partly done ones made from the two by
    copying the solution's files of the first N stages over the stubs."""

    def __init__(self, complete: pathlib.Path, stubs: pathlib.Path, notebooks: pathlib.Path):
        self.complete = _package_files(complete)
        self.stubs = _package_files(stubs)
        self.notebooks = {f"notebooks/{p.name}": p.read_bytes() for p in sorted(notebooks.glob("*.ipynb"))}
        missing = set(self.stubs) ^ set(self.complete)
        if missing:
            raise SystemExit(f"the complete and the stub package differ in their files: {sorted(missing)[:5]}")

    def files(self, work: str) -> dict[str, bytes]:
        """The package files of one kind of work (class_list.WORK)."""
        if work == "full":
            return dict(self.complete)
        files = dict(self.stubs)
        for stage in range(1, cl.WORK[work]["stages"] + 1):
            for name in cl.STAGE_FILES[stage]:
                files[f"minitorch/{name}"] = self.complete[f"minitorch/{name}"]
        return files


def _dos_time(when: dt.datetime) -> tuple:
    return (when.year, when.month, when.day, when.hour, when.minute, when.second - when.second % 2)


class _Utf8FlagInfo(zipfile.ZipInfo):
    """An entry whose UTF-8 name flag is set even when the name is ASCII (zipfile resets
    flag_bits when it writes, so the flag is added where the name is encoded)."""

    def _encodeFilenameFlags(self):
        return self.filename.encode("utf-8"), self.flag_bits | 0x800


def _write_zip(entries: list[tuple[str, bytes, dt.datetime]], utf8_flag_always: bool = False) -> bytes:
    """A zip of (name, bytes, time) in that order. Python sets the UTF-8 name flag itself for
    a name that is not ASCII (as Moodle's ZipStream does); Canvas's rubyzip, with
    Zip.unicode_names on, sets it on every entry (``utf8_flag_always``)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, when in entries:
            info = (_Utf8FlagInfo if utf8_flag_always else zipfile.ZipInfo)(name, _dos_time(when))
            info.compress_type = zipfile.ZIP_STORED if name.endswith("/") else zipfile.ZIP_DEFLATED
            info.external_attr = (0o40755 << 16 | 0x10) if name.endswith("/") else 0o644 << 16
            archive.writestr(info, data)
    return out.getvalue()


def handin_bytes(packages: Packages, upload: cl.Upload, owner: str) -> bytes:
    """The file one learner uploaded: a hand-in zip as `make handin` lays it out, or as macOS's
    Finder compresses two selected folders, or a lone notebook. Each learner's package carries
    one comment line of their own in __init__.py, so no two learners' zips are the same bytes."""
    if upload.work == "notebook":
        return packages.notebooks["notebooks/07_gpt.ipynb"]
    files = packages.files(upload.work)
    init = "minitorch/__init__.py"
    files[init] = files[init] + f"# {owner}: {upload.note}\n".encode()
    made = upload.made  # the learner's own file times: a little before the upload
    entries = [(name, data, made) for name, data in sorted(files.items())]
    entries += [(name, data, made) for name, data in packages.notebooks.items()]
    if upload.layout == "macos":  # Finder's "Compress 2 Items": folder entries, resource forks, .DS_Store
        folders = sorted({n.rsplit("/", 1)[0] + "/" for n, _, _ in entries})
        forks = [(f"__MACOSX/{n.rsplit('/', 1)[0]}/._{n.rsplit('/', 1)[1]}",
                  b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + b"\x00" * 48, made)
                 for n, _, _ in entries[:6]]
        entries = ([(f, b"", made) for f in folders] + entries
                   + [("minitorch/.DS_Store", b"\x00\x00\x00\x01Bud1" + b"\x00" * 58, made)]
                   + [(f, b"", made) for f in ("__MACOSX/", "__MACOSX/minitorch/", "__MACOSX/minitorch/course/")]
                   + forks)
    return _write_zip(entries)


# --- Canvas ---------------------------------------------------------------------------------

def canvas_user_part(sortable_name: str) -> str:
    """Canvas's ContentZipper: the sortable name lowercased, "_12_" runs of digits between
    underscores merged, then every character that is not a word character dropped (Ruby's
    [[:word:]] keeps accented letters, digits and "_")."""
    name = re.sub(r"_(\d+)_", r"\1", sortable_name).lower()
    return name


def canvas_zip_name(learner: cl.CanvasLearner, upload: cl.Upload) -> str:
    """``sortablename[_LATE]_userid_attachmentid_displayname``, as ContentZipper builds it
    (canvas-lms lib/content_zipper.rb: get_filename, add_upload_submission; the second number
    is the attachment's id, file.id)."""
    head = "_".join(p for p in (canvas_user_part(learner.sortable), "LATE" if learner.late else None,
                                str(learner.user_id)) if p)
    head = re.sub(r"[^\w]", "", head)  # Ruby: filename.gsub(/[^[[:word:]]]/, "")
    shown = re.sub(r'[\x00/\\:*?"<>|]+', "_", upload.name)  # sanitize_attachment_filename
    return f"{head}_{upload.attachment_id}_{shown}"


def canvas_zip(packages: Packages) -> bytes:
    """One entry per file of each learner's newest attempt (submission.attachment_ids), the
    inactive learner's included (Assignment#representatives keeps :inactive by default)."""
    entries = []
    for learner in sorted(cl.CANVAS, key=lambda l: l.user_id):
        for upload in learner.in_download():
            entries.append((canvas_zip_name(learner, upload), handin_bytes(packages, upload, learner.name),
                            cl.CANVAS_ZIPPED_AT_SERVER))
    return _write_zip(entries, utf8_flag_always=True)


def _n(value) -> str:
    """Canvas's I18n.n(number, precision: 2), which its NumberLocalizer (canvas-lms
    config/initializers/i18n.rb) makes number_to_rounded: two decimals always; nothing for nil."""
    return "" if value is None else f"{value:.2f}"


def canvas_gradebook(col_sep: str = ",", bom: bool = False) -> str:
    """The gradebook export, as Canvas's GradebookExporter (canvas-lms lib/gradebook_exporter.rb)
    writes it for a course with one
    assignment group, SIS ids shown, no grading scheme, and the Minitorch assignment set to
    manual posting (hence the "Manual Posting" row before "Points Possible").

    ``col_sep`` and ``bom`` are an instructor's own settings (CSVWithI18n.csv_i18n_settings in
    canvas-lms lib/csv_with_i18n.rb): "Use semicolons to separate fields" gives ";", and
    "Include Byte-Order Mark" starts the file with one. Numbers keep the English "." here."""
    assignments = [("Quiz 1", 12340, 10), ("Minitorch", cl.CANVAS_ASSIGNMENT_ID, 100)]
    group = "Assignments"
    totals = ["Current Points", "Final Points", "Current Score", "Unposted Current Score",
              "Final Score", "Unposted Final Score"]
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    header += [f"{title} ({aid})" for title, aid, _ in assignments]
    header += [f"{group} {t}" for t in totals] + totals
    out = io.StringIO()
    if bom:
        out.write("\ufeff")
    writer = csv.writer(out, delimiter=col_sep, lineterminator="\n")  # Ruby's CSV: quotes only where needed
    writer.writerow(header)
    # the "hidden" row, written when an assignment posts manually; "Manual Posting" is never translated
    writer.writerow([""] * 5 + ["", "Manual Posting"] + [""] * 12)
    # the exporter's literal "    Points Possible" (four spaces), then "(read only)" under each total
    writer.writerow(["    Points Possible", "", "", "", ""] + [_n(p) for _, _, p in assignments]
                    + ["(read only)"] * 12)
    # inactive enrollments are left out (the "Show Inactive Enrollments" setting is off); concluded
    # ones are in because the instructor turned "Show Concluded Enrollments" on
    rows = [l for l in cl.CANVAS if l.enrollment in ("active", "concluded")]
    rows.sort(key=lambda l: cl.sort_key(l.sortable))
    rows += [l for l in cl.CANVAS if l.enrollment == "test"]  # StudentViewEnrollment goes last
    possible = sum(p for _, _, p in assignments)
    for learner in rows:
        quiz, work = learner.quiz, learner.minitorch_score
        got = [s for s in (quiz, work) if s is not None]
        graded_possible = (10 if quiz is not None else 0) + (100 if work is not None else 0)
        points = sum(got)
        current = None if not graded_possible else 100 * points / graded_possible
        final = 100 * points / possible
        scores = [_n(points), _n(points), _n(current), _n(current), _n(final), _n(final)]
        writer.writerow([learner.sortable, learner.user_id, learner.sis_user_id, learner.login,
                         learner.section, _n(quiz), _n(work)] + scores + scores)
    return out.getvalue()


# --- Moodle ---------------------------------------------------------------------------------

def moodle_clean(name: str) -> str:
    """Moodle's clean_filename, clean_param(PARAM_FILE) in lib/moodlelib.php: drops control
    characters and & < > " ` | ' : \\ / (accents stay)."""
    return re.sub(r"[\x00-\x1f\x7f&<>\"`|':\\/]", "", name)


def moodle_prefix(learner: cl.MoodleLearner) -> str:
    """mod_assign's downloader (get_student_prefix): the full name with "_" made a space, "_",
    the participant id (get_uniqueid_for_user, the number the worksheet shows)."""
    return moodle_clean(learner.full_name.replace("_", " ") + "_" + str(learner.participant))


def moodle_zip(packages: Packages, layout: str) -> bytes:
    """Who is in it: the enrolled learners with a submission (suspended ones too, "Show only
    active enrolments" being off); each learner's files oldest first (get_area_files by
    'timemodified'). The three layouts:

    ``folders``: ``Full Name_id_assignsubmission_file_/file`` (mod/assign/locallib.php, 3.1 to 4.0);
    ``folders-4.1``: ``Full Name_id_assignsubmission_file/file`` (mod/assign/classes/downloader.php);
    ``files``: ``Full Name_id_assignsubmission_file_file`` (downloading as folders unticked)."""
    entries = []
    for learner in sorted(cl.MOODLE, key=lambda l: cl.sort_key(l.full_name)):
        prefix = moodle_prefix(learner)
        for upload in learner.in_download():
            data = handin_bytes(packages, upload, learner.full_name)
            if layout == "folders":
                name = moodle_clean(f"{prefix}_assignsubmission_file_") + "/" + upload.name
            elif layout == "folders-4.1":
                name = moodle_clean(f"{prefix}_assignsubmission_file") + "/" + upload.name
            else:
                name = moodle_clean(f"{prefix}_assignsubmission_file_{upload.name}")
            entries.append((name, data, cl.MOODLE_ZIPPED_AT))
    return _write_zip(entries)


def _fputcsv(row: list[str]) -> str:
    """PHP's fputcsv, which Moodle's CSV dataformat calls through Spout's CSV writer: a field is quoted when it holds
    the delimiter, a quote, a backslash, a tab, a newline or a space."""
    cells = []
    for cell in row:
        if any(c in cell for c in ',"\\\t\r\n '):
            cell = '"' + cell.replace('"', '""') + '"'
        cells.append(cell)
    return ",".join(cells) + "\n"


def moodle_worksheet() -> str:
    """The grading worksheet of an assignment with file submissions, no marking workflow, no
    blind marking, "Email address" the one identity field shown, and "Show only active
    enrolments" unticked by the instructor (so a suspended learner is listed). Columns and cells:
    mod/assign/gradingtable.php when downloading (col_recordid, col_status, col_grademax,
    col_gradecanbechanged, col_timesubmitted, col_timemarked); the file name:
    mod/assign/feedback/offline/locallib.php."""
    header = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum grade",
              "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
              "Feedback comments"]
    text = "\ufeff" + _fputcsv(header)  # Spout's CSV writer starts with a UTF-8 byte order mark
    for learner in sorted((l for l in cl.MOODLE if l.in_worksheet), key=lambda l: cl.sort_key(l.last_name)):
        submitted = learner.submitted_at
        text += _fputcsv([
            f"Participant {learner.participant}", learner.full_name, learner.email,
            cl.moodle_status(learner), learner.grade or "", "100.00", "Yes",
            cl.userdate(submitted) if submitted else "-",
            cl.userdate(learner.graded_at) if learner.graded_at else "-",
            learner.feedback or "",
        ])
    return text


# --- everything -----------------------------------------------------------------------------

def _locate(package_dir: pathlib.Path, stub_dir: pathlib.Path | None, notebooks_dir: pathlib.Path | None):
    """The complete package, the stubs and the notebooks. ``package_dir`` may be the package
    itself (a copy of solutions/minitorch) or a course folder holding solutions/minitorch."""
    package_dir = pathlib.Path(package_dir).resolve()
    if (package_dir / "solutions" / "minitorch").is_dir():
        course = package_dir
        package_dir = course / "solutions" / "minitorch"
    else:
        course = package_dir.parents[1] if package_dir.parent.name == "solutions" else ROOT
    stub_dir = pathlib.Path(stub_dir or course / "minitorch").resolve()
    notebooks_dir = pathlib.Path(notebooks_dir or course / "notebooks").resolve()
    for what, path in (("complete package", package_dir), ("stub package", stub_dir), ("notebooks", notebooks_dir)):
        if not path.is_dir():
            raise SystemExit(f"error: no {what} at {path}")
    return package_dir, stub_dir, notebooks_dir


def build(out_dir, package_dir, stub_dir=None, notebooks_dir=None, unzipped=False) -> dict[str, pathlib.Path]:
    """Write both downloads (and expected.json) under ``out_dir``; returns what was written.
    With ``unzipped``, each LMS zip is also unpacked beside it (``submissions/``, as an
    instructor's double click leaves it), for the autograder's folder form."""
    out = pathlib.Path(out_dir)
    packages = Packages(*_locate(package_dir, stub_dir, notebooks_dir))
    written = {
        "canvas_zip": (out / "canvas" / "submissions.zip", canvas_zip(packages)),
        "canvas_gradebook": (out / "canvas" / cl.CANVAS_EXPORT_NAME, canvas_gradebook().encode("utf-8")),
        "canvas_gradebook_semicolons": (out / "canvas" / "semicolons-bom" / cl.CANVAS_EXPORT_NAME,
                                        canvas_gradebook(";", bom=True).encode("utf-8")),
        "moodle_folders": (out / "moodle" / "folders" / cl.MOODLE_ZIP_NAME, moodle_zip(packages, "folders")),
        "moodle_folders_41": (out / "moodle" / "folders-4.1" / cl.MOODLE_ZIP_NAME, moodle_zip(packages, "folders-4.1")),
        "moodle_files": (out / "moodle" / "files" / cl.MOODLE_ZIP_NAME, moodle_zip(packages, "files")),
        "moodle_worksheet": (out / "moodle" / cl.MOODLE_WORKSHEET_NAME, moodle_worksheet().encode("utf-8")),
        "expected": (out / "expected.json", expected_json().encode("utf-8")),
    }
    for path, data in written.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    paths = {key: path for key, (path, _) in written.items()}
    if unzipped:
        for key in [k for k, p in paths.items() if p.suffix == ".zip"]:
            folder = paths[key].with_suffix("")
            with zipfile.ZipFile(paths[key]) as archive:
                archive.extractall(folder)
            paths[key + "_unzipped"] = folder
    return paths


def expected_json() -> str:
    return json.dumps(cl.expected(canvas_zip_name, moodle_prefix, moodle_clean), indent=2, ensure_ascii=False) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=pathlib.Path, help="the folder to write the downloads into")
    parser.add_argument("--package", type=pathlib.Path, default=ROOT / "solutions" / "minitorch",
                        help="the complete package (default: this repository's solutions/minitorch)")
    parser.add_argument("--stubs", type=pathlib.Path, help="the stub-only package (default: the course's minitorch/)")
    parser.add_argument("--notebooks", type=pathlib.Path, help="the notebooks (default: the course's notebooks/)")
    parser.add_argument("--clean", action="store_true", help="empty OUT first")
    parser.add_argument("--unzipped", action="store_true", help="also unpack each LMS zip into a folder beside it")
    parser.add_argument("--refresh-expected", action="store_true",
                        help="also rewrite tests/lmsdata/expected.json (maintainers, after changing class_list.py)")
    args = parser.parse_args(argv)
    if args.clean and args.out.exists():
        shutil.rmtree(args.out)
    written = build(args.out, args.package, args.stubs, args.notebooks, unzipped=args.unzipped)
    kept = HERE / "expected.json"
    if args.refresh_expected:
        kept.write_text(expected_json(), encoding="utf-8")
    elif not kept.is_file() or kept.read_text(encoding="utf-8") != expected_json():
        print(f"warning: {kept} differs from what class_list.py now gives; run with --refresh-expected "
              "after checking the change", file=sys.stderr)
    for key, path in written.items():
        size = f"{path.stat().st_size} bytes" if path.is_file() else f"{sum(1 for _ in path.rglob('*'))} entries"
        print(f"{key:26} {path} ({size})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
