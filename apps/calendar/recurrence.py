"""RFC 5545 recurrence (python-dateutil): validation and expansion into occurrences.

Series are expanded in the event's own time zone, so a weekly 10:00 meeting stays at 10:00 local
time across daylight-saving changes. Every stored rule is bounded (COUNT or UNTIL): an endless
series could neither be expanded safely nor given a `recurrence_end` for window queries.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import zoneinfo
from dataclasses import dataclass

from dateutil.rrule import DAILY, HOURLY, MONTHLY, WEEKLY, YEARLY, rrule, rrulestr

ALLOWED_FREQUENCIES = {YEARLY, MONTHLY, WEEKLY, DAILY, HOURLY}
MAX_OCCURRENCES = 5000  # of a whole series; also the cap of one window expansion
_PREFIX = re.compile(r"^\s*RRULE:", re.IGNORECASE)


class RecurrenceError(ValueError):
    """The rule cannot be used; the message says why (shown to people and the model)."""


@dataclass(frozen=True)
class Series:
    rule: str  # normalized text without the RRULE: prefix
    last_end: dt.datetime  # end of the last occurrence (UTC)


def zone(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise RecurrenceError(f"unknown time zone {name!r}") from exc


@functools.lru_cache(maxsize=2048)
def _build(rule: str, start: dt.datetime, tz_name: str) -> rrule:
    """Parsed once per (rule, start, zone): lists re-expand the same series on every request."""
    local_start = start.astimezone(zone(tz_name))
    try:
        parsed = rrulestr(rule, dtstart=local_start, forceset=False, unfold=True)
    except (ValueError, TypeError) as exc:
        raise RecurrenceError(str(exc) or "unreadable rule") from exc
    if not isinstance(parsed, rrule):
        raise RecurrenceError("only a single RRULE is supported")
    return parsed


def normalize(rule: str, *, until: dt.datetime | None = None) -> str:
    """Strip the `RRULE:` prefix and, when a bound is given, append it as UTC UNTIL."""
    text = _PREFIX.sub("", (rule or "").strip()).strip().rstrip(";")
    if text and until is not None and not re.search(r"(^|;)(COUNT|UNTIL)=", text, re.IGNORECASE):
        text += ";UNTIL=" + until.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    return text


def validate(rule: str, start: dt.datetime, end: dt.datetime, tz_name: str) -> Series:
    """Parse a rule for an event starting at `start`; bounded, supported frequency, not too many
    occurrences. Returns the normalized rule and the end of its last occurrence."""
    if re.search(r"(^|;)(DTSTART|RDATE|EXDATE)", rule, re.IGNORECASE):
        raise RecurrenceError("give only the RRULE part (FREQ=…;COUNT=… or UNTIL=…)")
    if not re.search(r"(^|;)(COUNT|UNTIL)=", rule, re.IGNORECASE):
        raise RecurrenceError("the series never ends: add COUNT=… or UNTIL=…")
    parsed = _build(rule, start, tz_name)
    if parsed._freq not in ALLOWED_FREQUENCIES:  # dateutil exposes no public getter
        raise RecurrenceError("repeating more often than hourly is not supported")
    last = None
    for index, occurrence in enumerate(parsed):
        if index >= MAX_OCCURRENCES:
            raise RecurrenceError(f"a series may have at most {MAX_OCCURRENCES} occurrences")
        last = occurrence
    if last is None:
        raise RecurrenceError("the rule produces no occurrence")
    return Series(rule=rule, last_end=(last + (end - start)).astimezone(dt.UTC))


def occurrences(
    rule: str,
    start: dt.datetime,
    end: dt.datetime,
    tz_name: str,
    window_start: dt.datetime,
    window_end: dt.datetime,
) -> list[tuple[dt.datetime, dt.datetime]]:
    """(start, end) of each occurrence overlapping [window_start, window_end)."""
    duration = end - start
    parsed = _build(rule, start, tz_name)
    found = []
    for occurrence in parsed.xafter(window_start - duration, count=MAX_OCCURRENCES, inc=True):
        if occurrence >= window_end:
            break
        occ_end = occurrence + duration
        if occ_end > window_start or (duration.total_seconds() == 0 and occurrence >= window_start):
            found.append((occurrence, occ_end))
    return found


def next_after(rule: str, start: dt.datetime, tz_name: str, moment: dt.datetime) -> dt.datetime | None:
    """The first occurrence start strictly after `moment` (reminders of the next occurrence)."""
    return _build(rule, start, tz_name).after(moment, inc=False)
