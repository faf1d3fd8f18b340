"""The minitorch course's autograder and release builder (``python -m grader``).

A map, one folder per trust zone (docs/GRADER.md has more; docs/INSTRUCTOR.md says how to
adapt the course):

    tasks.toml   THE task manifest: tasks, parts, points, the package names each task's
                 checks may use. tasks.py reads it; nothing else lists tasks or points.
    settings.py  the limits (one CLI flag and one nbgrader traitlet each)
    results.py   verdicts -> points: the only place scores are computed
    __main__.py  the command line: parses arguments into typed values, calls a command

    commands/    one module per command (check, autograde, merge, worker, release, tasks,
                 bundle, hub_course, gradescope, prairielearn, handin, similarity), each a plain
                 ``main(*, ...) -> int`` with typed keyword arguments.

    probe_declarations.py  every probe: the package names it reaches, the helpers it
                 swaps in (read by both sides; pure data)
    learner/     runs INSIDE the learner's process, confined: process.py (confines itself,
                 imports the package, answers requests), the probes it calls and the
                 stand-ins that ask the grader for given helpers. Imports nothing but
                 boundary/wire.py, boundary/confinement.py and probe_declarations.py.
    boundary/    the wall between grader and learner code: cage.py (scratch tmpfs, control
                 groups, ending every process), confinement.py (Landlock, seccomp, no
                 capabilities), wire.py (plain data only), runner.py (the grader's side:
                 start, call, time out, restart; refuses undeclared package names),
                 given.py (the given versions of earlier tasks, answered to stand-ins).
    checks/      the trusted checks: the part registry, stageN*.py (stage N's parts, nothing
                 another stage needs), reference.py (the NumPy versions any check may use),
                 helpers, central differences. Never run in the learner's process.
    lateness.py  the late policy (``LatePolicy``: a deadline and a rate, parsed once)
    files.py     the names of the files in a class's output folder

    intake/      reading hand-ins without trusting them: submissions.py (the folder's
                 entries: hand-ins and refusals, ids), hand_in.py (one hand-in's package,
                 copied under checked names), unpack.py (a folder's or a zip's files),
                 lms_download.py, canvas.py, moodle.py (an LMS's bulk download).
    grading/     running the checks: stages.py (one stage's parts against one package),
                 hand_ins.py (every stage of one hand-in: what check, the nbgrader
                 preprocessors, the platforms and the queue's workers all call).
    gradebook/   the nbgrader course that records grades: course.py (the course folder,
                 its gradebook), preprocessor.py (``GradeFromChecks``, the late rule),
                 term.py (extensions, corrections as manual scores, formgrader's grades),
                 hubbook.py (the JupyterHub course's gradebook as a term's).
    class_grading/  a class on this machine: jobs.py (one learner: read, grade, late
                 policy, gradebook, feedback), pool.py (the class in a process pool),
                 plan.py and term_run.py (a run over the term: what counts, what changed).
    term/        the term's record in the output folder: sheets.py (submitted.csv,
                 corrections.csv, extensions.csv), times.py (hand-in times), kept.py
                 (every hand-in by content), graded.py (verdicts by content and grading
                 inputs), log.py (the audit log of every score change).
    queue/       a class on Celery workers: instructor.py (sending, recording with
                 class_grading's ``record``), worker.py (grading on a grading machine).
    pipeline/    a forwarding address only: course folders made before the split import
                 ``grader.pipeline.course`` from their nbgrader_config.py.
    outputs/     what people read: feedback.py, tables.py, classreport.py, publish.py,
                 lms/ (the LMS exports: one module per LMS, and their registry).
    platforms/   Gradescope's autograder and PrairieLearn's external grader.
    hub/         the course on a JupyterHub with nbgrader's exchange.
    release/     the release builder: build.py, regions.py, bundle.py and the learner
                 bundle's own files. Imports nothing of the grader outside its folder.
    similarity/  the copying check: every hand-in's whole package (parsed, never run) against
                 every other's and the reference's; similarity-pairs.csv, similarity.csv and .html.
    course_edit/ reshaping the course: add a task or a stage, drop a stage (the sources only).

tests/grader/test_layout.py holds these directions.
"""
