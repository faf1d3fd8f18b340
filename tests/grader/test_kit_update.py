"""Taking a kit update (docs/INSTRUCTOR.md): a small history in a temp repository, with the
repository's own .gitattributes and generated files. The kit rewords a check and the hint
(the fix) of a known mistake, the course rewords another known mistake; each side
regenerates what the release writes from them. Without the merge driver the merge stops
on the generated files; with the guide's set-up it merges clean, the sources merged as
text and the generated files from one side, ready for the release to write again."""

import hashlib
import json
import pathlib
import shutil
import subprocess

from grader.release import guard

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECK = "grader/checks/stage1.py"
LIBRARY = "grader/checks/mistakes/stage4.py"   # the kit's hint
OURS = "grader/checks/mistakes/stage2_broadcast.py"   # the course's own words
TABLES = ("solutions/minitorch/course/known_mistakes.json", "minitorch/course/known_mistakes.json")
HINT = "split where each piece ends: the running total of the sizes, without the last"
WORDS = "a size-1 axis was taken for a clash"


def git(repo: pathlib.Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo,
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode == 0) == ok, done.stdout + done.stderr
    return done


def release(repo: pathlib.Path, old: str, new: str) -> None:
    """What the release writes from a reworded known mistake: both tables, and the record."""
    for table in TABLES:
        path = repo / table
        assert old in path.read_text()
        path.write_text(path.read_text().replace(old, new))
    guard.record(repo)


def commit(repo: pathlib.Path, message: str, edits: dict[str, tuple[str, str]]) -> None:
    for name, (old, new) in edits.items():
        path = repo / name
        assert old in path.read_text(), (name, old)
        path.write_text(path.read_text().replace(old, new))
        if name in (LIBRARY, OURS):
            release(repo, old, new)
    git(repo, "commit", "-qam", message)


def test_a_kit_update_merges_clean_with_the_guides_driver(tmp_path):
    repo = tmp_path / "course"
    for name in (".gitattributes", CHECK, LIBRARY, OURS, *TABLES):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, repo / name)
    guard.record(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the kit, taken")
    git(repo, "checkout", "-qb", "kit")
    check_words = 'f"{call} gave {got!r}, expected a number"'
    commit(repo, "the kit rewords a check and a hint", {
        CHECK: (check_words, 'f"{call} gave {got!r}, where a number was expected"'),
        LIBRARY: (HINT, "split at the running total of the sizes (np.cumsum), its last left out")})
    git(repo, "checkout", "-q", "main")
    commit(repo, "the course rewords a known mistake", {OURS: (WORDS, "a size-1 axis was blamed for a clash")})
    ours = {name: (repo / name).read_bytes() for name in (*TABLES, guard.RECORD)}

    said = git(repo, "merge", "--no-edit", "kit", ok=False).stdout   # without the driver: stops
    assert "CONFLICT" in said and guard.RECORD in said
    git(repo, "merge", "--abort")

    guide = (ROOT / "docs" / "INSTRUCTOR.md").read_text()
    setup = [line.strip() for line in guide.splitlines() if line.strip().startswith("git config merge.")]
    assert len(setup) == 2
    for line in setup:
        subprocess.run(line, shell=True, cwd=repo, check=True)
    git(repo, "merge", "--no-edit", "kit")   # clean
    assert "where a number was expected" in (repo / CHECK).read_text()   # the sources: both sides' changes
    assert "np.cumsum" in (repo / LIBRARY).read_text() and HINT not in (repo / LIBRARY).read_text()
    assert "was blamed for a clash" in (repo / OURS).read_text()
    assert {name: (repo / name).read_bytes() for name in ours} == ours   # generated: this side's, whole
    assert guard.merged(repo) and json.loads((repo / guard.RECORD).read_text())   # the release is told to rebuild
    release(repo, HINT, "split at the running total of the sizes (np.cumsum), its last left out")
    assert all("np.cumsum" in (repo / table).read_text() and "blamed for a clash" in (repo / table).read_text()
               for table in TABLES)
    digest = hashlib.sha256((repo / TABLES[1]).read_bytes()).hexdigest()
    assert json.loads((repo / guard.RECORD).read_text()) == {TABLES[1]: digest}
