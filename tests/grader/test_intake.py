"""Reading hand-ins (grader/intake/) without grading them: layouts, junk, odd zips."""

import os
import zipfile

from conftest import write_package

from grader.intake.hand_in import read_hand_in
from grader.tasks import STAGES


def test_an_nbgrader_submitted_folder_gives_each_stage_the_package_beside_it(tmp_path):
    learner = tmp_path / "ana"
    write_package(learner / "01_chain_rule" / "minitorch")
    write_package(learner / "02_broadcasting" / "minitorch")
    (learner / "02_broadcasting" / "minitorch" / "marker.py").write_text("STAGE = 2\n")
    hand_in = read_hand_in(learner, "ana", tmp_path / "copy")
    assert (hand_in.packages["2"] / "marker.py").is_file() and not (hand_in.packages["1"] / "marker.py").exists()
    assert set(hand_in.packages) == set(STAGES) and hand_in.broken is None


def test_junk_is_skipped_and_named_and_links_and_pipes_are_not_followed(tmp_path):
    learner = tmp_path / "bo"
    write_package(learner / "minitorch")
    write_package(learner / ".venv" / "lib" / "minitorch")
    write_package(learner / "build" / "minitorch")
    (learner / "minitorch" / "__pycache__").mkdir()
    (learner / "minitorch" / "outside.py").symlink_to("/etc/passwd")
    os.mkfifo(learner / "minitorch" / "pipe.py")
    hand_in = read_hand_in(learner, "bo", tmp_path / "copy")
    text = " ".join(hand_in.problems)
    assert ".venv/" in text and "build/" in text and "symbolic link" in text and "not a regular file" in text
    copied = {p.name for p in hand_in.packages["1"].iterdir()}
    assert "outside.py" not in copied and "pipe.py" not in copied and "ops_binary.py" in copied


def test_a_windows_zip_and_a_zip_with_hostile_entries(tmp_path):
    staged = write_package(tmp_path / "staged" / "minitorch")
    archive = tmp_path / "cy.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in staged.rglob("*.py"):
            z.write(path, "work\\minitorch\\" + path.name)
        z.writestr("../../escape.py", "x")
        z.writestr("n" * 300 + ".txt", "x")
    hand_in = read_hand_in(archive, "cy", tmp_path / "copy")
    assert hand_in.broken is None and (hand_in.packages["1"] / "ops_binary.py").is_file()
    assert any("out of the zip" in p for p in hand_in.problems)
    assert not (tmp_path / "escape.py").exists()


def test_a_corrupt_zip_is_a_message_not_a_crash(tmp_path):
    bad = tmp_path / "dee.zip"
    bad.write_bytes(b"PK\x03\x04garbage")
    hand_in = read_hand_in(bad, "dee", tmp_path / "copy")
    assert hand_in.packages == {} and "not a readable .zip" in hand_in.broken


def stored_zip(staged, target, damaged=None):
    """A zip of ``staged`` without compression; one byte of ``damaged`` changed (its CRC then fails)."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as z:
        for path in sorted(staged.rglob("*.py")):
            z.write(path, str(path.relative_to(staged.parent)))
    if damaged:
        data = bytearray(target.read_bytes())
        with zipfile.ZipFile(target) as z:
            info = z.getinfo(damaged)
        data[info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + 3] ^= 0x20
        target.write_bytes(bytes(data))
    return target


def test_a_damaged_zip_member_and_a_damaged_zip_are_named_with_their_reason(tmp_path):
    staged = write_package(tmp_path / "staged" / "minitorch")
    (staged / "helpers.py").write_text("X = 1\n")
    hand_in = read_hand_in(stored_zip(staged, tmp_path / "eve.zip", "minitorch/helpers.py"), "eve", tmp_path / "copy")
    assert "the zip's member minitorch/helpers.py is damaged (CRC mismatch" in " ".join(hand_in.problems)
    assert hand_in.broken is None and not (hand_in.packages["1"] / "helpers.py").exists()
    cut = tmp_path / "cut.zip"
    cut.write_bytes((tmp_path / "eve.zip").read_bytes()[:-30])  # its zip directory cut off
    broken = read_hand_in(cut, "cut", tmp_path / "copy2").broken
    assert broken is not None and "no zip directory found" in broken


def test_every_package_file_left_out_is_named(tmp_path):
    learner = tmp_path / "fay"
    write_package(learner / "minitorch")
    write_package(learner / "old" / "minitorch")
    (learner / "loose" / "minitorch").mkdir(parents=True)
    (learner / "loose" / "minitorch" / "ops.py").write_text("x = 1\n")
    (learner / "minitorch" / os.fsdecode(b"h\xe9lper.py")).write_text("x = 1\n")
    text = " ".join(read_hand_in(learner, "fay", tmp_path / "copy").problems)
    assert "old/minitorch/ (another minitorch package" in text
    assert "loose/minitorch/ (no __init__.py, so not a package)" in text
    assert "minitorch/h\\xe9lper.py (not a module name Python can import)" in text
