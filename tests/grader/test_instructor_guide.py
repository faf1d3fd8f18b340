"""docs/INSTRUCTOR.md's recipes, followed as written in a copy of the repository: the test
reads each recipe's steps from the doc (commands, "Append to", "Replace the next TODO line
of", "change `A` to `B`"), does them in order, then runs the guards inside the copy (the
release, regions, docs-table, layout, surface and variants tests) and `grader check
solutions`, which must give the reference every point. A doc change that breaks a recipe
fails here."""

import csv
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from conftest import git, make_copy

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "INSTRUCTOR.md").read_text()
pytestmark = pytest.mark.slow
GUARDS = ["tests/release/test_release.py", "tests/release/test_regions.py", "tests/grader/test_layout.py",
          "tests/grader/test_surface.py", "tests/grader/test_variants.py", "tests/release/test_messages.py",
          "tests/grader/test_course_edit.py"]
STEP = re.compile(r"```bash\n(?P<bash>.*?)```"
                  r"|Append to `(?P<append>[^`]+)`:\n\n```(?:python|csv)\n(?P<appended>.*?)```"
                  r"|Replace the next TODO line of `(?P<todo>[^`]+)`.*?with:\n\n```python\n(?P<replacement>.*?)```"
                  r"|[Ii]n `(?P<file>[^`]+)`, change\s+`(?P<old>[^`]+)`\s+to\s+`(?P<new>[^`]+)`", re.S)
TODO = re.compile(r"TODO (Task \d+\.\d+|Stage \d+)")


def recipe(title: str) -> str:
    start = DOC.index(f"### {title}\n")
    end = min((i for i in (DOC.find("\n## ", start), DOC.find("\n### ", start + 1)) if i > 0), default=len(DOC))
    return DOC[start:end]


def run(copy: pathlib.Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(copy))  # the copy's grader and package, not this repository's
    done = subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{args}:\n" + done.stdout[-3000:] + done.stderr[-3000:]
    return done


def command(line: str) -> list[str]:
    if line == "make release":
        return ["-m", "grader", "release"]
    words = shlex.split(line)
    assert words[0] == ".venv/bin/python", f"a recipe's command this test does not know: {line}"
    return words[1:]


def commit(copy: pathlib.Path) -> set[str]:
    """The files changed since the last call (each call commits them in the copy)."""
    git(copy, "add", "-A")
    changed = set(git(copy, "diff", "--cached", "--name-only").split())
    git(copy, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "step", "--allow-empty")
    return changed


def follow(copy: pathlib.Path, text: str, edit: dict[str, str] | None = None) -> dict[str, set[str]]:
    """Do the recipe's steps in order (``edit`` rewrites its commands, e.g. another stage to
    drop); the files touched by hand, by the tools, and by the release."""
    files: dict[str, set[str]] = {"by hand": set(), "by the tools": set(), "by make release": set()}
    said = len(re.findall(r"Append to `|Replace the next TODO line of `|[Ii]n `[^`]+`, change\s", text))
    assert said == sum(1 for s in STEP.finditer(text) if not s["bash"]), "a step of the recipe this test cannot read"
    for step in STEP.finditer(text):
        if step["bash"]:
            for line in filter(None, (s.strip() for s in step["bash"].splitlines())):
                for old, new in (edit or {}).items():
                    line = line.replace(old, new)
                done = run(copy, *command(line))
                if line.endswith("grader check solutions"):
                    earned, most = re.search(r"Total: ([\d.]+) / ([\d.]+)", done.stdout).groups()
                    assert earned == most and " ok " in done.stdout, done.stdout[-3000:]
                files["by make release" if line == "make release" else "by the tools"] |= commit(copy)
            continue
        path = copy / (step["append"] or step["todo"] or step["file"])
        path.parent.mkdir(parents=True, exist_ok=True)   # a file appended to may be new, in a folder not made yet
        source = path.read_text() if path.exists() or not step["append"] else ""   # a file appended to may be new
        if step["append"]:
            source = source.rstrip("\n") + "\n" + step["appended"] if source else step["appended"]
        elif step["todo"]:
            lines = source.splitlines(keepends=True)
            at = next(i for i, line in enumerate(lines) if TODO.search(line))
            indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
            lines[at] = "".join(indent + line if line.strip() else line for line in step["replacement"].splitlines(True))
            source = "".join(lines)
        else:
            assert source.count(step["old"]) == 1, f"{path}: {step['old']!r} is not there once"
            source = source.replace(step["old"], step["new"])
        path.write_text(source)
        files["by hand"] |= commit(copy)
    left = [p for p in set().union(*files.values()) if (copy / p).is_file() and TODO.search((copy / p).read_text(errors="replace"))]
    assert not left, f"TODO lines the recipe does not fill: {left}"
    return files


def guards(copy: pathlib.Path, *more: list[str]) -> str:
    """The guards, then each of ``more`` (the new tests of a recipe) on its own, in the copy."""
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "grader", "solutions", "tests", "benchmarks"], cwd=copy,
                          capture_output=True, text=True)
    assert lint.returncode == 0, f"what the tools and the recipe wrote does not lint clean:\n{lint.stdout[-3000:]}"
    results = ["ruff: clean"]
    for args in [GUARDS, *more]:
        done = run(copy, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *args)
        results.append(f"{' '.join(args) if args is not GUARDS else 'the guards'}: {done.stdout.strip().splitlines()[-1]}")
    return "; ".join(results)


def report(name: str, files: dict[str, set[str]], result: str) -> None:
    print(f"\n{name}:", *(f"  {k}: {', '.join(sorted(v)) or '-'}" for k, v in files.items()), f"  guards: {result}",
          sep="\n")


def test_changing_points(tmp_path):
    copy = make_copy(tmp_path)
    files = follow(copy, recipe("Changing points"))
    assert files["by hand"] == {"grader/tasks.toml"} and "docs/CURRICULUM.md" in files["by make release"]
    report("changing points", files, guards(copy))


def test_adding_a_task(tmp_path):
    copy = make_copy(tmp_path)
    hand_ins, out = tmp_path / "hand-ins", tmp_path / "grades"   # a class graded before the task is added
    shutil.copytree(copy / "solutions" / "minitorch", hand_ins / "ana" / "minitorch",
                    ignore=shutil.ignore_patterns("__pycache__"))
    autograde = ["-m", "grader", "autograde", str(hand_ins), "--out", str(out)]
    run(copy, *autograde)
    course = out / "course"
    files = follow(copy, recipe("Adding a task"))
    assert {"grader/tasks.toml", "grader/checks/stage3.py", "tests/reference/test_stage3_reductions.py"} <= files["by the tools"]
    stub = (copy / "minitorch/ops_unary.py").read_text()
    assert 'raise NotImplementedError("Task 3.4: Softplus.backward")' in stub and "1 + np.exp(-x)" not in stub
    notebook = json.loads((copy / "notebooks/03_reductions.ipynb").read_text())
    assert any("**Task 3.4** is worth 1 point." in "".join(c["source"]) for c in notebook["cells"])
    assert "| 3.4 | 3 (03_reductions) | Softplus.backward |" in (copy / "docs/CURRICULUM.md").read_text()
    report("adding a task", files, guards(copy, ["tests/reference/test_stage3_reductions.py", "-m", "task3_4"],
                                          ["tests/grader/test_checks.py", "-k", "softplus"]))

    # a bug in the new op costs that task only; the progress table lists it; an older course gains its cell
    buggy = tmp_path / "buggy"
    shutil.copytree(copy / "solutions" / "minitorch", buggy / "minitorch")
    source = (buggy / "minitorch/ops_unary.py").read_text()
    (buggy / "minitorch/ops_unary.py").write_text(source.replace("return grad / (1 + np.exp(-x))",
                                                                 "return grad / (1 + np.exp(x))"))
    done = run(copy, "-m", "grader", "check", str(buggy), "--out", str(tmp_path / "buggy-out"))
    scores = dict(re.findall(r"Task (\d+\.\d+)\s+([\d.]+ / [\d.]+)", done.stdout))
    assert {t for t, s in scores.items() if s.split(" / ")[0] != s.split(" / ")[1]} == {"3.4"}
    assert re.search(r"3\.4.*not started", run(copy, "-m", "minitorch.course.progress").stdout)
    said = run(copy, *autograde).stdout   # the same output folder: the course gains the task, ana is graded again
    assert "The course changed (03_reductions)" in said and "Grading 1 hand-in" in said
    with (out / "grades.csv").open() as file:
        row = next(r for r in csv.DictReader(file) if r["learner"] == "ana")
    assert row["task3.4"] == "0" and float(row["final"]) > 0
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        cells = {(c.name, c.max_score) for n in gradebook.find_assignment("03_reductions").notebooks
                 for c in n.grade_cells}
    assert ("task3_4", 1.0) in cells


def test_adding_a_stage(tmp_path):
    copy = make_copy(tmp_path)
    files = follow(copy, recipe("Adding a stage"))
    assert {"solutions/minitorch/ops_extra.py", "solutions/notebooks/08_extras.py"} <= files["by hand"]
    assert {"grader/tasks.toml", "grader/checks/stage8.py", "solutions/minitorch/__init__.py"} <= files["by the tools"]
    assert "notebooks/08_extras.ipynb" in files["by make release"]
    stub = (copy / "minitorch/ops_extra.py").read_text()
    assert 'raise NotImplementedError("Task 8.1: Softsign.backward")' in stub
    report("adding a stage", files, guards(copy, ["tests/reference/test_stage8_extras.py", "tests/reference/test_structure.py"],
                                              ["tests/release/test_notebooks.py", "-k", "08_extras"],
                                              ["tests/grader/test_checks.py", "-k", "softsign"]))


@pytest.mark.parametrize("stage", ["7", "5"])
def test_dropping_a_stage(tmp_path, stage):
    copy = make_copy(tmp_path)
    notebook = next(p.stem for p in (copy / "solutions" / "notebooks").glob(f"0{stage}_*.py"))
    files = follow(copy, recipe("Dropping a stage"), {"stage drop 7": f"stage drop {stage}"})
    assert files["by hand"] == set() and f"notebooks/{notebook}.ipynb" in files["by make release"]
    assert f"solutions/notebooks/{notebook}.py" in files["by the tools"]
    package = "\n".join(p.read_text() for p in (copy / "minitorch").rglob("*.py"))
    assert f'NotImplementedError("Task {stage}.' not in package  # no stub nothing grades: its regions are given code
    report(f"dropping stage {stage}", files, guards(copy))


def test_every_recipe_together_keeps_the_course_green(tmp_path):
    """One copy adapted by every recipe, the guide's own examples included: points changed, a
    task added, a stage added, a stage dropped. Then `make lint` (ruff and mypy) and every
    test of the fast layer pass in it: the tests follow the manifest, or skip saying why.
    (The slow layer's tests that depend on the course's shape take it from the manifest the
    same way; their variants of the new tasks are graded by the recipes' own tests above.)"""
    copy = make_copy(tmp_path)
    for title in ("Changing points", "Adding a task", "Adding a stage", "Dropping a stage"):
        follow(copy, recipe(title))
    run(copy, "-m", "ruff", "check", "grader", "solutions", "tests", "benchmarks")
    run(copy, "-m", "mypy")
    # the learner process's limits do not depend on the course's shape, and their stray
    # processes carry the marker that this run's hostile class looks for machine-wide
    done = run(copy, "-m", "pytest", "-m", "not slow", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
               "--ignore", "tests/grader/test_isolation.py")
    print("\nevery recipe together, the fast layer:", done.stdout.strip().splitlines()[-1])


def test_checking_for_copying(tmp_path):
    copy = make_copy(tmp_path)
    files = follow(copy, recipe("Checking for copying"))
    assert files["by hand"] <= {"try-similarity/submitted.csv"}
    assert {"try-class/ana.zip", "try-class/ben.zip"} <= files["by the tools"]
    with (copy / "try-similarity" / "similarity-pairs.csv").open() as file:
        pairs = list(csv.DictReader(file))
    assert list(pairs[0])[:7] == ["learner_a", "learner_b", "flagged", "score", "shared", "matched_lines", "tasks"]
    # both match the reference; what they share with each other is the reference's, no evidence between them
    assert [(p["learner_a"], p["learner_b"], p["flagged"]) for p in pairs] == [
        ("ana", "solutions/minitorch", "yes"), ("ben", "solutions/minitorch", "yes")]
    assert pairs[0]["handed_in_a"] == "2026-12-01 09:15:00 UTC" and pairs[1]["handed_in_a"] == "2026-12-01 22:40:00 UTC"
    assert all(p["score"] == "1.000" and int(p["shared"]) > 1000 for p in pairs)   # copies of the package: all alike
    with (copy / "try-similarity" / "similarity.csv").open() as file:
        rows = list(csv.DictReader(file))
    assert list(rows[0]) == ["learner_a", "learner_b", "task", "score", "lines"] and all(r["score"] == "1.000" for r in rows)
    page = (copy / "try-similarity" / "similarity.html").read_text()
    assert "2 hand-in(s) match the reference solution: ana, ben" in page
    assert "handed in 2026-12-01 09:15:00 UTC (submitted.csv)" in page
    report("checking for copying", files, "-")


def test_during_the_term(tmp_path):
    """The term's recipes in order, in a class folder: hand-ins, their times, an extension,
    a correction, a regrade of one learner; each recipe's promise checked after it."""
    from grader.term import log
    work = tmp_path / "class"
    for learner in ("ana", "bo"):
        shutil.copytree(ROOT / "solutions" / "minitorch", work / "submissions" / learner / "minitorch",
                        ignore=shutil.ignore_patterns("__pycache__"))
    blackboard = recipe("For Blackboard Learn")   # its roster, as the guide gives it
    (work / "roster.csv").write_text(blackboard[blackboard.index("```csv\n") + 7:blackboard.index("```\n\nGrade")])
    (work / ".gitignore").write_text("grades/\n")   # the output folder: not the course's source
    git(work, "init", "-q")
    commit(work)

    def rows():
        with (work / "grades" / "grades.csv").open() as file:
            return {r["learner"]: r for r in csv.DictReader(file) if r["row"] in ("graded", "missing")}

    follow(work, recipe("Grading the class again"))
    assert rows()["cy"]["row"] == "missing" and (work / "grades" / "hand-ins" / "ana" / "index.json").is_file()
    with (work / "grades" / "blackboard.csv").open() as file:   # the Blackboard recipe's roster, its upload
        uploaded = {r["Username"]: r for r in csv.DictReader(file)}
    assert sorted(uploaded) == ["aalves", "bberg", "cchen"] and uploaded["cchen"]["Student ID"] == "20260003"
    assert float(next(v for k, v in uploaded["aalves"].items() if k.startswith("minitorch [Total Pts:"))) == \
        float(rows()["ana"]["final"]) > 0
    follow(work, recipe("Hand-in times"))       # read by the next run
    follow(work, recipe("Extensions"))
    assert rows()["bo"]["late_days"] == "0" and "illness" in (work / "grades" / "feedback" / "bo.html").read_text()
    follow(work, recipe("Corrections and manual grades"))
    assert rows()["ana"]["task2.2"] == "3"
    before = {k: v for k, v in rows().items() if k != "ana"}
    follow(work, recipe("Regrading one learner"))
    assert {k: v for k, v in rows().items() if k != "ana"} == before and rows()["ana"]["task2.2"] == "3"
    assert log.rebuild(work / "grades") == {k: {f: v[f] for f in log.FIELDS} for k, v in rows().items()}


def test_from_your_lms(tmp_path):
    """The guide's Canvas and Moodle recipes, word for word, on downloads made as the LMSs
    make them (``lms_downloads.py``): every file is its learner's, a file of nobody in the
    roster is refused with the nearest names, lateness comes from the LMS's times (Moodle's
    read in the course's zone), and the exports are the LMSs' import formats. One hand-in
    is graded in each, the others cost no grading."""
    from lms_downloads import canvas_gradebook, moodle_worksheet, reference_zip, write_zip
    handin = reference_zip()

    def folder(name: str) -> pathlib.Path:
        (tmp_path / name).mkdir()
        git(tmp_path / name, "init", "-q")
        return tmp_path / name

    def graded(out: pathlib.Path) -> dict[str, dict[str, str]]:
        with (out / "grades.csv").open() as file:
            return {r["learner"]: r for r in csv.DictReader(file)}

    work = folder("canvas")
    canvas_gradebook(work / "gradebook.csv", [("Pereira, Ana", "10001", "S1", "apereira"),
                                              ("O'Neil-Chen, Cy", "10003", "S3", "cchen")])
    write_zip(work / "submissions.zip", {"pereiraana_LATE_10001_4502_minitorch-1.zip": handin,
                                         "pereiranna_10077_4505_minitorch.zip": handin})   # not in the course
    follow(work, recipe("From Canvas"))
    rows, out = graded(work / "canvas-grades"), work / "canvas-grades"
    total = float(rows[""]["total"])
    assert (rows["apereira"]["late_days"], rows["apereira"]["penalty_percent"]) == ("1", "10")
    assert float(rows["apereira"]["final"]) == pytest.approx(total * 0.9, abs=0.01)
    assert rows["cchen"]["row"] == "missing" and "Student, Test" not in str(rows)
    refused = rows["pereiranna_10077_4505_minitorch.zip"]
    assert refused["row"] == "refused" and "nearest names: 'Pereira, Ana'" in refused["problems"]
    assert "Canvas marked this submission late" in (out / "feedback" / "apereira.html").read_text()
    with (out / "canvas.csv").open() as file:
        canvas = list(csv.reader(file))
    assert canvas[:2] == [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "minitorch (88002)"],
                          ["Points Possible", "", "", "", "", "100"]]   # the assignment's own, as the export gave
    assert {r[0]: (r[1], float(r[5])) for r in canvas[2:]} == {"Pereira, Ana": ("10001", pytest.approx(100 * 0.9, abs=0.01)),
                                                               "O'Neil-Chen, Cy": ("10003", 0.0)}

    work = folder("moodle")
    moodle_worksheet(work / "worksheet.csv", [
        # 23 h 31 min after the deadline in Paris time (1 day late); read as UTC it would be 24 h 31 min (2 days)
        ("5501", "Ana Pereira", "ana@uni.example", "Wednesday, 2 December 2026, 11:30 PM"),
        ("5503", "Cy Chen", "cy@uni.example", "-")])
    write_zip(work / "submissions.zip", {"Ana Pereira_5501_assignsubmission_file_/minitorch.zip": handin,
                                         "Zed Pereira_5509_assignsubmission_file_/minitorch.zip": handin})
    follow(work, recipe("From Moodle"))
    rows, out = graded(work / "moodle-grades"), work / "moodle-grades"
    assert (rows["ana@uni.example"]["late_days"], rows["ana@uni.example"]["penalty_percent"]) == ("1", "10")
    assert rows["cy@uni.example"]["row"] == "missing"
    assert "nearest names: 'Ana Pereira'" in rows["Zed Pereira_5509_assignsubmission_file_/minitorch.zip"]["problems"]
    with (out / "moodle-worksheet.csv").open() as file:
        sheet = {r["Identifier"]: r for r in csv.DictReader(file)}
    assert list(sheet) == ["Participant 5501", "Participant 5503"]
    assert float(sheet["Participant 5501"]["Grade"]) == pytest.approx(100 * 0.9, abs=0.01)   # of its maximum, 100.00
    assert sheet["Participant 5501"]["Last modified (grade)"] == "-" and sheet["Participant 5503"]["Grade"] == ""
    assert "less 10% for 1 day late" in sheet["Participant 5501"]["Feedback comments"]
    assert not (out / "canvas.csv").exists()


def test_taking_a_kit_update(tmp_path):
    """A simulated upstream change merged into an adapted course: `make release` then speaks
    to the instructor, and the guide's rebuild makes a release that passes its guards."""
    section = DOC[DOC.index("## Taking a kit update"):DOC.index("## How long things take")]
    assert ".venv/bin/python -m grader release --force" in section
    copy = make_copy(tmp_path)
    mine = git(copy, "branch", "--show-current").strip()
    git(copy, "branch", "kit")
    follow(copy, recipe("Changing points"))      # the course's adaptation: stage 3's points
    git(copy, "checkout", "-q", "kit")          # the kit's later commit: a note at the end of stage 3's notebook
    notebook = copy / "solutions" / "notebooks" / "03_reductions.py"
    notebook.write_text(notebook.read_text() + "\n# %% [markdown]\n# A later note from the kit.\n")
    module = copy / "solutions" / "minitorch" / "__init__.py"
    module.write_text(module.read_text() + "\n# a later commit of the kit\n")
    run(copy, "-m", "grader", "release")
    commit(copy)
    git(copy, "checkout", "-q", mine)
    merged = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", "--no-edit", "kit"],
                            cwd=copy, capture_output=True, text=True)
    if merged.returncode != 0:   # the generated files conflict: take the kit's, the release rebuilds them
        git(copy, "checkout", "--theirs", "--", "minitorch", "notebooks", "grader/release/released.json")
        git(copy, "add", "-A")
        git(copy, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "merge")
    env = dict(os.environ, PYTHONPATH=str(copy))
    done = subprocess.run([sys.executable, "-m", "grader", "release"], cwd=copy, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 1 and "notebooks/03_reductions.ipynb" in done.stderr, done.stderr
    assert "a kit update into your course" in done.stderr and "release --force" in done.stderr, done.stderr
    assert done.stderr.index("kit update") < done.stderr.index("If this is your work")
    run(copy, "-m", "grader", "release", "--force")
    assert "a later commit of the kit" in (copy / "minitorch" / "__init__.py").read_text()
    built = (copy / "notebooks" / "03_reductions.ipynb").read_text()
    assert "A later note from the kit." in built and "2.5" in (copy / "grader" / "tasks.toml").read_text()
    run(copy, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "tests/grader/test_layout.py",
        "tests/release/test_release.py")
