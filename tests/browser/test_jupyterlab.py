"""A learner's path in a real browser: JupyterLab started as `make lab` starts it (rooted at
the course folder, so notebooks/ and minitorch/ are side by side), driven by Playwright in
Debian's Chromium: run a notebook, open a package file from Lab's file browser, fill a stub
in Lab's editor, save, re-run the check without restarting, see the progress table, make
the hand-in zip and grade it. Screenshots go to build/screenshots/ (not committed)."""

import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import urllib.request

import pytest

from grader.release import bundle
from tests.waits import condition, patient, until, visible

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
TOKEN = "minitorch-test"
NBGRADER_SERVER_EXTENSIONS = [f"nbgrader.server_extensions.{name}" for name in
                              ("formgrader", "validate_assignment", "assignment_list", "course_list")]

if not os.path.exists(CHROMIUM):
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: .ci/run should have installed Debian's chromium")
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)
from playwright import sync_api as playwright

pytestmark = pytest.mark.slow  # run by `make test`, not `make test-fast`


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=2)
        return True
    except OSError:
        return False


def workspace(tmp: pathlib.Path, package: pathlib.Path) -> pathlib.Path:
    shutil.copytree(ROOT / "notebooks", tmp / "notebooks")
    shutil.copytree(package, tmp / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    # Render every cell, not only those on screen, so the test can read all outputs.
    settings = tmp / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    # Lab as the learner's environment has it: the course's server settings, and none of
    # the instructor's nbgrader menus, buttons and side panel (installed here, not there).
    config = json.loads((ROOT / "etc" / "jupyter_server_config.json").read_text())
    config["ServerApp"]["jpserver_extensions"] = {name: False for name in NBGRADER_SERVER_EXTENSIONS}
    (tmp / ".jupyter" / "jupyter_server_config.json").write_text(json.dumps(config))
    (tmp / ".jupyter" / "labconfig").mkdir()
    (tmp / ".jupyter" / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"@jupyter/nbgrader": True}}))
    return tmp


@pytest.fixture
def lab(tmp_path):
    """Start JupyterLab on a copy of the course; yield a function that opens it with a package."""
    servers = []

    def start(package: pathlib.Path, *options: str):
        folder = workspace(tmp_path / f"ws{len(servers)}", package)
        getattr(start, "before_start", lambda folder: None)(folder)
        port = free_port()
        env = dict(os.environ, PYTHONPATH=str(folder), JUPYTER_CONFIG_DIR=str(folder / ".jupyter"))
        server = subprocess.Popen(
            [str(pathlib.Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", f"--port={port}",
             "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={TOKEN}", "--allow-root",
             "--ServerApp.root_dir=.", *options], cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        servers.append(server)
        start.folder = folder
        url = f"http://127.0.0.1:{port}"
        condition(lambda: answers(f"{url}/api/status?token={TOKEN}") or server.poll() is not None,
                  f"JupyterLab to answer at {url}")
        assert server.poll() is None, f"JupyterLab ended with status {server.returncode} before it answered"
        return url

    yield start
    for server in servers:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture
def page():
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        page = patient(browser.new_page(viewport={"width": 1400, "height": 1000}))
        yield page
        browser.close()


def open_and_run_all(page, url: str, notebook: str, timeout_s: float = 180) -> None:
    page.goto(f"{url}/lab/tree/{notebook}?token={TOKEN}")
    visible(page.locator(".jp-NotebookPanel .jp-Cell").first, f"{notebook}'s cells")
    until(page, f"{notebook}'s kernel to be idle", "() => document.querySelector('.jp-Notebook-ExecutionIndicator')"
          " && document.body.innerText.includes('Idle')")
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    until(page, f"every cell of {notebook} to have run (a number in each prompt)", """() => {
        const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')];
        return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
    }""", seconds=timeout_s)
    until(page, f"{notebook}'s images to be drawn",
          "() => [...document.querySelectorAll('.jp-OutputArea-output img')].every(i => i.complete)")


def shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def test_notebook_01_runs_in_the_browser_and_names_the_stubs(lab, page):
    url = lab(ROOT / "minitorch")
    open_and_run_all(page, url, "notebooks/01_chain_rule.ipynb")
    shoot(page, "01_after_run_all")
    images = page.locator(".jp-OutputArea-output img")
    assert images.count() >= 2
    assert all(images.nth(i).evaluate("img => img.naturalWidth > 100") for i in range(images.count()))
    errors = [e for e in page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
              .all_inner_texts() if e.strip()]
    assert any("NotImplementedError: Task 1.1: central_difference" in e for e in errors), errors
    assert all("NotImplementedError: Task 1." in e for e in errors), errors
    page.locator("text=NotImplementedError: Task 1.1").first.scroll_into_view_if_needed()
    shoot(page, "01_stub_error")


def test_stage_6_with_the_reference_shows_no_error_and_plots(lab, page):
    url = lab(ROOT / "solutions" / "minitorch")
    open_and_run_all(page, url, "notebooks/06_training.ipynb", timeout_s=300)
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").all_inner_texts()
    assert not [e for e in errors if "Error" in e], errors
    assert page.locator(".jp-OutputArea-output img").count() >= 5
    page.locator(".jp-OutputArea-output img").nth(1).scroll_into_view_if_needed()
    shoot(page, "06_loss_curves")


def cell_output(page, marker: str) -> str:
    return page.locator(".jp-CodeCell", has_text=marker).first.locator(".jp-OutputArea").inner_text()


def test_a_learner_fills_a_stub_in_labs_editor_checks_progress_and_hands_in(lab, page, tmp_path):
    url = lab(ROOT / "minitorch")
    folder = lab.folder
    open_and_run_all(page, url, "notebooks/01_chain_rule.ipynb")
    assert "NotImplementedError: Task 1.1" in cell_output(page, "# Check Task 1.1")
    # the file browser shows the course root: open minitorch/numerical.py from it
    if not page.locator(".jp-DirListing").first.is_visible():
        page.locator('.jp-SideBar [data-id="filebrowser"]').first.click()
    page.locator(".jp-BreadCrumbs-home").first.click()
    page.locator(".jp-DirListing-item", has_text="minitorch").first.dblclick()
    page.locator(".jp-DirListing-item", has_text="numerical.py").first.dblclick()
    line = page.locator(".jp-FileEditor .cm-line", has_text='raise NotImplementedError("Task 1.1')
    visible(line, "the stub of Task 1.1 in Lab's editor")
    shoot(page, "lab_editor_stub")
    line.click()
    page.keyboard.press("End")
    page.keyboard.press("Shift+Home")
    page.keyboard.type("up, down = list(values), list(values); up[arg] += eps; down[arg] -= eps; "
                       "return (f(*up) - f(*down)) / (2 * eps)")
    page.keyboard.press("Control+s")
    typed = "return (f(*up) - f(*down)) / (2 * eps)"
    saved = condition(lambda: typed in (text := (folder / "minitorch" / "numerical.py").read_text()) and text,
                      "Lab to save numerical.py with the typed line")
    assert "return (f(*up) - f(*down)) / (2 * eps)" in saved and "Task 1.1: central_difference\")" not in saved
    shoot(page, "lab_editor_filled")
    # back to the notebook: the check passes without restarting the kernel
    page.get_by_role("tab", name="01_chain_rule.ipynb").click()
    check = page.locator(".jp-CodeCell", has_text="# Check Task 1.1").first
    check.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    until(page, "the check of Task 1.1 to pass", """() => [...document.querySelectorAll('.jp-CodeCell')].some(c =>
        c.innerText.includes('# Check Task 1.1') && c.innerText.includes('Task 1.1 passes'))""")
    shoot(page, "01_check_passes")
    # the progress table, from a new cell at the end
    page.keyboard.press("Escape")
    page.locator(".jp-CodeCell").last.click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")  # edit mode in the new cell
    page.keyboard.type("from minitorch.course.progress import show; show()")
    page.keyboard.press("Shift+Enter")
    until(page, "the progress table's last line", "() => document.body.innerText.includes('the hidden tests decide the grade')")
    table = page.locator(".jp-CodeCell").last.locator(".jp-OutputArea").inner_text()
    assert re.search(r"1\.1 +2 +done", table) and re.search(r"1\.2 +4 +not started", table), table
    shoot(page, "progress_table")
    # the hand-in, as `make handin` makes it, graded
    env = dict(os.environ, PYTHONPATH=str(folder))
    made = subprocess.run([sys.executable, "-m", "minitorch.course.handin", "--no-checks"], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    graded = subprocess.run([sys.executable, "-m", "grader", "check", str(folder / "handin.zip"), "--out",
                             str(tmp_path / "out")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert graded.returncode == 0 and re.search(r"ok Task 1\.1 +2 / 2", graded.stdout), graded.stdout[-3000:]


def make_lab_options(makefile: str) -> list[str]:
    """The JupyterLab options of a Makefile's ``lab`` target (quotes removed, the
    Makefile's own variables expanded)."""
    variables = dict(re.findall(r"^(\w+)\s*:=\s*(\S+)\s*$", makefile, re.M))

    def expand(text: str) -> str:
        return re.sub(r"\$\((\w+)\)", lambda m: expand(variables[m.group(1)]), text)

    line = next(line for line in makefile.splitlines() if "jupyter lab " in line)
    return [expand(o.strip("'\"")) for o in line.split() if o.strip("'\"").startswith("--LabApp.")]


def install_first_layout(folder: pathlib.Path, options: list[str]) -> None:
    """Lab's first layout where `make lab` puts it (the workspaces folder its options name)."""
    workspaces = next(o.split("=", 1)[1] for o in options if o.startswith("--LabApp.workspaces_dir="))
    (folder / workspaces).mkdir(parents=True)
    shutil.copyfile(ROOT / "etc" / "jupyterlab-workspace.json", folder / workspaces / "default-37a8.jupyterlab-workspace")


VIEW = "[...document.querySelectorAll('.jp-FileEditor .cm-content')].filter(e => e.offsetParent)[0].cmView.view"


def enter_after_each_stub(page, shown: str, path: pathlib.Path, tried: list) -> list[str]:
    """Open ``name`` from the file browser; at the end of each stub press Enter and type a
    line (real keys: Lab's Python mode decides the indentation), compare its indentation
    with the stub's, then take the line out again."""
    page.locator(".jp-DirListing-itemName", has_text=re.compile(f"^{re.escape(path.name)}$")).dblclick()
    visible(page.locator(".jp-FileEditor:visible .cm-line").first, f"{shown} in Lab's editor")
    lines = path.read_text().splitlines()
    until(page, f"all {len(lines)} lines of {shown} in the editor", f"n => {VIEW}.state.doc.lines >= n", arg=len(lines))
    numbers = [n for n, line in enumerate(lines, 1) if 'raise NotImplementedError("Task' in line]
    wrong = []
    for n in reversed(numbers):  # from the bottom: a misplaced line cannot change how the lines above parse
        tried.append((shown, n))
        page.evaluate(f"n => {{ const v = {VIEW}; v.dispatch({{selection: {{anchor: v.state.doc.line(n).to}}, "
                      "scrollIntoView: true}); v.focus(); }", n)
        page.keyboard.press("Enter")
        page.keyboard.type("pass  # typed")
        stub, typed = page.evaluate(f"n => {{ const d = {VIEW}.state.doc; return [d.line(n).text, d.line(n + 1).text]; }}", n)
        if len(typed) - len(typed.lstrip()) != len(stub) - len(stub.lstrip()):
            wrong.append(f"{shown}: Enter after {stub.strip()!r} gave {typed!r}")
        page.evaluate(f"n => {{ const v = {VIEW}; const d = v.state.doc; "
                      "v.dispatch({changes: {from: d.line(n).to, to: d.line(n + 1).to}}); }", n)
    return wrong


def test_make_lab_shows_the_course_folder_and_every_stub_indents_on_enter(lab, page):
    """`make lab` opens notebook 01 with the file browser at the course folder (notebooks/
    and minitorch/ side by side); in Lab's editor, Enter at the end of every stub of the
    package starts the next line at the stub's own indentation (Lab's Python mode once
    lost its place after an annotated *args and put the line at column 0)."""
    options = make_lab_options((ROOT / "Makefile").read_text())
    assert options == make_lab_options((bundle.LEARNER_FILES / "Makefile").read_text()), \
        "the course's and the bundle's `make lab` differ"
    lab.before_start = lambda folder: install_first_layout(folder, options)
    url = lab(ROOT / "minitorch", *options)
    page.goto(f"{url}/?token={TOKEN}")  # the server sends the browser to /lab, whose first layout `make lab` installs
    visible(page.locator(".jp-NotebookPanel .jp-Cell").first, "notebook 01's cells")
    assert "01_chain_rule.ipynb" in page.locator(".jp-mod-current .lm-TabBar-tabLabel").first.inner_text()
    until(page, "minitorch/ and notebooks/ in Lab's file browser", """() => {
        const names = [...document.querySelectorAll('.jp-DirListing-item .jp-DirListing-itemName')].map(e => e.textContent);
        return names.includes('minitorch') && names.includes('notebooks');
    }""")
    shoot(page, "make_lab_start")
    wrong, tried = [], []
    for folder in sorted({p.parent for p in (ROOT / "minitorch").rglob("*.py")}):
        stubbed = [p for p in sorted(folder.glob("*.py")) if 'raise NotImplementedError("Task' in p.read_text()]
        if not stubbed:
            continue
        page.locator(".jp-BreadCrumbs-home").first.click()  # back to the course folder, then down
        for part in folder.relative_to(ROOT).parts:
            page.locator(".jp-DirListing-itemName", has_text=re.compile(f"^{re.escape(part)}$")).dblclick()
        for path in stubbed:
            wrong += enter_after_each_stub(page, str(path.relative_to(ROOT)), path, tried)
    stubs = sum(p.read_text().count('raise NotImplementedError("Task') for p in (ROOT / "minitorch").rglob("*.py"))
    assert len(tried) == stubs and any(name.startswith("minitorch/nn/") for name, _ in tried), tried
    assert not wrong, "\n".join(wrong)
