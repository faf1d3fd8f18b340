"""What a person does on the hub, in Chromium: log in, use nbgrader's Assignment List,
open files from Lab's file browser, fill a stub in Lab's editor, run a check cell, open the
formgrader. Screenshots go to build/screenshots/hub/ (not committed)."""

from __future__ import annotations

import pathlib
import re

from tests import waits
from tests.waits import patient, until, visible

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "screenshots" / "hub"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def shoot(page, name: str) -> pathlib.Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def login(browser, url: str, user: str, password: str):
    """A fresh browser session (its own cookies) logged in to the hub, Lab open."""
    page = patient(browser.new_context(viewport={"width": 1400, "height": 1000}).new_page())
    page.goto(f"{url}/hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", password)
    page.click("#login_submit")
    waits.url(page, f"**/user/{user}/lab**", f"{user}'s Lab to open after logging in")
    visible(page.locator(".jp-DirListing").first, f"Lab's file browser for {user}")
    return page


def assignment_list(page) -> None:
    if page.locator("#released_assignments_list").count() and page.locator("#released_assignments_list").is_visible():
        page.locator("#refresh_assignments_list").click()
    else:
        page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
        page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    visible(page.locator("#released_assignments_list"), "nbgrader's Assignment List")
    until(page, "the Assignment List's three lists to load", "() => ['released', 'fetched', 'submitted'].every(k => "
          "document.getElementById(k + '_assignments_list_loading').hidden)")


def fetch_assignment(page) -> None:
    assignment_list(page)
    page.locator("#released_assignments_list button", has_text="Fetch").click()
    visible(page.locator("#fetched_assignments_list .list_item button:has-text('Submit')").first,
            "the fetched assignment and its Submit button")


def submit(page) -> None:
    assignment_list(page)
    before = page.locator("#submitted_assignments_list .list_item").count()
    page.locator("#fetched_assignments_list button", has_text="Submit").click()
    until(page, "the new submission in the Assignment List's submitted list",
          f"() => document.querySelectorAll('#submitted_assignments_list .list_item').length > {before}")


def open_file(page, *path: str) -> None:
    """Double-click through Lab's file browser from the home folder."""
    if not page.locator(".jp-FileBrowser .jp-DirListing").first.is_visible():
        page.locator('.jp-SideBar [data-id="filebrowser"]').first.click()
        visible(page.locator(".jp-FileBrowser .jp-DirListing").first, "Lab's file browser")
    crumbs = page.locator(".jp-FileBrowser .jp-BreadCrumbs").first
    crumbs.locator(".jp-BreadCrumbs-home").click()
    visible(crumbs.locator(".jp-BreadCrumbs-item").first, "the file browser to be at the home folder", state="detached")
    for depth, name in enumerate(path, 1):
        item = page.locator(".jp-FileBrowser .jp-DirListing-item", has=page.locator(
            ".jp-DirListing-itemText", has_text=re.compile(f"^{re.escape(name)}$"))).first
        visible(item, f"{name} in Lab's file browser (opening {'/'.join(path)})")
        item.dblclick()
        if depth < len(path):
            visible(crumbs.locator(f'.jp-BreadCrumbs-item[data-path="{"/".join(path[:depth])}"]'),
                    f"the file browser to enter {'/'.join(path[:depth])}")
    visible(page.locator(".lm-DockPanel .lm-TabBar-tab", has_text=path[-1]).first, f"a tab for {path[-1]}")


def fill_stub(page, label: str, code: str) -> None:
    """Replace the stub line ``raise NotImplementedError("<label>")`` in the open editor by
    ``code`` (its first line without indentation, the others with theirs)."""
    replace_line(page, f'raise NotImplementedError("{label}")', code)


def replace_line(page, text: str, code: str) -> None:
    """Replace the first line holding ``text`` in the open editor by ``code`` (as ``fill_stub``)."""
    line = page.locator(".jp-FileEditor:visible .cm-line", has_text=text)
    editor = page.locator(".jp-FileEditor:visible .cm-scroller").first
    for _ in range(60):  # the editor draws only the lines in view: scroll down to it
        if line.count():
            break
        editor.hover()
        page.mouse.wheel(0, 300)
        page.wait_for_timeout(100)
    line.first.scroll_into_view_if_needed()
    line.first.click()
    page.keyboard.press("End")
    page.keyboard.press("Shift+Home")
    page.keyboard.insert_text(code)


def save(page) -> None:
    page.keyboard.press("Control+s")
    until(page, "the open file to be saved (its tab no longer marked changed)",
          "() => !document.querySelector('.lm-DockPanel .lm-TabBar-tab.jp-mod-current.jp-mod-dirty')")


def run_cell(page, marker: str, expect: str, timeout_ms: int = 120_000) -> str:
    """Run the code cell holding ``marker`` (Shift+Enter) until its output holds ``expect``."""
    cell = page.locator(".jp-NotebookPanel:visible .jp-CodeCell", has_text=marker).first
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    until(page, f"the cell holding {marker!r} to print {expect!r}", """([marker, expect]) =>
        [...document.querySelectorAll('.jp-CodeCell')].some(c => c.innerText.includes(marker)
        && c.querySelector('.jp-OutputArea') && c.querySelector('.jp-OutputArea').innerText.includes(expect))""",
          arg=[marker, expect], seconds=timeout_ms / 1000)
    return cell.locator(".jp-OutputArea").inner_text()


def wait_idle(page) -> None:
    until(page, "the kernel to be idle", "() => document.querySelector('.jp-Notebook-ExecutionIndicator')"
          " && document.body.innerText.includes('Idle')")
