"""Browser tests: Playwright for Python driving Debian's Chromium (never `playwright install`).

`chromium()` starts one headless Chromium; `page_for(browser, server)` opens a fresh
context (its own cookies) on a running server. Screenshots go to artifacts/.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CIRULLA_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"

#: How long a waiting assertion waits. Playwright's 5 s is short for a page on a CI
#: machine whose two cores also run the other worker's servers and browser.
EXPECT_TIMEOUT = 15_000


def chromium_or_skip() -> tuple[Any, Any]:
    """(playwright, browser), or a skip naming what is missing."""
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        pytest.skip("playwright (the Python package) is not installed")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    expect.set_options(timeout=EXPECT_TIMEOUT)  # once per process, for every test
    pw = sync_playwright().start()
    browser = pw.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
    )
    return pw, browser


def page_for(browser: Any, base_url: str, *, locale: str = "it-IT", **context: Any) -> Any:
    ctx = browser.new_context(base_url=base_url, locale=locale, **context)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    return page


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@contextlib.contextmanager
def page_opener(browser: Any, base_url: str) -> Iterator[Callable[..., Any]]:
    """open(locale=..., **context) opens a fresh browser context (its own cookies); all
    are closed afterwards, and none may have thrown an uncaught JavaScript error."""
    opened: list[Any] = []

    def open_page(locale: str = "it-IT", **context: Any) -> Any:
        context.setdefault("viewport", DESKTOP)
        p = page_for(browser, base_url, locale=locale, **context)
        errors: list[str] = []
        p.on("pageerror", lambda e: errors.append(str(e)))
        p.js_errors = errors
        opened.append(p)
        return p

    yield open_page
    for p in opened:
        assert not p.js_errors, p.js_errors
        p.context.close()


def expect(target: Any) -> Any:
    """Playwright's waiting assertions (imported late: some tests need no browser)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(target)


def guest(page: Any) -> dict[str, Any]:
    """Log the page's context in as a new guest (through its own request context)."""
    r = page.request.post("/api/guest")
    assert r.status == 201, r.text()
    user: dict[str, Any] = r.json()["user"]
    return user


def open_table_options(page: Any, *, tap: bool = False) -> Any:
    """Open a table's options popover and return its panel.

    The popover's module arrives after the table is drawn and takes its placeholder
    button's place (table-extras.js): a click pressed on the placeholder and released on
    the popover is lost, so wait for the popover before pressing."""
    panel = page.locator(".table-options > .table-options-panel")
    expect(panel).to_be_attached()
    summary = page.locator(".table-options > summary")
    if tap:
        summary.tap()
    else:
        summary.click()
    expect(panel).to_be_visible()
    return panel
