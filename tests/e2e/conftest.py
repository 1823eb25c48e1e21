"""Browser tests: a real daphne process (HTTP + WebSockets) on the test database, driven by
Playwright in Debian's headless Chromium."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.live import database_url, live_daphne
from tests.waiting import wait_for

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server(transactional_db, tmp_path):
    """daphne serving the project against this test's database; yields its base URL."""
    with live_daphne(tmp_path) as live:
        yield live.url


@pytest.fixture
def browser(monkeypatch):
    """Per test: Playwright's sync API keeps an asyncio loop running in this thread while it is
    open, which would break every async test that runs after it in the same session."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium).")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs a loop
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-dev-shm-usage",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(locale="de-DE")
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def worker(transactional_db, tmp_path):
    """A Celery worker process on this test's database (the broker is kombu's SQLAlchemy
    transport on DATABASE_URL, as for the `server` subprocess); the test process's own broker
    URL points at the non-test database, so an in-process worker would never see the jobs."""
    log = tmp_path / "worker.log"
    env = {**os.environ, "DATABASE_URL": database_url(), "DEBUG": "0", "LOG_LEVEL": "WARNING"}
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "clapilot", "worker", "--pool", "solo", "-l", "INFO"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def ready() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"celery worker exited: {log.read_text()[-2000:]}")
        return " ready." in log.read_text()

    if not wait_for(ready, timeout=30):
        process.kill()
        raise RuntimeError(f"celery worker did not start within 30 s: {log.read_text()[-2000:]}")
    yield log
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
