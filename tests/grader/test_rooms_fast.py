"""Fast tests of rooms the slow layer exercises end to end (a class graded, the hub), so
that every module of the grader runs in `make test-fast` too: the pool of processes and a
process it loses, the hub's collect copying and dating a submission, the hub's
preprocessor on a notebook that is no stage, and the forwarding address of old courses."""

import logging
import os
import pathlib

from grader.class_grading.jobs import GradeJob
from grader.class_grading.pool import grade_class
from grader.results import LearnerResult
from grader.settings import Settings


def pretend_to_grade(job: GradeJob) -> tuple[LearnerResult, float]:
    """A pool's grading function (run in a spawned process): the learner named "dies"
    kills its process, as a hostile hand-in can; the others get an empty result."""
    if job.learner == "dies":
        os._exit(9)
    return LearnerResult(job.learner, job.sid), 0.0


def pretend_to_take_time(job: GradeJob) -> tuple[LearnerResult, float]:
    """A pool's grading function that notes the order it grades in (beside the hand-ins) and
    says it took the seconds its learner's name ends with (``bob-3``), in no time."""
    with open(pathlib.Path(job.path).parent / "order.txt", "a") as order:
        order.write(job.learner + "\n")
    return LearnerResult(job.learner, job.sid), float(job.learner.rsplit("-", 1)[1])


def test_a_class_graded_again_sends_the_learners_slowest_to_grade_last_time_first(tmp_path):
    out, done = tmp_path / "out", list[str]()
    (out / "hand-ins").mkdir(parents=True)

    def order_of(*names: str) -> list[str]:
        (tmp_path / "order.txt").unlink(missing_ok=True)
        grade_class([GradeJob(n, n, str(tmp_path / n), str(tmp_path / "course"), str(out), Settings()) for n in names],
                    1, lambda result, seconds: done.append(result.learner), grade=pretend_to_take_time)
        return (tmp_path / "order.txt").read_text().split()
    assert order_of("ann-1", "bob-3", "cy-2") == ["ann-1", "bob-3", "cy-2"]   # none timed before: as given
    assert order_of("ann-1", "bob-3", "cy-2", "dan-0") == ["dan-0", "bob-3", "cy-2", "ann-1"]   # a new one first
    assert order_of("cy-2", "ann-1", "eve-5") == ["eve-5", "cy-2", "ann-1"]
    assert order_of("ann-1", "eve-5", "bob-3", "dan-0") == ["eve-5", "bob-3", "ann-1", "dan-0"]
    (out / "hand-ins" / "grading-times.json").write_text('{"ann-1": "slow", "bob-3": [')   # damaged: as given
    assert order_of("ann-1", "bob-3", "cy-2") == ["ann-1", "bob-3", "cy-2"]
    assert len(done) == 17 and set(done) == {"ann-1", "bob-3", "cy-2", "dan-0", "eve-5"}   # each graded each time


def test_a_pool_grades_everyone_and_a_process_it_loses_costs_one_learner(tmp_path):
    jobs = [GradeJob(name, name, str(tmp_path / name), str(tmp_path / "course"), str(tmp_path / "out"), Settings())
            for name in ("ann", "dies", "bob")]
    done: dict[str, LearnerResult] = {}
    grade_class(jobs, 2, lambda result, seconds: done.setdefault(result.learner, result), grade=pretend_to_grade)
    assert set(done) == {"ann", "dies", "bob"}
    assert "crash" in " ".join(done["dies"].problems) and done["dies"].total[0] == 0
    assert (tmp_path / "out" / "feedback" / "dies.html").is_file()  # the lost learner still gets a page
    assert not done["ann"].problems and not done["bob"].problems


def test_what_the_run_does_while_the_pool_grades_fails_only_once_every_result_is_in(tmp_path):
    import pytest
    jobs = [GradeJob(name, name, str(tmp_path / name), str(tmp_path / "course"), str(tmp_path / "out"), Settings())
            for name in ("ann", "bob", "cy")]
    done: dict[str, LearnerResult] = {}

    def meanwhile() -> None:
        raise OSError("no space left on the device")
    with pytest.raises(OSError, match="no space left"):
        grade_class(jobs, 2, lambda result, seconds: done.setdefault(result.learner, result), grade=pretend_to_grade,
                    meanwhile=meanwhile)
    assert set(done) == {"ann", "bob", "cy"}


def test_the_hubs_collect_copies_only_plain_files_and_dates_a_submission_by_its_last_change(tmp_path, caplog):
    from grader.hub.collect import OwnedCollect
    source, dest = tmp_path / "inbound", tmp_path / "submitted"
    (source / "minitorch").mkdir(parents=True)
    (source / "minitorch" / "ops.py").write_text("x = 1\n")
    (source / "big.bin").write_bytes(b"0" * 5000)
    (source / "link.py").symlink_to(tmp_path / "elsewhere.py")
    (source / "timestamp.txt").write_text("2000-01-01 00:00:00.000000 UTC")  # backdated
    from nbgrader.coursedir import CourseDirectory
    collect = OwnedCollect.__new__(OwnedCollect)
    collect.coursedir = CourseDirectory(root=str(tmp_path), max_file_size=4, ignore=[".ipynb_checkpoints"])
    collect.log = logging.getLogger("collect-test")
    collect.do_copy(str(source), str(dest))
    assert (dest / "minitorch" / "ops.py").read_text() == "x = 1\n"
    assert not (dest / "big.bin").exists() and not (dest / "link.py").exists()
    stamp = (dest / "timestamp.txt").read_text()
    assert not stamp.startswith("2000") and "handed in at" in caplog.text, (stamp, caplog.text)
    assert "not collected" in caplog.text


def test_the_hubs_preprocessor_grades_a_stages_notebook_and_leaves_any_other_alone(tmp_path):
    import json
    import shutil

    import nbformat

    from grader.hub.preprocessor import GradeNotebookStage
    from grader.tasks import STAGES, tasks_of
    root = pathlib.Path(__file__).resolve().parents[2]
    shutil.copytree(root / "solutions" / "minitorch", tmp_path / "minitorch")
    resources = {"metadata": {"path": str(tmp_path)}, "nbgrader": {"notebook": "notes", "student": "ann"}}
    other = object()
    assert GradeNotebookStage().preprocess(other, resources) == (other, resources)
    assert not list(tmp_path.glob("*.verdicts.json"))
    stage, name = next(iter(STAGES.items()))
    notebook = nbformat.read(root / "notebooks" / f"{name}.ipynb", as_version=4)
    resources["nbgrader"]["notebook"] = name
    GradeNotebookStage().preprocess(notebook, resources)
    verdicts = json.loads((tmp_path / f"{name}.verdicts.json").read_text())["verdicts"]
    assert {v["task"] for v in verdicts} == set(tasks_of(stage)) and all(v["earned"] == v["points"] for v in verdicts)


def test_an_old_course_config_finds_the_gradebooks_config_at_its_old_address():
    from grader.gradebook.course import config
    from grader.pipeline.course import config as old
    assert old is config
