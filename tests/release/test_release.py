"""The committed release (minitorch/ and notebooks/) is what ``python -m grader release``
makes now, and carries no solution or hidden-test text."""

import json
import shutil

import pytest

from grader.release import build as release
from grader.release import copies, guard
from grader.release.regions import find_regions

ROOT = release.ROOT


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    out = tmp_path_factory.mktemp("release")
    release.build_package(out / "minitorch")
    release.build_notebooks(out / "notebooks")
    return out


LEARNERS_WORK = (
    "{folder}/ differs from what the last release wrote ({files}). If you are working through the course "
    "in this repository, that is your own work, and it is fine: this test of the course only says that your "
    "copy is no longer the release. Check your work with `make progress` (the visible checks of every "
    "notebook) or `.venv/bin/python -m grader check` (the hidden checks, graded as your instructor would), "
    "and do not run `make release`: it would replace your files (it refuses to, naming them, without --force).")


@pytest.mark.parametrize("folder", ["minitorch", "notebooks"])
def test_committed_release_is_fresh(fresh, folder):
    edited = [line for line in guard.changed(ROOT) if line.startswith(f"{folder}/")]
    assert not edited, LEARNERS_WORK.format(folder=folder, files="; ".join(edited[:10]))
    stale = release.differences(fresh / folder, ROOT / folder)
    assert not stale, "solutions/ changed since the last release: run `make release` (python -m grader release) " \
                      "and commit: " + "; ".join(stale)


def copy_of_the_release(tmp_path):
    for folder in guard.FOLDERS:
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns(*guard.SKIP))
    (tmp_path / guard.RECORD).parent.mkdir(parents=True)
    shutil.copyfile(ROOT / guard.RECORD, tmp_path / guard.RECORD)
    return tmp_path


def test_a_release_refuses_to_overwrite_a_learners_work_and_names_each_file(tmp_path):
    """A filled stub, a notebook saved after running, a helper module of the learner's own:
    the release stops before writing anything and names each; a file someone deleted is
    not work and stops nothing."""
    root = copy_of_the_release(tmp_path)
    assert guard.changed(root) == []
    # a stub, the first and the last notebook of the course as the manifest has it (any stage may be dropped)
    stub = next(p for p in sorted((root / "minitorch").glob("*.py")) if 'raise NotImplementedError("Task ' in p.read_text())
    text = stub.read_text()
    at = text.index('raise NotImplementedError("Task ')
    stub.write_text(text[:at] + "return 0.0  # mine" + text[text.index("\n", at):])
    first, *_, last = sorted((root / "notebooks").glob("*.ipynb"))
    first.write_text(first.read_text().replace('"outputs": []', '"outputs": [ ]', 1))
    (root / "minitorch" / "my_helpers.py").write_text("def twice(x):\n    return 2 * x\n")
    (root / "minitorch" / "nn" / "__pycache__").mkdir(exist_ok=True)
    (root / "minitorch" / "nn" / "__pycache__" / "x.pyc").write_bytes(b"cache")  # a cache is no work
    last.unlink()
    before = guard.written(root)
    with pytest.raises(guard.WorkWouldBeLost) as refused:
        release.build(root)
    assert refused.value.files == sorted(["minitorch/my_helpers.py: not written by the last release",
                                          f"minitorch/{stub.name}: changed since the last release wrote it",
                                          f"notebooks/{first.name}: changed since the last release wrote it"])
    message = str(refused.value)
    assert "Nothing was changed" in message and "make progress" in message and "grader check" in message
    assert "--force" in message
    assert guard.written(root) == before and "# mine" in stub.read_text()


def test_the_record_of_the_last_release_is_every_file_it_wrote(fresh, tmp_path):
    """The committed record names exactly the files a release writes, with their hashes."""
    recorded = json.loads((ROOT / guard.RECORD).read_text())
    assert recorded == guard.written(fresh)
    guard.record(fresh)
    assert json.loads((fresh / guard.RECORD).read_text()) == recorded and guard.changed(fresh) == []


def solution_lines() -> set[str]:
    """Distinctive lines of solution code: long enough not to occur by chance elsewhere."""
    inside, given = set(), set()
    for path in (ROOT / "solutions" / "minitorch").rglob("*.py"):
        text = path.read_text().splitlines()
        spans = [range(r.begin + 1, r.end) for r in find_regions(path.read_text())]
        for number, line in enumerate(text):
            (inside if any(number in span for span in spans) else given).add(line.strip())
    return {line for line in inside - given if len(line) > 20 and not line.startswith("#")}


def release_texts():
    for path in sorted((ROOT / "minitorch").rglob("*.py")):
        yield path, path.read_text()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        yield path, "\n".join("".join(c["source"]) for c in cells)


def test_no_solution_or_hidden_test_text_in_the_release():
    secret = solution_lines()
    assert len(secret) > 40
    for path, text in release_texts():
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "import grader", "from grader"):
            assert marker not in text, f"{path} contains {marker}"
        leaked = [line for line in secret if line in text]
        assert not leaked, f"{path} contains solution code: {leaked[:3]}"


def test_release_notebooks_have_no_outputs():
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            assert not cell.get("outputs"), f"{path} has outputs"


def test_stub_package_marks_every_task():
    text = "\n".join(p.read_text() for p in (ROOT / "minitorch").rglob("*.py"))
    for task in __import__("grader.tasks", fromlist=["TASKS"]).TASKS:
        assert f'raise NotImplementedError("Task {task}:' in text


@pytest.mark.parametrize("source", list(copies.COPIES))
def test_the_graders_copies_are_generated_from_their_one_source(source):
    """The grader may not import the learner's package, so the release writes its copy of a
    shared module (the diagnosis): the source under a "do not edit" header, nothing else."""
    copy = ROOT / copies.COPIES[source]
    assert copy.read_text(encoding="utf-8") == copies.text(source), \
        f"{copies.COPIES[source]} is not what the release makes from {source}: edit the source, run `make release`"
    assert copy.read_text(encoding="utf-8").startswith("# GENERATED") and "do not edit" in copy.read_text().splitlines()[0]
    assert "BEGIN SOLUTION" not in (ROOT / source).read_text()


def test_every_file_the_release_writes_outside_the_learners_folders_merges_by_the_release_driver():
    """A kit update never stops on a generated file (docs/INSTRUCTOR.md, "Taking a kit update"):
    the grader's copies, the record and the table are named in .gitattributes, as are the
    learner's folders."""
    import pathlib
    root = pathlib.Path(release.__file__).resolve().parents[2]
    named = {line.split()[0] for line in (root / ".gitattributes").read_text().splitlines()
             if line.strip() and not line.startswith("#") and "merge=minitorch-release" in line}
    wanted = {*copies.COPIES.values(), "grader/release/released.json", "grader/learner/regions.json",
              "solutions/minitorch/course/known_mistakes.json", "minitorch/**", "notebooks/**"}
    assert wanted <= named, wanted - named
