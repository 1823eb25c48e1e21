"""The office's Bundesland (an instance setting): which Land's public holidays end a deadline."""

from __future__ import annotations

import time

from django.utils.translation import gettext as _

from apps.core import caches
from apps.deadlines.errors import DeadlineBundeslandUnknown

SETTING_KEY = "deadlines.bundesland"
DEFAULT_STATE = "NW"

# The 16 Länder (the `holidays` package also knows "Augsburg", a city, which is no office setting).
BUNDESLAENDER: dict[str, str] = {
    "BW": "Baden-Württemberg",
    "BY": "Bayern",
    "BE": "Berlin",
    "BB": "Brandenburg",
    "HB": "Bremen",
    "HH": "Hamburg",
    "HE": "Hessen",
    "MV": "Mecklenburg-Vorpommern",
    "NI": "Niedersachsen",
    "NW": "Nordrhein-Westfalen",
    "RP": "Rheinland-Pfalz",
    "SL": "Saarland",
    "SN": "Sachsen",
    "ST": "Sachsen-Anhalt",
    "SH": "Schleswig-Holstein",
    "TH": "Thüringen",
}
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

    value = get_setting(SETTING_KEY, DEFAULT_STATE)
    code = str(value).strip().upper() if isinstance(value, str) else DEFAULT_STATE
    if code not in BUNDESLAENDER:
        code = DEFAULT_STATE
    _cached = (now, code)
    return code


def normalize_state(state: str | None) -> str:
    """The Land code to use: the given one (checked) or the office's setting."""
    if state is None or state == "":
        return office_state()
    code = str(state).strip().upper()
    if code not in BUNDESLAENDER:
        raise DeadlineBundeslandUnknown.field(
            "state",
            _("Unknown Bundesland %(code)s; use one of %(codes)s.")
            % {"code": state, "codes": ", ".join(BUNDESLAENDER)},
        )
    return code


@caches.register
def forget() -> None:
    global _cached
    _cached = None


def check_state_setting(value):
    """The admin's value for the instance setting, checked: one of the 16 Länder codes, as a JSON
    string ("BY"). Contributed to `core.instance_settings` (the instance settings admin)."""
    return normalize_state(value if isinstance(value, str) and value.strip() else "?")


def setting_saved(sender, instance, **kwargs) -> None:
    """This process computes with a changed Bundesland at once (the others within TTL_SECONDS)."""
    if instance.key == SETTING_KEY:
        forget()


INSTANCE_SETTINGS = {SETTING_KEY: check_state_setting}
