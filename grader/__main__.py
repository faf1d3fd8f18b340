"""Command line of the course's tools.

    python -m grader release                      rebuild minitorch/ and notebooks/ from solutions/
    python -m grader check [PATH]                 grade your own work (the repo, a folder or a .zip)
    python -m grader autograde SUBMISSIONS        grade a class: one .zip or folder per learner
    python -m grader bundle [--out FILE]          the zip to hand to learners
"""

from __future__ import annotations

import argparse
import multiprocessing
import pathlib
import sys
import tempfile
import time

from . import release


def _progress(learner: str, stage: str) -> None:
    print(f"  {learner}: stage {stage} ...", flush=True)


def _warn_if_unconfined() -> None:
    from .sandbox import landlock_abi
    if landlock_abi() < 1:
        print("warning: this system has no Linux Landlock, so the code being graded can write "
              "outside its own folder; grade only work you trust here", file=sys.stderr)


def check(args: argparse.Namespace) -> int:
    from .course import Course
    from .report import table
    from .submission import locate

    path = pathlib.Path(args.path).resolve()
    if not path.exists():
        print(f"error: {path} does not exist", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out).resolve()
    with tempfile.TemporaryDirectory(prefix="minitorch-check-") as scratch:
        submission = locate(path, "you", pathlib.Path(scratch))
        print(f"Grading {path} ...", flush=True)
        course = Course(pathlib.Path(scratch) / "course", timeout=args.timeout).create()
        result = course.grade(submission, progress=_progress)
        written = course.feedback("you", out / "feedback", hide_hidden_tests=False, result=result)
    print()
    print(table(result))
    if written:
        print(f"\nFeedback: {written[0].parent}/")
    return 0


def learners(folder: pathlib.Path) -> dict[str, pathlib.Path]:
    """One learner per .zip or folder, named by it (a .zip's name without .zip)."""
    found = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir() or entry.suffix == ".zip":
            found[entry.stem if entry.suffix == ".zip" else entry.name] = entry
    return found


def grade_all(jobs: list, workers: int, done, grade=None) -> None:
    """Grade ``jobs`` in ``workers`` processes, calling ``done(result, seconds)`` as each
    learner finishes. A grading process that dies takes every learner it had not finished
    with it; those are graded again one per process, so a submission that kills its
    grading process loses only its own grade."""
    from .course import LearnerResult, TaskResult, grade_job, write_plain_feedback
    from .tasks import POINTS, TASKS
    grade = grade or grade_job
    for job in _pool(jobs, workers, done, grade):
        if _pool([job], 1, done, grade):
            result = LearnerResult(job[1], {t: TaskResult(t, 0, POINTS[t], "not graded") for t in TASKS},
                                   ["grading this submission made the grading process itself crash; "
                                    "nothing of it was graded (ask the instructor to look at it)"])
            write_plain_feedback(result, pathlib.Path(job[0]).parent / "feedback")
            done(result, 0.0)


def _pool(jobs: list, workers: int, done, grade) -> list:
    """Run ``grade`` on ``jobs``; return the jobs lost because a process died."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool
    lost = []
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(grade, job): job for job in jobs}
        for future in as_completed(futures):
            try:
                done(*future.result())
            except BrokenProcessPool:
                lost.append(futures[future])
    return lost


def autograde(args: argparse.Namespace) -> int:
    from .course import Course, LearnerResult
    from .report import plot_distribution, write_csv

    folder = pathlib.Path(args.submissions).resolve()
    if not folder.is_dir():
        print(f"error: {folder} is not a folder of submissions", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out).resolve()
    course_root = out / "course"
    if folder.is_relative_to(course_root) or out.is_relative_to(folder):
        print(f"error: the submissions ({folder}) and the output ({out}) overlap: grading would change "
              "what it reads; choose another --out", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    _warn_if_unconfined()
    Course(course_root, timeout=args.timeout).create()
    jobs = [(str(course_root), name, str(path), not args.show_hidden, args.timeout)
            for name, path in learners(folder).items()]
    print(f"Grading {len(jobs)} submission(s) from {folder} with {args.jobs} job(s) ...", flush=True)
    start = time.perf_counter()
    results = []

    def done(result: LearnerResult, seconds: float) -> None:
        results.append(result)
        score, most = result.total
        print(f"  [{len(results)}/{len(jobs)}] {result.learner}: {score:g} / {most:g} ({seconds:.1f} s)", flush=True)

    grade_all(jobs, args.jobs, done)
    write_csv(results, out / "grades.csv")
    plot_distribution(results, out / "scores.png")
    elapsed = time.perf_counter() - start
    print(f"Done in {elapsed:.1f} s: {out / 'grades.csv'}, {out / 'scores.png'}, feedback in {out / 'feedback'}/")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader", description="The minitorch course's tools.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("release", help="rebuild minitorch/ and notebooks/ from solutions/")
    p = commands.add_parser("check", help="grade your own work")
    p.add_argument("path", nargs="?", default=str(release.ROOT), help="the repo (default), a folder or a .zip")
    p.add_argument("--out", default="grader-output", help="where to write the feedback (default: grader-output/)")
    p.add_argument("--timeout", type=int, default=60, help="seconds allowed per notebook cell")
    p = commands.add_parser("autograde", help="grade a class of submissions")
    p.add_argument("submissions", help="a folder with one .zip or folder per learner, or an nbgrader submitted/")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", default="grader-output", help="where to write grades.csv, feedback and the course")
    p.add_argument("--timeout", type=int, default=60, help="seconds allowed per notebook cell")
    p.add_argument("--show-hidden", action="store_true", help="keep the hidden tests' source in the feedback")
    p = commands.add_parser("bundle", help="build the zip to hand to learners")
    p.add_argument("--out", default="build/minitorch-course.zip")
    args = parser.parse_args(argv)
    if args.command == "bundle":
        from .bundle import build
        print(f"wrote {build(pathlib.Path(args.out).resolve())}")
        return 0
    if args.command == "release":
        release.build()
        print(f"rebuilt {release.ROOT / 'minitorch'} and {release.ROOT / 'notebooks'} "
              f"from {len(release.source_notebooks())} notebook(s)")
        return 0
    return check(args) if args.command == "check" else autograde(args)


if __name__ == "__main__":
    sys.exit(main())
