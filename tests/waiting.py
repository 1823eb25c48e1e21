"""Waiting for what another thread or process does (a Celery worker, daphne, the browser's
requests): one helper instead of hand-rolled poll loops."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(condition: Callable[[], T], timeout: float = 30.0, interval: float = 0.05) -> T:
    """Call `condition` until it returns something truthy or `timeout` seconds have passed, and
    return its last result: falsy after a timeout, so the caller's assertion says what was
    expected. An exception raised by `condition` (e.g. "the server exited") ends the wait."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result or time.monotonic() >= deadline:
            return result
        time.sleep(interval)
