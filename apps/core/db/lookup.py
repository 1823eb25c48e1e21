"""One row by the id a caller sent, or the domain's not-found error."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Model, QuerySet

from apps.core.errors import DomainError, NotFound

M = TypeVar("M", bound=Model)


def get_by_id(qs: QuerySet[M], value: Any, error: type[DomainError], message: str) -> M:
    """`qs.get(pk=int(value))`. A missing (or invisible) row and a malformed id answer alike:
    `error(message % {"id": value})`, so `message` is the translated "There is no … %(id)s."."""
    try:
        return qs.get(pk=int(value))
    except (qs.model.DoesNotExist, TypeError, ValueError):
        raise error(message % {"id": value}) from None


def _missing(row_id: Any, message: str, field: str | None) -> DomainError:
    text = message % {"id": row_id}
    return NotFound.field(field, text) if field else NotFound(text)


def existing(model: type[M], row_id: Any, message: str, *, field: str | None = None) -> M:
    """The `model` row with `row_id` for an admin's change or delete; none is `NotFound` with
    `message % {"id": row_id}` (on `field` when given)."""
    row = model._default_manager.filter(pk=row_id).first()
    if row is None:
        raise _missing(row_id, message, field)
    return row


def new_or_existing(model: type[M], row_id: Any, message: str, *, field: str | None = None) -> M:
    """An admin's save: a new unsaved `model()` when `row_id` is None (an add), else `existing`."""
    return model() if row_id is None else existing(model, row_id, message, field=field)


def delete_existing(model: type[Model], row_id: Any, message: str) -> None:
    """Delete the `model` row with `row_id` (its own on_delete rules apply); none is `NotFound`
    with `message % {"id": row_id}`."""
    if not model._default_manager.filter(pk=row_id).delete()[0]:
        raise _missing(row_id, message, None)
