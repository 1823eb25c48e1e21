"""Building blocks of the wire records every domain sends (its `records.py`): fast dict builders
that copy plain columns, stamp the version and times, and link to the row's page."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.urls import reverse

_ID = 987654321


def attrs(obj: Any, *names: str) -> dict[str, Any]:
    """`{name: obj.<name>}` for the columns a record copies as they are, in the order named."""
    return {name: getattr(obj, name) for name in names}


def iso(value: dt.date | dt.datetime | None) -> str | None:
    """A date or time as ISO 8601, or None when unset."""
    return value.isoformat() if value else None


def stamps(obj: Any, *, version: bool = True) -> dict[str, Any]:
    """The tail of a versioned record: its version (when `version`), created_at and updated_at."""
    head = {"version": obj.version} if version else {}
    return head | {"created_at": obj.created_at.isoformat(), "updated_at": obj.updated_at.isoformat()}


class IdUrl:
    """The page of one row by id, `reverse()`d once per process with the id filled in afterwards:
    lists serialize hundreds of records."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._url: str | None = None

    def __call__(self, pk: int) -> str:
        if self._url is None:
            self._url = reverse(self.name, args=[_ID])
        return self._url.replace(str(_ID), str(pk))


def text_window(text: str, options: dict, default_max: int) -> dict[str, Any]:
    """The part of a long text one read returns (the `offset` and `max_chars` options, as in
    `context_get`), its size, and where the next part starts (None: this was the end)."""
    offset = int(options.get("offset") or 0)
    part = text[offset : offset + int(options.get("max_chars") or default_max)]
    end = offset + len(part)
    return {
        "text": part,
        "offset": offset,
        "total_chars": len(text),
        "next_offset": end if end < len(text) else None,
    }
