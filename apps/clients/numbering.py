"""The office's Mandantennummer scheme (an instance setting): a client created without a number
gets the next free one, on every surface (page, REST, tool, admin, demo), so nobody, the copilot
included, has to invent one.

The setting `clients.numbering` is `{"prefix": "", "start": 10001, "width": 5}`: numbers are the
prefix followed by a number of at least `width` digits (zero-padded), counting up from `start`
past the highest number of that form already taken. Numbers of another form (typed by hand, from
an old system) are left alone and never block the count.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.db import connection
from django.utils.translation import gettext as _

SETTING_KEY = "clients.numbering"
DEFAULT_SCHEME = {"prefix": "", "start": 10001, "width": 5}
PREFIX_MAX = 10
WIDTH_MAX = 12
NUMBER_MAX = 40
# One number is handed out at a time: two creates at once must not both take the same number.
_LOCK_KEY = 0x436C6E72  # "Clnr"


def check_scheme(value) -> dict:
    """The admin's value for the instance setting, checked and normalized (the instance settings
    admin shows the message on the form)."""
    if not isinstance(value, dict) or set(value) - set(DEFAULT_SCHEME):
        raise ValidationError(
            _('Give an object with "prefix", "start" and "width", e.g. %(example)s.'),
            params={"example": '{"prefix": "", "start": 10001, "width": 5}'},
        )
    scheme = {**DEFAULT_SCHEME, **value}
    prefix, start, width = scheme["prefix"], scheme["start"], scheme["width"]
    if not isinstance(prefix, str) or len(prefix) > PREFIX_MAX or not re.fullmatch(r"[\w./-]*", prefix):
        raise ValidationError(
            _("The prefix may have up to %(max)s letters, digits, '.', '/' or '-'."),
            params={"max": PREFIX_MAX},
        )
    if isinstance(start, bool) or not isinstance(start, int) or start < 1:
        raise ValidationError(_("The start number must be a whole number of 1 or more."))
    if isinstance(width, bool) or not isinstance(width, int) or not 1 <= width <= WIDTH_MAX:
        raise ValidationError(
            _("The width must be a whole number from 1 to %(max)s."), params={"max": WIDTH_MAX}
        )
    if len(prefix) + max(width, len(str(start))) > NUMBER_MAX:
        raise ValidationError(
            _("Numbers of this scheme would be longer than %(max)s characters."), params={"max": NUMBER_MAX}
        )
    return {"prefix": prefix, "start": start, "width": width}


def office_scheme() -> dict:
    from apps.core.services import get_setting

    try:
        return check_scheme(get_setting(SETTING_KEY, DEFAULT_SCHEME))
    except ValidationError:  # a value written past the admin: count with the default
        return dict(DEFAULT_SCHEME)


def next_free_number(*, reserve: bool = True) -> str:
    """The next number of the office's scheme. With `reserve` (the creating service), call inside
    the creating transaction: it holds a transaction-scoped advisory lock, so a concurrent create
    waits and then counts past this one. Without it, a preview for the create form."""
    scheme = office_scheme()
    prefix = scheme["prefix"]
    with connection.cursor() as cur:
        if reserve:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])
        # The highest number of the scheme's form; at most 18 digits fit a bigint.
        cur.execute(
            "SELECT max(substr(client_number, %s)::numeric) FROM clients_client "
            "WHERE left(client_number, %s) = %s AND substr(client_number, %s) ~ '^[0-9]{1,18}$'",
            [len(prefix) + 1, len(prefix), prefix, len(prefix) + 1],
        )
        highest = cur.fetchone()[0]
    number = max(scheme["start"], int(highest) + 1 if highest is not None else 0)
    return f"{prefix}{number:0{scheme['width']}d}"


INSTANCE_SETTINGS = {SETTING_KEY: check_scheme}
