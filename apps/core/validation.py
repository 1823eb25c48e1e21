"""Field checks shared by every domain's services. Each raises the shared `InvalidInput` (or the
`error=` subclass an app names) with `details={"field_errors": {field: message}}`, the shape
tools, the REST API and forms all understand."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from django.utils.translation import gettext as _

from apps.core.errors import DateOutOfRange, DomainError, InvalidInput, InvalidUrl


def invalid(field: str, message: str, error: type[DomainError] = InvalidInput) -> DomainError:
    """The error for one bad field (to be raised by the caller)."""
    return error.field(field, message)


def only_fields(
    values: Iterable[str],
    allowed: Iterable[str],
    message: str | None = None,
    *,
    error: type[DomainError] = InvalidInput,
) -> None:
    """Refuse the first (sorted) key of `values` that is not in `allowed`: the prelude of every
    partial update (`message` defaults to "cannot be changed here")."""
    unknown = set(values) - set(allowed)
    if unknown:
        raise invalid(sorted(unknown)[0], message or _("cannot be changed here"), error)


def page(limit: Any, offset: Any, most: int) -> tuple[int, int]:
    """(limit, offset) of a list page: 1 ≤ limit ≤ `most`, offset ≥ 0 (`int()` refuses non-numbers)."""
    return max(1, min(int(limit), most)), max(0, int(offset))


def text(
    value: Any,
    field: str,
    *,
    max_length: int,
    required: bool = False,
    error: type[DomainError] = InvalidInput,
) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise invalid(field, _("must be text"), error)
    value = value.strip()
    if required and not value:
        raise invalid(field, _("must not be empty"), error)
    if len(value) > max_length:
        raise invalid(field, _("may have at most %(n)d characters") % {"n": max_length}, error)
    return value


def choice(value: Any, field: str, choices: Iterable[str], *, error: type[DomainError] = InvalidInput) -> str:
    choices = list(choices)
    if value not in choices:
        raise invalid(field, _("must be one of: %(choices)s") % {"choices": ", ".join(choices)}, error)
    return value


def date(value: Any, field: str, *, error: type[DomainError] = InvalidInput) -> dt.date | None:
    if value in (None, ""):
        return None
    if isinstance(value, dt.datetime):
        return in_range(value.date(), field)
    if isinstance(value, dt.date):
        return in_range(value, field)
    if isinstance(value, str):
        try:
            return in_range(dt.date.fromisoformat(value), field)
        except ValueError:
            pass
    raise invalid(field, _("must be a date like 2026-12-31"), error)


# --- dates ------------------------------------------------------------------------------------
# One bound for every date and moment a caller sends, on every surface (the contracts' `Date` and
# `DateTime`, `BoundedDateField` on forms, `query_date` for query strings, the services through
# `in_range`): nobody plans outside it, and year 9999 overflows a time zone conversion or a day
# added to it (pages, the Fristen computation, the Fristenbuch).
YEAR_MIN = 1900
YEAR_MAX = 2200
T = TypeVar("T", dt.date, dt.datetime)


def year_in_range(value: dt.date | dt.datetime) -> bool:
    return YEAR_MIN <= value.year <= YEAR_MAX


def date_out_of_range_message() -> str:
    return _("Enter a date between the years %(min)d and %(max)d.") % {"min": YEAR_MIN, "max": YEAR_MAX}


def in_range(value: T, field: str) -> T:
    """`value`, or `date_out_of_range` for `field` when its year lies outside YEAR_MIN–YEAR_MAX."""
    if not year_in_range(value):
        raise invalid(field, date_out_of_range_message(), DateOutOfRange)
    return value


def parsed_moment(text: str) -> dt.date | dt.datetime | None:
    """The date or date and time an ISO 8601 text names (`2026-12-01`, `2026-12-01T10:00+01:00`,
    `…Z`), or None when it names none (the field's own check then says why)."""
    text = text.strip()
    try:
        if len(text) == 10:
            return dt.date.fromisoformat(text)
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return None


def query_date(params: Any, name: str) -> dt.date | None:
    """A `?name=YYYY-MM-DD` of a page or download: None when missing or not a date (a hand-edited
    link is ignored), `date_out_of_range` when its year lies outside the bound."""
    raw = (params.get(name) or "").strip()
    try:
        day = dt.date.fromisoformat(raw)
    except ValueError:
        return None
    return in_range(day, name)


# --- links ------------------------------------------------------------------------------------
# Every link that is stored and later rendered as an href (a task's origin, a meeting link, a
# note's asset …) passes `url()`; pages render stored links through the `safe_href` filter, which
# applies `is_safe_url()` again, so a row stored before this check can never become a script link.
URL_MAX = 2000
URL_SCHEMES = frozenset({"http", "https", "mailto"})
# A scheme as browsers read it (WHATWG URL): letter, then letters, digits, + - . up to ':'.
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
# C0 and C1 controls, DEL: browsers drop tabs and newlines inside "java\tscript:", so none is allowed.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def url_problem(value: str, *, max_length: int = URL_MAX) -> str | None:
    """Why `value` is not a safe link (None when it is). Allowed: "" (no link), http(s)://host…,
    mailto:…, and a path on this server ("/…", "?…", "#…"); never "//host" or a backslash."""
    if not value:
        return None
    if len(value) > max_length:
        return _("may have at most %(n)d characters") % {"n": max_length}
    message = _("must be a web address (https://…), a mailto: address or a path on this server")
    if _CONTROL.search(value) or "\\" in value or value != value.strip():
        return message
    scheme = _SCHEME.match(value)
    if scheme is None:
        return None if value[0] in "/?#" and not value.startswith("//") else message
    name = scheme.group(1).lower()
    if name not in URL_SCHEMES:
        return message
    if name == "mailto":
        return None if len(value) > len("mailto:") else message
    try:
        parts = urlsplit(value)
    except ValueError:
        return message
    if not value[len(name) + 1 :].startswith("//") or not parts.hostname or " " in parts.netloc:
        return message
    return None


def is_safe_url(value: Any, *, max_length: int = URL_MAX) -> bool:
    return isinstance(value, str) and url_problem(value, max_length=max_length) is None


def url(
    value: Any,
    field: str,
    *,
    max_length: int = URL_MAX,
    required: bool = False,
    error: type[DomainError] = InvalidUrl,
) -> str:
    """A stored link, stripped: "" for none, else http(s)/mailto/a path on this server."""
    value = text(value, field, max_length=max_length, required=required, error=error)
    problem = url_problem(value, max_length=max_length)
    if problem is not None:
        raise invalid(field, problem, error)
    return value
