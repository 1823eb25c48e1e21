"""Time zone names from outside (the `X-User-Timezone` header, a run, a profile) as `ZoneInfo`."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo

# Longer is no IANA name (the longest has 32 characters); `ZoneInfo` would even fail with an
# OSError on a name over the file system's 255-character limit.
NAME_MAX = 255
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def is_wellformed(name: str) -> bool:
    """Whether `name` can be a zone name at all (an unknown but well-formed one is just unknown)."""
    return len(name) <= NAME_MAX and not _CONTROL.search(name)


def zone(name: str | None) -> zoneinfo.ZoneInfo | None:
    """The zone of that name, or None for an empty, unknown or malformed one (never raises)."""
    name = (name or "").strip()
    if not name or not is_wellformed(name):
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return None


def in_zone(value: dt.datetime, tz: dt.tzinfo | None) -> dt.datetime:
    """`value.astimezone(tz)`, or `value` unchanged (UTC) when the conversion would pass the
    calendar's end: a row stored before dates were bounded (year 9999, 23:30 UTC) then still
    renders, its time off by the zone's offset, instead of failing the whole page or list."""
    try:
        return value.astimezone(tz)
    except OverflowError:
        return value
