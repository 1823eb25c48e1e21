"""One row by the id a caller sent, or the domain's not-found error."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Model, QuerySet

from apps.core.errors import DomainError

M = TypeVar("M", bound=Model)


def get_by_id(qs: QuerySet[M], value: Any, error: type[DomainError], message: str) -> M:
    """`qs.get(pk=int(value))`. A missing (or invisible) row and a malformed id answer alike:
    `error(message % {"id": value})`, so `message` is the translated "There is no … %(id)s."."""
    try:
        return qs.get(pk=int(value))
    except (qs.model.DoesNotExist, TypeError, ValueError):
        raise error(message % {"id": value}) from None
