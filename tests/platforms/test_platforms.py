"""Gradescope and PrairieLearn, each in its own directory contract reproduced here (a
private mount namespace with the platform's paths bound to temporary folders), grading
the reference, the blank release, a one-op bug, a broken zip and hostile hand-ins: every
results.json has the documented fields, its points and reasons per part are those of
`python -m grader check` on the same hand-in, nothing of the checks or the solutions
reaches it, and no hand-in changes its own grade. "docker" runs them as a default Docker
container would: no Landlock, no control groups, Docker's capabilities only."""

import hashlib
import json
import pathlib
import shutil

import pytest
from contracts import parts_of, valid_gradescope, valid_prairielearn
from handins import PLANTED
from layout import unable

from grader.tasks import POINTS, STAGES, tasks_of

pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(unable()), reason=unable() or "-")]
HOSTILE = ["forges results", "reads the checks", "patches NumPy"]
TOTAL = sum(POINTS.values())


def no_secrets(data: dict, secrets: set[str]) -> None:
    text = json.dumps(data, ensure_ascii=False)
    assert not [line for line in secrets if line in text]
    assert "BEGIN SOLUTION" not in text and "from __future__ import annotations" not in text
    assert "A Learner" not in text and "variant_seed" not in text   # the platforms' job data (layout.py)


def tree_digest(folder: pathlib.Path) -> str:
    """Every file's name, size, mode and time of change below ``folder``: any write shows."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        st = path.lstat()
        digest.update(f"{path.relative_to(folder)} {st.st_size} {st.st_mode} {st.st_mtime_ns} {st.st_ctime_ns}\n".encode())
    return digest.hexdigest()


def same_as_check(found: dict, expected: dict, stages=tuple(STAGES)) -> None:
    want = {key: value for key, value in expected.items() if key[0].split(".")[0] in stages}
    assert found == want


@pytest.mark.parametrize("name", ["reference", "blank", "one-op bug", "broken zip"])
def test_gradescope_gives_the_points_and_reasons_of_check(gradescope, hand_ins, checked, secrets, tmp_path, name):
    """Uploaded as handin.zip (the reference, the broken zip), as the course folder (the
    one-op bug: minitorch/ and notebooks/) and as the minitorch/ folder alone (blank). The
    package has a subfolder (nn/), so its files can no longer be uploaded one by one."""
    upload = hand_ins[name]
    if name == "one-op bug":
        upload = upload.parent / "course"
    if name == "blank":
        upload = tmp_path / "folder"
        shutil.copytree(hand_ins[name].parent / "course" / "minitorch", upload / "minitorch")
    data, done, seconds = gradescope.run(upload, tmp_path / "run")
    print(f"\nGradescope, {name}: run_autograder took {seconds:.1f} s ({done.cpu:.1f} CPU-s)")
    assert done.returncode == 0, done.stdout[-3000:]
    valid_gradescope(data)
    table, parts = checked(name)
    assert parts_of(data["tests"], "score", "max_score") == parts
    lines = data["output"].splitlines()
    assert "\n".join(lines) == table   # check's own table, word for word
    assert data["score"] == sum(earned for earned, _, _ in parts.values())
    if name == "reference":
        assert data["score"] == TOTAL
    if name == "broken zip":
        assert data["score"] == 0 and "not a readable .zip" in data["output"]
    no_secrets(data, secrets)


@pytest.mark.parametrize("name", ["reference", "blank", "one-op bug", "broken zip"])
def test_prairielearn_gives_the_points_and_reasons_of_check(prairielearn, hand_ins, checked, secrets, tmp_path, name):
    table, parts = checked(name)
    stages = {"reference": list(STAGES), "blank": ["1", "7"], "one-op bug": ["2"], "broken zip": ["1"]}[name]
    earned = 0.0
    for stage in stages:
        data, done, seconds = prairielearn.run(hand_ins[name], stage, tmp_path / stage)
        print(f"\nPrairieLearn, {name}, stage {stage}: the entrypoint took {seconds:.1f} s ({done.cpu:.1f} CPU-s)")
        valid_prairielearn(data)
        same_as_check(parts_of(data["tests"], "points", "max_points"), parts, [stage])
        block = table.split("\n\n")[list(STAGES).index(stage) + 1]
        assert data["output"] == table.split("\n\n")[0] + "\n\n" + block
        no_secrets(data, secrets)
        if name == "broken zip":   # not gradable: PrairieLearn charges no attempt and shows why
            assert data["gradable"] is False and "not a readable .zip" in data["format_errors"][0]
            continue
        most = sum(POINTS[t] for t in tasks_of(stage))
        assert data["gradable"] is True and data["score"] * most == pytest.approx(
            sum(e for (task, _), (e, _, _) in parts.items() if task.split(".")[0] == stage))
        earned += data["score"] * most
    if name == "reference":
        assert earned == pytest.approx(TOTAL)


def hostile_runs(gradescope, prairielearn, upload, tmp_path, profile):
    """Each platform's (name, environment, results.json, output, score key, maximum key,
    stages), read once anything the hand-in left running would have written."""
    data, done, _ = gradescope.run(upload, tmp_path / "gs", profile, settle=0.6)
    yield "Gradescope", gradescope.home / "venv", data, done, "score", "max_score", list(STAGES)
    data, done, _ = prairielearn.run(upload, "2", tmp_path / "pl", profile, settle=0.6)
    yield "PrairieLearn", prairielearn.image / "venv", data, done, "points", "max_points", ["2"]


@pytest.mark.parametrize("profile", ["full", "docker"])
@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_hand_in_gets_exactly_what_check_gives_it(gradescope, prairielearn, hand_ins, checked, secrets,
                                                            tmp_path, name, profile):
    """It forges results.json (at once, and from a process it leaves behind), tries to kill
    the grader, reads the checks where each platform keeps them, or patches NumPy in its
    process and on disk: it gets check's points, reasons and nothing else."""
    _, parts = checked(name)
    pathlib.Path(PLANTED).unlink(missing_ok=True)
    environments = {"Gradescope": tree_digest(gradescope.home / "venv"),
                    "PrairieLearn": tree_digest(prairielearn.image / "venv")}
    for platform, venv, data, done, score, most, stages in hostile_runs(gradescope, prairielearn, hand_ins[name],
                                                                       tmp_path, profile):
        print(f"\n{platform} ({profile}), {name}: {data.get('score')} "
              f"({sum(t[score] for t in data['tests']):g} / {sum(t[most] for t in data['tests']):g} points)")
        assert "minitorch grader: wrote" in done.stdout, done.stdout[-3000:]   # the grader survived
        (valid_gradescope if platform == "Gradescope" else valid_prairielearn)(data)
        assert "forged" not in json.dumps(data)
        same_as_check(parts_of(data["tests"], score, most), parts, stages)
        no_secrets(data, secrets)
        assert tree_digest(venv) == environments[platform]   # NumPy and the rest untouched on disk
        if profile == "full":
            assert not pathlib.Path(PLANTED).exists()   # Landlock: nothing written outside its scratch
        else:
            assert "Landlock: MISSING" in done.stdout and "control groups: MISSING" in done.stdout
            assert "own user: holds" in done.stdout


@pytest.mark.parametrize("profile", ["full", "docker"])
def test_a_borrower_scores_as_leaving_the_tasks_unwritten(gradescope, prairielearn, hand_ins, checked, tmp_path, profile):
    """Issue 31: a package that calls the grader's own versions of six tasks (found through
    the module table) gets, part by part, the points of the same package with those tasks
    unwritten, on both platforms, confined or as a default Docker container runs it."""
    _, control = checked("leaves-six-unwritten")
    _, borrower = checked("borrows-module-table")
    points = lambda parts: {key: value[:2] for key, value in parts.items()}  # noqa: E731
    assert points(borrower) == points(control) and points(control) != {k: (v[1], v[1]) for k, v in control.items()}
    for platform, _, data, _done, score, most, stages in hostile_runs(gradescope, prairielearn,
                                                                     hand_ins["borrows-module-table"], tmp_path, profile):
        found = parts_of(data["tests"], score, most)
        same_as_check(found, borrower, stages)
        assert points(found) == points({k: v for k, v in control.items() if k[0].split(".")[0] in stages}), platform
        assert any("the grader's own version of" in reason for _, _, reason in found.values()), platform


def test_a_one_op_bug_in_a_docker_like_container(gradescope, prairielearn, hand_ins, checked, tmp_path):
    """Without Landlock or control groups, the learner's own user keeps the boundary and
    the grade is check's to the word."""
    table, parts = checked("one-op bug")
    data, done, _ = gradescope.run(hand_ins["one-op bug"], tmp_path / "gs", "docker")
    assert "Landlock: MISSING" in done.stdout and "own user: holds" in done.stdout
    assert parts_of(data["tests"], "score", "max_score") == parts and data["output"] == table
    data, done, _ = prairielearn.run(hand_ins["one-op bug"], "2", tmp_path / "pl", "docker")
    same_as_check(parts_of(data["tests"], "points", "max_points"), parts, ["2"])
    assert data["score"] == pytest.approx(11 / 12)
