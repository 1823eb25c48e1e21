"""Field checks shared by every domain's services. Each raises the domain's own invalid-input
error (a DomainError) with `details={"field_errors": {field: message}}`, the shape tools, the
REST API and forms all understand."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _

from apps.core.errors import DomainError


def field_error(error_class: type[DomainError], field: str, message: str) -> DomainError:
    return error_class(f"{field}: {message}", details={"field_errors": {field: message}})


def text(
    error_class: type[DomainError], value: Any, field: str, *, max_length: int, required: bool = False
) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise field_error(error_class, field, _("must be text"))
    value = value.strip()
    if required and not value:
        raise field_error(error_class, field, _("must not be empty"))
    if len(value) > max_length:
        raise field_error(error_class, field, _("may have at most %(n)d characters") % {"n": max_length})
    return value


def choice(error_class: type[DomainError], value: Any, field: str, choices: Iterable[str]) -> str:
    choices = list(choices)
    if value not in choices:
        raise field_error(
            error_class, field, _("must be one of: %(choices)s") % {"choices": ", ".join(choices)}
        )
    return value


def date(error_class: type[DomainError], value: Any, field: str) -> dt.date | None:
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
    raise field_error(error_class, field, _("must be a date like 2026-12-31"))
