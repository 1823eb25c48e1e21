"""The office's Bundesland (an instance setting): which Land's public holidays end a deadline."""

from __future__ import annotations

import time

from apps.core import caches

SETTING_KEY = "deadlines.bundesland"
DEFAULT_STATE = "NW"
# Read at most every few seconds per process: computing a deadline must not cost a query each time,
# and an admin's change reaches every worker within this time (this process at once, see forget()).
TTL_SECONDS = 10.0

_cached: tuple[float, str] | None = None


def office_state() -> str:
    global _cached
    now = time.monotonic()
    if _cached is not None and now - _cached[0] < TTL_SECONDS:
        return _cached[1]
    from apps.core.services import get_setting
    from apps.deadlines.compute import BUNDESLAENDER

    value = get_setting(SETTING_KEY, DEFAULT_STATE)
    code = str(value).strip().upper() if isinstance(value, str) else DEFAULT_STATE
    if code not in BUNDESLAENDER:
        code = DEFAULT_STATE
    _cached = (now, code)
    return code


@caches.register
def forget() -> None:
    global _cached
    _cached = None


def check_state_setting(value):
    """The admin's value for the instance setting, checked: one of the 16 Länder codes, as a JSON
    string ("BY"). Contributed to `core.instance_settings` (the instance settings admin)."""
    from apps.deadlines.compute import normalize_state

    return normalize_state(value if isinstance(value, str) and value.strip() else "?")


def setting_saved(sender, instance, **kwargs) -> None:
    """This process computes with a changed Bundesland at once (the others within TTL_SECONDS)."""
    if instance.key == SETTING_KEY:
        forget()


INSTANCE_SETTINGS = {SETTING_KEY: check_state_setting}
