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
STARTUP_TIMEOUT = 90  # seconds for the Celery worker to start on the busy shared machine
ROOT = Path(__file__).resolve().parents[2]


# Read by Django on every ORM call: Playwright's sync API keeps an asyncio loop running in this
# thread while it is open, and Django refuses synchronous queries in a thread with a running loop.
ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"


@pytest.fixture
def server(transactional_db, tmp_path):
    """daphne serving the project against this test's database; yields its base URL. It runs
    with Django's async-safety checks, which only this test process switches off. Forked from a
    daphne that has imported the project once per test process (tests/live.py, `preloaded`): a
    process of its own for each test, ~1.5 instead of ~8 CPU-seconds."""
    with live_daphne(tmp_path, {ASYNC_UNSAFE: ""}, preloaded=True) as live:
        yield live.url
        # SIGTERM's graceful shutdown (tests/core/test_launcher_supervision.py) cost each browser
        # test seconds of a busy core and checks nothing here; its database sessions end with it.
        live.process.kill()
        live.process.wait()


class SharedChromium:
    """One Playwright driver and Chromium per test process for browser tests that run one after
    another (starting both cost 2-5 s a test); each test still gets fresh browser contexts
    (cookies, storage, cache), and all of a test's contexts are closed after it.

    Playwright's sync API keeps an asyncio loop running in this thread while it is open, which
    would break every async test in the same session: tests/conftest.py stops it before any test
    that does not use the browser, and a later browser test starts it again."""

    def __init__(self) -> None:
        self._playwright = None
        self._browser = None
        self._env_before: str | None = None

    def get(self):
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        self.stop()  # a crashed browser: start afresh
        if not Path(CHROMIUM).exists():
            pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium).")
        from playwright.sync_api import sync_playwright

        self._env_before = os.environ.get(ASYNC_UNSAFE)
        os.environ[ASYNC_UNSAFE] = "true"
        try:
            self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=CHROMIUM,
                args=[
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--disable-dev-shm-usage",
                ],
            )
        except BaseException:
            self.stop()
            raise
        return self._browser

    @property
    def running(self) -> bool:
        return self._playwright is not None

    def stop(self) -> None:
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None and browser.is_connected():
                browser.close()
        finally:
            try:
                if playwright is not None:
                    playwright.stop()
            finally:
                if self._env_before is None:
                    os.environ.pop(ASYNC_UNSAFE, None)
                else:
                    os.environ[ASYNC_UNSAFE] = self._env_before
                self._env_before = None


chromium = SharedChromium()


@pytest.fixture(scope="session")
def shared_chromium():
    """Stopped at the end of the session, before the session's database fixtures are torn down."""
    yield chromium
    chromium.stop()


@pytest.fixture
def browser(shared_chromium):
    """Chromium for this test (shared with the browser tests before and after it in this process);
    every context the test opened is closed after it, so the next test starts with none."""
    browser = shared_chromium.get()
    yield browser
    if browser.is_connected():
        for context in list(browser.contexts):
            context.close()


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
    env.pop(ASYNC_UNSAFE, None)  # set in this process for Playwright's loop only
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

    # Its start (importing the project, ~5 s of CPU) competes with the other xdist workers' tests
    if not wait_for(ready, timeout=STARTUP_TIMEOUT):
        process.kill()
        raise RuntimeError(
            f"celery worker did not start within {STARTUP_TIMEOUT} s: {log.read_text()[-2000:]}"
        )
    yield log
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
