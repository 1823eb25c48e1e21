"""The office's numbering schemes (instance settings): the Mandantennummer of a client and the
Aktenzeichen of a case. A client or case created without a number gets the next free one, on
every surface (page, REST, tool, admin, demo), so nobody, the copilot included, has to invent one.

A scheme is `{"prefix": "", "start": 10001, "width": 5}`: numbers are the prefix followed by a
number of at least `width` digits (zero-padded), counting up from `start` past the highest number
of that form already taken. `{JJJJ}` in the prefix stands for the current year ("{JJJJ}-" gives
"2026-0001", and the count starts again each year). Numbers of another form (typed by hand, from
an old system) are left alone and never block the count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext as _

YEAR_TOKEN = "{JJJJ}"  # noqa: S105 - a placeholder, no secret
PREFIX_MAX = 10
WIDTH_MAX = 12
NUMBER_MAX = 40


@dataclass(frozen=True)
class Scheme:
    """One numbering: the setting holding it, its default and the column it numbers."""

    setting_key: str
    default: dict
    table: str
    column: str
    lock_key: int  # one number is handed out at a time per scheme (a transaction advisory lock)
    max_length: int = NUMBER_MAX

    def check(self, value) -> dict:
        """The admin's value, checked and normalized (`ValidationError` with the reason)."""
        return check_scheme(value, self.default, self.max_length)

    def office_scheme(self) -> dict:
        from apps.core.services import get_setting

        try:
            return self.check(get_setting(self.setting_key, self.default))
        except ValidationError:  # a value written past the admin: count with the default
            return dict(self.default)

    def next_free(self, *, reserve: bool = True) -> str:
        """The next number of the office's scheme. With `reserve` (the creating service), call
        inside the creating transaction: it holds a transaction-scoped advisory lock, so a
        concurrent create waits and then counts past this one. Without it, a preview for a form
        or an error message."""
        scheme = self.office_scheme()
        prefix = resolved_prefix(scheme["prefix"])
        with connection.cursor() as cur:
            if reserve:
                cur.execute("SELECT pg_advisory_xact_lock(%s)", [self.lock_key])
            # The highest number of the scheme's form; at most 18 digits fit a bigint.
            cur.execute(
                f"SELECT max(substr({self.column}, %s)::numeric) FROM {self.table} "  # noqa: S608 - fixed names
                f"WHERE left({self.column}, %s) = %s AND substr({self.column}, %s) ~ '^[0-9]{{1,18}}$'",
                [len(prefix) + 1, len(prefix), prefix, len(prefix) + 1],
            )
            highest = cur.fetchone()[0]
        number = max(scheme["start"], int(highest) + 1 if highest is not None else 0)
        return f"{prefix}{number:0{scheme['width']}d}"


def resolved_prefix(prefix: str, today=None) -> str:
    year = (today or timezone.localdate()).year
    return prefix.replace(YEAR_TOKEN, str(year))


def check_scheme(value, default: dict, max_length: int = NUMBER_MAX) -> dict:
    """A scheme value, checked and normalized (the settings page and admin show the message)."""
    if not isinstance(value, dict) or set(value) - set(default):
        raise ValidationError(
            _('Give an object with "prefix", "start" and "width", e.g. %(example)s.'),
            params={"example": '{"prefix": "", "start": 10001, "width": 5}'},
        )
    scheme = {**default, **value}
    prefix, start, width = scheme["prefix"], scheme["start"], scheme["width"]
    bare = prefix.replace(YEAR_TOKEN, "") if isinstance(prefix, str) else None
    if bare is None or len(resolved_prefix(prefix)) > PREFIX_MAX or not re.fullmatch(r"[\w./-]*", bare):
        raise ValidationError(
            _(
                "The prefix may have up to %(max)s letters, digits, '.', '/' or '-'; {JJJJ} stands for the year."
            ),
            params={"max": PREFIX_MAX},
        )
    if isinstance(start, bool) or not isinstance(start, int) or start < 1:
        raise ValidationError(_("The start number must be a whole number of 1 or more."))
    if isinstance(width, bool) or not isinstance(width, int) or not 1 <= width <= WIDTH_MAX:
        raise ValidationError(
            _("The width must be a whole number from 1 to %(max)s."), params={"max": WIDTH_MAX}
        )
    if len(resolved_prefix(prefix)) + max(width, len(str(start))) > max_length:
        raise ValidationError(
            _("Numbers of this scheme would be longer than %(max)s characters."), params={"max": max_length}
        )
    return {"prefix": prefix, "start": start, "width": width}


CLIENTS = Scheme(
    "clients.numbering",
    {"prefix": "", "start": 10001, "width": 5},
    table="clients_client",
    column="client_number",
    lock_key=0x436C6E72,  # "Clnr"
)
CASES = Scheme(
    "clients.case_numbering",
    {"prefix": YEAR_TOKEN + "-", "start": 1, "width": 4},
    table="clients_case",
    column="reference",
    lock_key=0x416B7A6E,  # "Akzn"
    max_length=60,
)

# The client scheme's names, as other code and the tests know them.
SETTING_KEY = CLIENTS.setting_key
DEFAULT_SCHEME = CLIENTS.default


def check_client_scheme(value) -> dict:
    return CLIENTS.check(value)


def check_case_scheme(value) -> dict:
    return CASES.check(value)


def office_scheme() -> dict:
    return CLIENTS.office_scheme()


def next_free_number(*, reserve: bool = True) -> str:
    return CLIENTS.next_free(reserve=reserve)


def next_free_reference(*, reserve: bool = True) -> str:
    return CASES.next_free(reserve=reserve)


INSTANCE_SETTINGS = {CLIENTS.setting_key: check_client_scheme, CASES.setting_key: check_case_scheme}
