"""A term of the course on a real JupyterHub, end to end (docs/JUPYTERHUB.md).

JupyterHub with its proxy, PAM logins of real Unix accounts (one instructor, two learners,
made here as root and removed again), LocalProcessSpawner starting Lab as each of them,
nbgrader's exchange and Lab extensions, Chromium. The instructor makes the course with
`python -m grader hub-course` and runs nbgrader's own commands as their account; each
learner fetches the course from the Assignment List, fills stage 3 in Lab's editor (Alice
all of it, Bob with one op wrong), runs a check cell and submits; the instructor collects
and grades the course's `submitted/` with `python -m grader autograde`, and the gradebook
then holds exactly what `grader check` says of each submitted package; the formgrader
lists both. Then a second week: the instructor gives Bob a point in formgrader, Bob mends
his mistake in Lab's editor and submits again after the class's deadline, the instructor gives him an
extension, collects and grades again: Bob's second submission counts as his resubmission
(both kept, his deadline his own, no late penalty in the gradebook), the formgrader grade
is in grades.csv, canvas.csv and report.html, and the gradebook agrees with them. Each
learner reads their own feedback (Bob's says which submission counted and his deadline)
and cannot reach the other's.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pytest
from hubsetup import (
    PASSWORD,
    ROOT,
    Hub,
    as_user,
    learner_venv,
    make_accounts,
    processes_mentioning,
    remove_accounts,
    unreadable_by_others,
    user_pids,
)

from grader.tasks import PARTS, POINTS, STAGES, TASKS, TOTAL, marker, tasks_of

TEACHER, ALICE, BOB = "mthub-teacher", "mthub-alice", "mthub-bob"
COURSE, ASSIGNMENT = "minitorch", "minitorch"
STAGE_FILES = ("ops_unary.py", "ops_reduce.py")      # stage 3's stubs live in these two files
BUG = ("Task 3.1: Sin.backward", "return grad * np.sin(x)")  # Bob's one-op mistake
PROXY = shutil.which("configurable-http-proxy")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),   # its learners work on stage 3 (Task 3.1)
              pytest.mark.skipif("3.1" not in TASKS, reason="the hub's learners fill Task 3.1, which this course dropped")]

missing = [what for what, ok in (("root", os.geteuid() == 0), ("/usr/bin/chromium", os.path.exists("/usr/bin/chromium")),
                                 ("configurable-http-proxy (npm)", PROXY), ("useradd", shutil.which("useradd")),
                                 ("nsenter", shutil.which("nsenter"))) if not ok]
if missing:
    if os.environ.get("CI"):
        raise RuntimeError(f"the hub test needs {', '.join(missing)}: .ci/run should have installed it")
    pytest.skip(f"the hub test needs {', '.join(missing)}", allow_module_level=True)
import browse
from playwright import sync_api as playwright


def stage_code(name: str, bug: bool) -> dict[str, str]:
    """Stub label -> the code a learner types for it (the reference's, or Bob's mistake)."""
    from grader.release.regions import find_regions
    text = (ROOT / "solutions" / "minitorch" / name).read_text()
    lines, code = text.splitlines(), {}
    for region in find_regions(text):
        body = lines[region.begin + 1:region.end]
        code[region.label] = "\n".join([body[0].lstrip(), *body[1:]])
    if bug and BUG[0] in code:
        code[BUG[0]] = BUG[1]
    return code


def learner_works_and_submits(browser, url: str, user: str, bug: bool):
    page = browse.login(browser, url, user, PASSWORD)
    browse.fetch_assignment(page)
    browse.shoot(page, f"{user}_1_assignment_list_fetched")
    browse.open_file(page, ASSIGNMENT, "03_reductions.ipynb")
    browse.wait_idle(page)
    browse.run_cell(page, "%load_ext minitorch.course.notebook", "", 60_000)  # the first cell: imports, autoreload
    assert "NotImplementedError: Task 3.1: Exp.backward" in browse.run_cell(page, "# Check Task 3.1", "NotImplementedError")
    for name in STAGE_FILES:  # a package file from the file browser, filled in Lab's editor
        browse.open_file(page, ASSIGNMENT, "minitorch", name)
        for label, code in stage_code(name, bug).items():
            browse.fill_stub(page, label, code)
        browse.save(page)
        browse.shoot(page, f"{user}_2_editor_{name[:-3]}")
    page.get_by_role("tab", name="03_reductions.ipynb").click()
    if bug:  # the same kernel sees the edit (autoreload): the check now names the mistake
        out = browse.run_cell(page, "# Check Task 3.1", "CheckFailed")  # minitorch.course.visible's AssertionError
        assert "Sin.backward" in out, out
    else:
        browse.run_cell(page, "# Check Task 3.1", "Task 3.1 passes the visible checks")
    browse.shoot(page, f"{user}_3_check_cell")
    browse.submit(page)
    browse.shoot(page, f"{user}_4_submitted")
    return page


def read_feedback(page, user: str) -> str:
    page.get_by_role("tab", name="Assignments").click()
    browse.assignment_list(page)
    page.locator("#submitted_assignments_list button", has_text="Fetch Feedback").first.click()
    link = page.locator("#submitted_assignments_list a", has_text="view feedback").first
    browse.visible(link, f"{user}'s fetched feedback in the Assignment List")
    browse.shoot(page, f"{user}_5_feedback_fetched")
    link.click()  # the file browser opens the fetched feedback's folder
    item = page.locator(".jp-FileBrowser .jp-DirListing-item", has_text="03_reductions.html").first
    browse.visible(item, "03_reductions.html in the feedback's folder")
    item.dblclick()
    frame = page.frame_locator(".jp-HTMLViewer:visible iframe").first
    browse.visible(frame.locator("body"), "the feedback page in Lab's HTML viewer")
    # the page's body is there before its text: read it once the Task 3.1 block is (a race under load)
    frame.locator("pre", has_text=re.compile(r"^Task 3\.1: ")).first.scroll_into_view_if_needed()
    text = frame.locator("body").inner_text()
    browse.shoot(page, f"{user}_6_feedback_opened")
    return text


def cannot_reach_the_other(page, url: str, user: str, other: str, exchange: pathlib.Path) -> None:
    """From the hub and from the learner's own kernel: no way to the other's work or
    feedback, the exchange's feedback folder cannot be listed, the grader is not there."""
    feedback = f"{ASSIGNMENT}/feedback"
    answer = page.request.get(f"{url}/user/{other}/api/contents/{feedback}")  # with this learner's cookies
    assert answer.status == 403 and "03_reductions" not in answer.text(), (answer.status, answer.url)
    browse.open_file(page, ASSIGNMENT, "03_reductions.ipynb")
    browse.wait_idle(page)
    page.locator(".jp-NotebookPanel:visible .jp-CodeCell").last.click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    probe = {"theirs": f"/home/{other}/{feedback}", "exchange": str(exchange / COURSE / "feedback"),
             "checks": str(ROOT / "grader" / "checks"), "solutions": str(ROOT / "solutions")}
    page.keyboard.insert_text(f"import os\nfor what, path in {probe!r}.items():\n    try:\n        os.listdir(path)\n"
                              "        print(what, 'READABLE')\n    except OSError as e:\n"
                              "        print(what, type(e).__name__)\nprint('probe done')")
    page.keyboard.press("Shift+Enter")
    browse.until(page, "the probe cell to print 'probe done'", "() => document.body.innerText.includes('probe done')")
    out = page.locator(".jp-NotebookPanel:visible .jp-CodeCell", has_text="probe done").last.locator(
        ".jp-OutputArea").inner_text()
    browse.shoot(page, f"{user}_7_cannot_reach_{other}")
    assert "READABLE" not in out and out.count("Error") == 4, out


def gradebook(course: pathlib.Path) -> dict:
    from nbgrader.api import Gradebook
    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for user in (ALICE, BOB):
            submission = gb.find_submission(ASSIGNMENT, user)
            scores[user] = {"total": submission.score, "penalty": submission.late_submission_penalty,
                            "tasks": {g.name: g.score for nb in submission.notebooks for g in nb.grades}}
    return scores


def check(package_folder: pathlib.Path, out: pathlib.Path | None = None) -> tuple[str, object]:
    """What `grader check` finds in a folder: its verdicts (the function the command runs)
    and, given ``out``, the command's own table."""
    from grader.grading.hand_ins import grade_learner
    from grader.settings import Settings
    table = ""
    if out:
        run = subprocess.run([sys.executable, "-m", "grader", "check", str(package_folder), "--out", str(out)],
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-2000:]
        table = run.stdout
    return table, grade_learner(package_folder, "you", Settings())


def formgrader_grade(browser, url: str, student: str, task: str, points: float) -> None:
    """The instructor gives ``student`` ``points`` for ``task`` in formgrader's page of the
    stage's notebook (its score box, saved when it changes)."""
    page = browse.login(browser, url, TEACHER, PASSWORD)
    page.goto(f"{url}/user/{TEACHER}/formgrader/manage_students/{student}/{ASSIGNMENT}")
    link = page.locator("a", has_text=STAGES[task.split(".")[0]]).first
    browse.visible(link, f"{student}'s stage notebook in formgrader")
    link.click()
    box = page.locator(f"input.score#{marker(task)}")
    browse.visible(box, f"the score box of Task {task} in formgrader")
    browse.until(page, f"formgrader to load the grade of Task {task} (its auto score shown in the box)",
                 f"() => document.getElementById('{marker(task)}').hasAttribute('placeholder')")
    with page.expect_response(lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT") as saved:
        box.fill(f"{points:g}")
        box.press("Tab")
    assert saved.value.ok, saved.value.status
    browse.shoot(page, f"teacher_formgrader_grade_{student}")
    page.context.close()


def mend_and_submit_again(page) -> None:
    """Bob mends his mistake in Lab's editor (the file he filled) and submits again."""
    page.get_by_role("tab", name="ops_unary.py").click()
    browse.replace_line(page, BUG[1], BUG[1].replace("sin", "cos"))
    browse.save(page)
    page.get_by_role("tab", name="Assignments").click()
    browse.submit(page)
    browse.shoot(page, f"{BOB}_4_submitted_again")


def term_agrees(course: pathlib.Path, grades: pathlib.Path) -> dict:
    """grades.csv, canvas.csv, report.html and the hub course's gradebook give each learner
    the same final; grades.csv's rows."""
    from nbgrader.api import Gradebook
    with (grades / "grades.csv").open(newline="") as file:
        rows = {r["learner"]: r for r in csv.DictReader(file) if r["row"] == "graded"}
    with (grades / "canvas.csv").open(newline="") as file:
        canvas = {r[0]: float(r[5]) for r in list(csv.reader(file))[2:]}
    report = (grades / "report.html").read_text()
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for user in (ALICE, BOB):
            final = float(rows[user]["final"])
            submission = gb.find_submission(ASSIGNMENT, user)
            assert submission.score - submission.late_submission_penalty == pytest.approx(final, abs=0.01), user
            assert canvas[user.removeprefix("mthub-").title()] == pytest.approx(final, abs=0.01), user
            assert re.search(rf">{user}</a></td>(<td>[^<]*</td>)+<td><b>{final:g}</b></td></tr>", report), user
        rows["bob-extension"] = gb.find_submission(ASSIGNMENT, BOB).extension
    return rows


def test_a_term_on_a_real_hub():
    start = time.monotonic()
    closed = unreadable_by_others()
    if closed:
        pytest.fail(f"the hub's accounts (the instructor's, the learners') must read the repository, but "
                    f"{len(closed)} of its files and folders are closed to other users, such as {closed[0]} (a clone "
                    f"made under umask 077?): run `chmod -R o+rX {ROOT}`, or clone it again with umask 022",
                    pytrace=False)
    learner_bin = learner_venv() / "bin"
    teacher_bin = ROOT / ".venv" / "bin"
    work = pathlib.Path(tempfile.mkdtemp(prefix="minitorch-hub-", dir="/tmp"))
    os.chmod(work, 0o755)
    exchange, learner_config = work / "exchange", work / "learner-jupyter"
    exchange.mkdir(mode=0o1777)
    os.chmod(exchange, 0o1777)  # nbgrader's exchange: every account writes, none removes another's
    users, hub, commands = (TEACHER, ALICE, BOB), None, []
    course = pathlib.Path(f"/home/{TEACHER}/course")
    grades, roster = pathlib.Path(f"/home/{TEACHER}/grades"), pathlib.Path(f"/home/{TEACHER}/roster.csv")

    def lap(what: str) -> None:
        print(f"  {time.monotonic() - start:6.1f} s  {what}", flush=True)

    def instructor(*command: str) -> str:
        ran = as_user(hub, TEACHER, teacher_bin, *command, cwd=str(course) if course.exists() else None)
        commands.append(" ".join(command))
        lap(" ".join(command))
        assert ran.returncode == 0, f"{' '.join(command)}:\n{ran.stdout[-2000:]}\n{ran.stderr[-4000:]}"
        return ran.stdout + ran.stderr

    make_accounts(users)
    try:
        hub = Hub(work / "hub", TEACHER, users, teacher_bin, learner_bin, learner_config, PROXY)
        lap("accounts made, hub started")
        instructor("python", "-m", "grader", "hub-course", "--out", str(course), "--course-id", COURSE,
                   "--assignment", ASSIGNMENT, "--exchange", str(exchange), "--late-penalty", "10")
        # the admin's part: the learners' Jupyter settings, the instructor's formgrader
        shutil.copytree(course / "learner-jupyter", learner_config)
        subprocess.run(["chmod", "-R", "a+rX", str(learner_config)], check=True)
        as_user(hub, TEACHER, teacher_bin, "sh", "-c", "mkdir -p ~/.jupyter && printf '%s\\n' 'c = get_config()' "
                f"\"load_subconfig('nbgrader_config.py', path='{course}')\" > ~/.jupyter/nbgrader_config.py")
        instructor("nbgrader", "release_assignment", ASSIGNMENT)

        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=browse.CHROMIUM, args=browse.ARGS)
            alice = learner_works_and_submits(browser, hub.url, ALICE, bug=False)
            bob = learner_works_and_submits(browser, hub.url, BOB, bug=True)
            lap("learners worked and submitted")
            deadline = dt.datetime.now(dt.UTC)   # the class's: after the first submissions, before Bob's second

            instructor("nbgrader", "collect", ASSIGNMENT)
            as_user(hub, TEACHER, teacher_bin, "sh", "-c", f"printf 'learner,name\\n{ALICE},Alice\\n{BOB},Bob\\n' > {roster}")
            term = ("python", "-m", "grader", "autograde", str(course / "submitted"), "--out", str(grades),
                    "--roster", str(roster), "--deadline", deadline.isoformat())
            assert "Grading 2 hand-in(s)" in instructor(*term)
            shown = formgrader(browser, hub.url)
            assert ALICE in shown and BOB in shown, shown
            lap("formgrader")

            scores = gradebook(course)
            for user in (ALICE, BOB):
                submitted = work / f"check-{user}"
                shutil.copytree(course / "submitted" / user / ASSIGNMENT, submitted)
                table, result = check(submitted, work / "check-out" if user == BOB else None)
                assert scores[user]["tasks"] == {f"task{t.replace('.', '_')}": r.score for t, r in result.tasks.items()}
                assert scores[user]["total"] == result.total[0] and scores[user]["penalty"] == 0
                assert user == ALICE or re.search(rf"Total: {result.total[0]:g} / {TOTAL:g}", table), table
                recorded = [v for notebook in STAGES.values() for v in json.loads(
                    (course / "autograded" / user / ASSIGNMENT / f"{notebook}.verdicts.json").read_text())["verdicts"]]
                assert recorded == [v.__dict__ for v in result.all_verdicts()]  # same parts, points, reasons
            lap("gradebook == grader check")
            sin = PARTS["3.1"]["Sin"]  # Bob's one-op mistake costs the Sin part; both filled every task of stage 3
            assert scores[ALICE]["tasks"]["task3_1"] == POINTS["3.1"] and scores[BOB]["tasks"]["task3_1"] == POINTS["3.1"] - sin
            assert scores[ALICE]["total"] - scores[BOB]["total"] == sin
            assert scores[ALICE]["total"] >= sum(POINTS[t] for t in tasks_of("3"))

            # The second week: a formgrader grade, a resubmission after the deadline, an extension.
            formgrader_grade(browser, hub.url, BOB, "1.1", 1)
            mend_and_submit_again(bob)
            as_user(hub, TEACHER, teacher_bin, "sh", "-c", f"printf 'learner,deadline,days,reason\\n{BOB},,1,illness\\n' "
                    f"> {grades}/extensions.csv")
            instructor("nbgrader", "collect", "--update", ASSIGNMENT)
            said = instructor(*term)
            assert "Grading 1 hand-in(s)" in said, said   # Bob's new submission; Alice's grade stands
            rows = term_agrees(course, grades)
            assert len(json.loads((grades / "hand-ins" / BOB / "index.json").read_text())) == 2
            assert rows[BOB]["task3.1"] == f"{POINTS['3.1']:g}" and rows[BOB]["task1.1"] == "1"
            assert rows[BOB]["late_days"] == "0" and rows["bob-extension"] is not None
            assert float(rows[BOB]["final"]) == float(rows[ALICE]["final"]) + 1
            why = {(line["learner"], line["why"]) for line in map(json.loads, (grades / "log.jsonl").read_text().splitlines())}
            assert (BOB, "a new hand-in") in why, why
            lap("the second week graded: the resubmission, the formgrader grade, the extension")

            instructor("nbgrader", "generate_feedback", ASSIGNMENT)
            instructor("nbgrader", "release_feedback", ASSIGNMENT)
            alice_sees, bob_sees = read_feedback(alice, ALICE), read_feedback(bob, BOB)
            lap("learners read their feedback")
            full, sin = POINTS["3.1"], PARTS["3.1"]["Sin"]
            for sees in (alice_sees, bob_sees):   # Bob's second submission counted: his mistake is mended
                assert f"Task 3.1: {full:g} / {full:g}" in sees and f"ok Sin ({sin:g} / {sin:g})" in sees
            assert "(the class's)" in alice_sees and "the last before your deadline of 1 kept counts" in alice_sees
            assert "(an extension: illness)" in bob_sees and "the last before your deadline of 2 kept counts" in bob_sees
            cannot_reach_the_other(bob, hub.url, BOB, ALICE, exchange)
            browser.close()
        instructor("nbgrader", "export", "--to", str(course / "grades.csv"))
        print("\n".join(["commands of the term, as the instructor:", *commands,
                         f"hub test: {time.monotonic() - start:.0f} s"]))
    finally:
        if hub:
            hub.stop()
        deadline = time.monotonic() + 20  # servers the hub stopped take a moment to exit on a busy machine
        while (left := user_pids(users) + processes_mentioning(str(work))) and time.monotonic() < deadline:
            time.sleep(0.5)
        remove_accounts(users)
        shutil.rmtree(work, ignore_errors=True)
    assert not left, f"processes left running: {left}"
    assert not any(os.path.exists(f"/home/{u}") for u in users)


def formgrader(browser, url: str) -> str:
    """The instructor's formgrader, in its own tab (under JupyterHub its iframe in Lab stays
    blank): the assignment's submissions, one row per learner."""
    page = browse.login(browser, url, TEACHER, PASSWORD)
    page.goto(f"{url}/user/{TEACHER}/formgrader/manage_submissions/{ASSIGNMENT}")
    browse.visible(page.locator(f"text={ALICE}").first, f"{ALICE}'s row in formgrader's submissions")
    browse.visible(page.locator(f"text={BOB}").first, f"{BOB}'s row in formgrader's submissions")
    browse.shoot(page, "teacher_formgrader_submissions")
    text = page.locator("body").inner_text()
    page.goto(f"{url}/user/{TEACHER}/formgrader/gradebook/{ASSIGNMENT}/03_reductions")
    browse.visible(page.locator(f"text={BOB}").first, f"{BOB} in formgrader's gradebook of stage 3", state="attached")
    page.get_by_role("button", name="Show All Names").click()
    browse.visible(page.locator(f"text={BOB}").first, f"{BOB}'s name shown in formgrader's gradebook")
    browse.shoot(page, "teacher_formgrader_gradebook_stage3")
    page.context.close()
    return text
