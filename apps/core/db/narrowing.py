"""A list's optional filters, applied only when the caller gave them."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)


def narrowed(qs: QuerySet[M], **lookups: Any) -> QuerySet[M]:
    """`qs.filter(**lookups)` with only the lookups given: None or "" (a filter left empty) narrows
    nothing; 0 and False do. One `filter()` call, so lookups across one multi-valued relation must
    not be passed together when they mean separate rows (pass them in separate calls)."""
    given = {lookup: value for lookup, value in lookups.items() if value is not None and value != ""}
    return qs.filter(**given) if given else qs
