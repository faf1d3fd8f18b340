"""Waits for the browser, hub and process tests: each waits for the condition it needs,
within a bound generous enough for a loaded two-core machine, and when the bound runs out
it says what it waited for (not only "Timeout 30000ms exceeded").

    until(page, "notebook 01's cells", "() => document.querySelector('.jp-Cell')")
    visible(page.locator(".jp-DirListing"), "Lab's file browser")
    condition(lambda: path.exists(), "the zip to be written", seconds=60)

``condition`` polls a plain Python check; never give it Playwright's state (``page.url``):
Playwright's synchronous API updates that only during its own calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

BOUND = 180.0  # seconds: Lab, a kernel or a hub on a busy machine; a working one takes a few


def _timeout_error() -> type[BaseException]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    return PlaywrightTimeout


def until(page, what: str, script: str, arg: Any = None, seconds: float = BOUND) -> None:
    """Wait until the page's JavaScript ``script`` returns a true value."""
    try:
        page.wait_for_function(script, arg=arg, timeout=seconds * 1000)
    except _timeout_error() as error:
        raise AssertionError(f"waited {seconds:g} s for {what}; it never came ({page.url})") from error


def url(page, pattern: str, what: str, seconds: float = BOUND) -> None:
    """Wait until the page's address matches ``pattern`` (a glob, as Playwright's)."""
    try:
        page.wait_for_url(pattern, timeout=seconds * 1000)
    except _timeout_error() as error:
        raise AssertionError(f"waited {seconds:g} s for {what}; the page stayed at {page.url}") from error


def visible(locator, what: str, seconds: float = BOUND, state: str = "visible") -> None:
    """Wait until the Playwright ``locator`` is in ``state`` (visible, attached, detached)."""
    try:
        locator.wait_for(state=state, timeout=seconds * 1000)
    except _timeout_error() as error:
        raise AssertionError(f"waited {seconds:g} s for {what} ({state}); it never came") from error


def condition(check: Callable[[], Any], what: str, seconds: float = BOUND, every: float = 0.25) -> Any:
    """Poll ``check`` until it returns a true value, and return it."""
    end = time.monotonic() + seconds
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > end:
            raise AssertionError(f"waited {seconds:g} s for {what}; it never came")
        time.sleep(every)


def patient(page, seconds: float = BOUND):
    """A page whose every action (a click, a double click) waits up to ``seconds`` for its
    element: Lab's file browser may take long to list a folder on a busy machine."""
    page.set_default_timeout(seconds * 1000)
    return page
