"""The first minute, as a learner lives it: `make lab` in the unpacked course bundle (its
own Makefile, which makes the virtual environment), then every address it prints pasted
by hand into a fresh browser page, as the README tells a learner on a remote machine or
WSL to do: each opens Lab at notebook 01, with notebooks/ and minitorch/ side by side in
the file browser, and the notebook opens clean (no unsaved-changes mark). Screenshots go
to build/screenshots/ (not committed)."""

import os
import pathlib
import re
import signal
import subprocess
import sys
import zipfile

import pytest

from grader.release import bundle
from tests.waits import condition, patient, until, visible

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "screenshots"
CHROMIUM = "/usr/bin/chromium"

if not os.path.exists(CHROMIUM):
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: .ci/run should have installed Debian's chromium")
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)
from playwright import sync_api as playwright

pytestmark = pytest.mark.slow  # run by `make test`, not `make test-fast`


def printed_addresses(text: str) -> list[str]:
    """What Jupyter tells the learner to open: the file, and each address to copy."""
    start = text.index("To access the server, open this file in a browser:")
    block = text[start:].split("\n\n")[0]
    return re.findall(r"(?:file|https?)://\S+", block)


def wait_for(path: pathlib.Path, text: str, seconds: float) -> str:
    """The log once it holds ``text`` and the whole block of addresses after it: Jupyter's
    last address, 127.0.0.1's, ends its line (nothing else need follow), or a blank line or
    the server's next log line closes the block."""
    def whole() -> str:
        content = path.read_text(errors="replace")
        after = content[content.index(text):] if text in content else ""
        last = after.rfind("/lab?token=")
        closed = re.search(r"http://127\.0\.0\.1:\d+/lab\?token=\w+\n", after) or re.search(r"\n\s*\n|\n\[", after[last:])
        return content if last >= 0 and closed else ""
    try:
        return condition(whole, f"`make lab` to print {text!r} and the addresses after it", seconds, every=1)
    except AssertionError as error:
        raise AssertionError(f"{error}:\n{path.read_text(errors='replace')[-3000:]}") from None


def test_every_address_make_lab_prints_opens_notebook_01_beside_the_course_folder(tmp_path):
    archive = bundle.build(tmp_path / "minitorch-course.zip")
    with zipfile.ZipFile(archive) as z:
        z.extractall(tmp_path)
    folder = tmp_path / "minitorch-course"
    log = tmp_path / "make-lab.log"
    env = {"PATH": f"{pathlib.Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path),
           "BROWSER": "true"}  # a browser "opens"; the learner here pastes the address instead
    with open(log, "w") as out:
        lab = subprocess.Popen(["make", "lab"], cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        text = wait_for(log, "To access the server, open this file in a browser:", 900)
        addresses = printed_addresses(text)
        http = [a for a in addresses if a.startswith("http")]
        assert http and any(a.startswith("file://") for a in addresses), text[-3000:]
        for address in http:  # the form both READMEs quote, one "?" and the token
            assert re.fullmatch(r"http://(localhost|127\.0\.0\.1):\d+/lab\?token=\w+", address), address
        quoted = "http://localhost:8888/lab?token=..."
        assert quoted in (folder / "README.md").read_text()
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"])
            for number, address in enumerate(addresses):
                context = browser.new_context(viewport={"width": 1400, "height": 1000})  # a fresh page: no cookie
                page = patient(context.new_page())
                page.goto(address)
                visible(page.locator(".jp-NotebookPanel .jp-Cell").first, f"notebook 01's cells at {address}")
                current = page.locator(".lm-TabBar-tab.lm-mod-current.jp-mod-current")
                assert "01_chain_rule.ipynb" in current.first.inner_text(), address
                until(page, "minitorch/ and notebooks/ in Lab's file browser", """() => {
                    const names = [...document.querySelectorAll('.jp-DirListing-item .jp-DirListing-itemName')]
                        .map(e => e.textContent);
                    return names.includes('minitorch') && names.includes('notebooks');
                }""")
                assert page.locator(".jp-DirListing").first.is_visible()
                # the kernel has started and told Lab its language: nothing changed the notebook
                until(page, "the kernel to start and be idle", "() => document.body.innerText.includes('Idle')")
                page.wait_for_timeout(3000)  # not a wait for a condition: time in which a changed notebook would be marked
                tab = page.locator(".lm-TabBar-tab", has_text="01_chain_rule.ipynb").first
                assert "jp-mod-dirty" not in (tab.get_attribute("class") or ""), f"{address}: opens with unsaved changes"
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOTS / f"first_minute_{number}_{address.split(':')[0]}.png"))
                if number == 0:  # the locked cell after a task's check says what it is, not a folded •••
                    graded = page.locator(".jp-CodeCell", has_text="autograder writes your points here").first
                    graded.scroll_into_view_if_needed()
                    assert graded.locator(".jp-InputArea-editor").is_visible()
                    assert page.locator(".jp-Notebook .jp-InputPlaceholder").count() == 0
                    page.screenshot(path=str(SHOTS / "first_minute_graded_cell.png"))
                context.close()
            browser.close()
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=60)
