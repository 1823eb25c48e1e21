"""Idempotency keys of `POST /api/v1/tools/execute`: the only writer of `IdempotentCall`.

The key is reserved *before* the tool runs (a unique row per user + key), so two concurrent
requests with one key can never both execute; the first result is stored for replays."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction

from apps.tools.models import IdempotentCall


@dataclass(frozen=True)
class Reservation:
    record: IdempotentCall | None  # set when this request owns the key and must run the tool
    replay: IdempotentCall | None = None  # the finished first call to answer with
    conflict: str | None = None  # "reused" (other payload) or "in_progress"


def payload_digest(name: str, arguments: Any) -> str:
    return hashlib.sha256(json.dumps([name, arguments], sort_keys=True, default=str).encode()).hexdigest()


def reserve(user, key: str, name: str, arguments: Any) -> Reservation:
    digest = payload_digest(name, arguments)
    try:
        with transaction.atomic():
            return Reservation(
                record=IdempotentCall.objects.create(user=user, key=key, payload_digest=digest)
            )
    except IntegrityError:
        first = IdempotentCall.objects.get(user=user, key=key)
    if first.payload_digest != digest:
        return Reservation(record=None, conflict="reused")
    if first.result is None:
        return Reservation(record=None, conflict="in_progress")
    return Reservation(record=None, replay=first)


def finish(record: IdempotentCall, result: dict, http_status: int) -> None:
    IdempotentCall.objects.filter(pk=record.pk).update(result=result, http_status=http_status)
