"""Checks behind /healthz. Each returns (ok, detail) and never raises."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import connection

from apps.core.services import heartbeat_age_seconds

logger = logging.getLogger(__name__)


def _timed(check):
    def run() -> dict:
        started = time.perf_counter()
        try:
            detail = check()
            ok = True
        except Exception as exc:  # a health check reports, it never fails the request
            logger.warning("health check %s failed: %s", check.__name__, exc)
            ok, detail = False, type(exc).__name__
        return {"ok": ok, "detail": detail, "ms": round((time.perf_counter() - started) * 1000, 1)}

    run.__name__ = check.__name__
    return run


@_timed
def database() -> str:
    with connection.cursor() as cur:
        cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cur.fetchone()
    if row is None:
        raise RuntimeError("pgvector missing")
    return f"postgresql {connection.pg_version // 10000}, pgvector {row[0]}"


_broker_connection = None


@_timed
def broker() -> str:
    """Reuses one broker connection per process: building a kombu transport (for the SQLAlchemy
    transport, a whole engine) on every probe made /healthz take most of a second."""
    global _broker_connection
    from clapilot.celery import app

    if _broker_connection is None:
        _broker_connection = app.connection_for_write()
    try:
        _broker_connection.ensure_connection(max_retries=1, timeout=2)
        channel = _broker_connection.default_channel
        if _broker_connection.transport.driver_type == "redis":
            channel.client.ping()  # a real round trip; the SQL transport shares the database check
    except Exception:
        _broker_connection.release()
        _broker_connection = None
        raise
    return _broker_connection.transport.driver_type


@_timed
def channel_layer() -> str:
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer configured")

    async def round_trip() -> None:
        name = await layer.new_channel()
        token = uuid.uuid4().hex
        await layer.send(name, {"type": "health.ping", "token": token})
        message = await asyncio.wait_for(layer.receive(name), timeout=3)
        if message.get("token") != token:
            raise RuntimeError("channel layer returned a foreign message")

    async_to_sync(round_trip)()
    return type(layer).__name__


@_timed
def heartbeat() -> str:
    age = heartbeat_age_seconds("beat")
    if age is None:
        raise RuntimeError("no heartbeat yet")
    if age > 3 * settings.CLAPILOT_HEARTBEAT_SECONDS:
        raise RuntimeError(f"heartbeat is {age:.0f}s old")
    return f"{age:.0f}s ago"


def report() -> dict:
    checks = {
        "database": database(),
        "broker": broker(),
        "channel_layer": channel_layer(),
        "heartbeat": heartbeat(),
    }
    return {"ok": all(c["ok"] for c in checks.values()), "checks": checks}
