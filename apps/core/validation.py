"""Field checks shared by every domain's services. Each raises the shared `InvalidInput` (or the
`error=` subclass an app names) with `details={"field_errors": {field: message}}`, the shape
tools, the REST API and forms all understand."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _

from apps.core.errors import DomainError, InvalidInput


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
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise invalid(field, _("must be a date like 2026-12-31"), error)
