"""/docs in a real headless Chromium: the operations show, and "Try it out" gets a 200.

The app is served for real (uvicorn on a free 127.0.0.1 port, in a thread of this process, so
the build under test is the one served). The browser is Debian's `chromium-headless-shell`,
installed by `deploy/ensure-chromium.sh` (Playwright's own browser download needs a CDN);
the test finds it with `dpkg -L`, or at `NUMRULES_CHROMIUM`. Without it the test is skipped,
except under `deploy/test.sh`, which sets `NUMRULES_REQUIRE_BROWSER=1`: there it fails.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.app import app
from tests.api.serving import serve

#: The launch flags of a browser on a closed network: no sandbox (root), no GPU, and none of
#: Chromium's background connections (update checks, sync, first-run pages).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
SCORE_ROUND = "#operations-Rules-NumwarsClassicScoreRound"


def chromium_path() -> str | None:
    """Debian's headless shell, as `deploy/ensure-chromium.sh` finds it."""
    if os.environ.get("NUMRULES_CHROMIUM"):
        given = os.environ["NUMRULES_CHROMIUM"]
        return given if Path(given).is_file() else None
    try:
        listing = subprocess.run(
            ["dpkg", "-L", "chromium-headless-shell"],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    paths = [p for p in listing.splitlines() if p.endswith("/lib/chromium/chromium-headless-shell")]
    return paths[0] if paths and Path(paths[0]).is_file() else None


@pytest.fixture(scope="module")
def browser_path() -> str:
    path = chromium_path()
    if path is None:
        message = "chromium-headless-shell is not installed (bash deploy/ensure-chromium.sh)"
        if os.environ.get("NUMRULES_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    """The app behind uvicorn on a free local port; its base URL."""
    with serve(app) as (host, port):
        yield f"http://{host}:{port}"


def test_try_it_out_on_score_round_in_chromium(browser_path: str, served: str) -> None:
    from playwright.sync_api import sync_playwright

    requested: list[str] = []
    console_errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_path, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("request", lambda request: requested.append(request.url))
            page.on(
                "console",
                lambda message: (
                    console_errors.append(message.text) if message.type == "error" else None
                ),
            )
            page.goto(f"{served}/docs")
            page.wait_for_selector(".opblock", timeout=30_000)
            paths = page.locator(".opblock-summary-path").all_inner_texts()
            assert len(paths) >= 20, paths
            assert "/v1/rulesets/numwars-classic/score-round" in {p.strip() for p in paths}

            operation = page.locator(SCORE_ROUND)
            operation.locator(".opblock-summary").click()
            operation.locator(".try-out__btn").click()
            body = operation.locator("textarea.body-param__text").input_value()
            assert "rainbow-14" in body  # the operation's first example, not a made-up sample
            operation.locator("button.execute").click()
            row = operation.locator(".live-responses-table tbody .response")
            row.first.wait_for(timeout=30_000)
            assert row.first.locator(".response-col_status").inner_text().strip() == "200"
            answer = row.first.locator(".response-col_description").inner_text()
            assert '"score": 40' in answer  # the rule book's "Exemple 1"
        finally:
            browser.close()
    assert requested, "the browser made no request"
    assert all(url.startswith(served + "/") for url in requested), requested
    assert not console_errors, console_errors
