"""Optimistic concurrency: a writer that read version N may refuse to overwrite version N+1."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Versioned:
    """The stale-write rule of one kind of row, declared once next to its update services: the
    message (a lazy translation, shown in the caller's language) and the record the conflict
    carries under `key`, so the caller can rebase."""

    key: str
    record: Callable[[Any], dict]
    message: Any

    def check(self, instance: Any, expected: int | None, reread: Callable[[], Any] | None = None) -> None:
        """`check_version` for a row the caller just locked; `reread` loads the row again when the
        locked read lacks the relations the record shows (called only on a conflict)."""
        check_version(
            instance,
            expected,
            str(self.message),
            lambda: {self.key: self.record(reread() if reread is not None else instance)},
        )
