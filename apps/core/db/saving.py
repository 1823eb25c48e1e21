"""Saving a row that a unique constraint may refuse."""

from __future__ import annotations

from collections.abc import Callable

from django.db import IntegrityError, transaction
from django.db.models import Model


def save_unique(instance: Model, refusal: Callable[[], Exception]) -> None:
    """Save `instance` in a savepoint; when a unique constraint refuses it (a concurrent writer took
    the value between the caller's check and this save), raise `refusal()` instead. The savepoint
    keeps the caller's transaction usable."""
    try:
        with transaction.atomic():
            instance.save()
    except IntegrityError:
        raise refusal() from None
