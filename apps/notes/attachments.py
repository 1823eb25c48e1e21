"""Structure checks for the JSON a page carries next to its HTML: `asset_items[]` (images, files,
links shown with the page) and `audio_attachments[]` (recordings with their transcript). Values
are normalized to exactly the documented keys, so clients can rely on the shape."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils.translation import gettext as _

from apps.core import validation

MAX_ITEMS = 100
ID_MAX = 100
TITLE_MAX = 300
TRANSCRIPT_MAX = 100_000
URL_MAX = 2000
ASSET_KINDS = ("image", "file", "link", "drawing")

AUDIO_KEYS = ("id", "title", "transcript", "mime_type", "file_size", "duration_ms", "created_at")
ASSET_KEYS = ("id", "kind", "title", "url", "mime_type", "file_size", "width", "height", "created_at")


def _string(item: dict, key: str, field: str, *, max_length: int, required: bool = False) -> str | None:
    value = item.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise validation.invalid(f"{field}.{key}", _("must be text"))
    if required and not value.strip():
        raise validation.invalid(f"{field}.{key}", _("must not be empty"))
    if len(value) > max_length:
        raise validation.invalid(f"{field}.{key}", _("may have at most %(n)d characters") % {"n": max_length})
    return value.strip()


def _count(item: dict, key: str, field: str) -> int | None:
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise validation.invalid(f"{field}.{key}", _("must be a whole number of at least 0"))
    return value


def _timestamp(item: dict, key: str, field: str) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return validation.in_range(value, f"{field}.{key}").isoformat()
    if isinstance(value, str):
        try:
            moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            return validation.in_range(moment, f"{field}.{key}").isoformat()
    raise validation.invalid(f"{field}.{key}", _("must be a date and time like 2026-12-31T09:30:00+01:00"))


def _url(item: dict, field: str) -> str | None:
    url = _string(item, "url", field, max_length=URL_MAX)
    if url is None:
        return None
    return validation.url(url, f"{field}.url", max_length=URL_MAX)


def _items(value: Any, field: str, keys: tuple[str, ...]) -> list[tuple[str, dict]]:
    """The entries of an attachment list, each with its path for error messages (`field[i]`)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise validation.invalid(field, _("must be a list"))
    if len(value) > MAX_ITEMS:
        raise validation.invalid(field, _("may have at most %(n)d entries") % {"n": MAX_ITEMS})
    if not all(isinstance(item, dict) for item in value):
        index = next(i for i, item in enumerate(value) if not isinstance(item, dict))
        raise validation.invalid(f"{field}[{index}]", _("must be an object"))
    value = [dict(item) for item in value]  # ids are normalized below: never touch the caller's
    seen = set()
    for index, item in enumerate(value):
        unknown = sorted(set(item) - set(keys))
        if unknown:
            raise validation.invalid(f"{field}[{index}].{unknown[0]}", _("is not a known attribute"))
        item_id = item.get("id")
        if isinstance(item_id, int) and not isinstance(item_id, bool):
            item["id"] = item_id = str(item_id)
        if item_id in seen:
            raise validation.invalid(f"{field}[{index}].id", _("is used twice"))
        seen.add(item_id)
    return [(f"{field}[{index}]", item) for index, item in enumerate(value)]


def audio_attachments(value: Any, field: str = "audio_attachments") -> list[dict]:
    result = []
    for where, item in _items(value, field, AUDIO_KEYS):
        mime_type = _string(item, "mime_type", where, max_length=100)
        if mime_type is not None and not mime_type.lower().startswith("audio/"):
            raise validation.invalid(f"{where}.mime_type", _("must be an audio type like audio/mpeg"))
        entry = {
            "id": _string(item, "id", where, max_length=ID_MAX, required=True),
            "title": _string(item, "title", where, max_length=TITLE_MAX, required=True),
            "transcript": _string(item, "transcript", where, max_length=TRANSCRIPT_MAX),
            "mime_type": mime_type,
            "file_size": _count(item, "file_size", where),
            "duration_ms": _count(item, "duration_ms", where),
            "created_at": _timestamp(item, "created_at", where),
        }
        result.append(entry)
    return result


def asset_items(value: Any, field: str = "asset_items") -> list[dict]:
    result = []
    for where, item in _items(value, field, ASSET_KEYS):
        kind = item.get("kind") or "file"
        validation.choice(kind, f"{where}.kind", ASSET_KINDS)
        result.append(
            {
                "id": _string(item, "id", where, max_length=ID_MAX, required=True),
                "kind": kind,
                "title": _string(item, "title", where, max_length=TITLE_MAX) or "",
                "url": _url(item, where),
                "mime_type": _string(item, "mime_type", where, max_length=100),
                "file_size": _count(item, "file_size", where),
                "width": _count(item, "width", where),
                "height": _count(item, "height", where),
                "created_at": _timestamp(item, "created_at", where),
            }
        )
    return result
