"""Optimistic concurrency: a writer that read version N may refuse to overwrite version N+1."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from apps.core.errors import VersionConflict


def check_version(
    instance: Any,
    expected: int | None,
    message: str,
    current: Callable[[], dict],
    *,
    error: type[VersionConflict] = VersionConflict,
) -> None:
    """Raise `error(message)` when the caller named a version and the row (locked by the caller)
    has moved on; `details` carries `current()`, the record as it is now, so the caller can rebase.
    Call sites pass the domain's translated message and `current` positionally, right after
    reading the row with `for_update=True`."""
    if expected is not None and expected != instance.version:
        raise error(message, details=current())
