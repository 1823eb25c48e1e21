"""The process-level caches, in one registry. A module that keeps database-derived state in
memory (the health report for a second, the office's Bundesland, the Fristen rule catalog, the
installed tool modules …) registers the function that forgets it:

    @caches.register
    def forget() -> None:
        global _cached
        _cached = None

`forget_all()` empties every registered cache at once: the test suite calls it around each test
(one fixture, `tests/conftest.py`), so a value an earlier test wrote and rolled back never
decides a later one."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

Forget = TypeVar("Forget", bound=Callable[[], None])

_forgetters: dict[str, Callable[[], None]] = {}


def register(forget: Forget) -> Forget:
    """Register a cache's forget function (usable as a decorator); registering it again is a no-op."""
    _forgetters[f"{forget.__module__}.{forget.__qualname__}"] = forget
    return forget


def registered() -> list[str]:
    return sorted(_forgetters)


def forget_all() -> None:
    for forget in list(_forgetters.values()):
        forget()
