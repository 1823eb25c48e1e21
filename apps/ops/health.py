"""Checks behind /healthz. Each returns (ok, detail) and never raises.

A probe storm must not become a connection storm: one thread per process runs the checks while
the others wait for its result, and a result is reused for CLAPILOT_HEALTH_CACHE_SECONDS.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
import weakref

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import connection

from apps.core import caches
from apps.core.services import heartbeat_age_seconds

logger = logging.getLogger(__name__)

CHANNEL_LAYER_TIMEOUT = 3.0
PROCESS_STARTED = time.time()  # module import: this process's start, for `starting()`


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


# One probe channel per layer and event loop (daphne has one of each): a new channel per probe would
# leave a queue, and with channels-postgres an advisory lock, behind for every probe.
_probe_channels: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@_timed
def channel_layer() -> str:
    """A message sent to this process's own channel comes back (send and receive both work)."""
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer configured")

    async def round_trip() -> None:
        known = _probe_channels.setdefault(layer, weakref.WeakKeyDictionary())
        loop = asyncio.get_running_loop()
        name = known.get(loop)
        if name is None:
            name = known[loop] = await layer.new_channel(prefix="health")
        token = uuid.uuid4().hex
        await layer.send(name, {"type": "health.ping", "token": token})
        async with asyncio.timeout(CHANNEL_LAYER_TIMEOUT):
            # A reply to an earlier probe that timed out may still be queued: skip it.
            while (await layer.receive(name)).get("token") != token:
                pass

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


def _run_checks() -> dict:
    checks = {
        "database": database(),
        "broker": broker(),
        "channel_layer": channel_layer(),
        "heartbeat": heartbeat(),
    }
    failing = [name for name, check in checks.items() if not check["ok"]]
    status = "degraded" if failing else "ok"
    if failing == ["heartbeat"] and starting():
        status = "starting"
        checks["heartbeat"]["detail"] = "waiting for the first heartbeat since start"
    return {"ok": not failing, "status": status, "failing": failing, "checks": checks}


def starting() -> bool:
    """Just started (within the grace period) and no heartbeat seen since this process started:
    the worker and beat are still coming up, which is not yet a failure to report as degraded."""
    uptime = time.time() - PROCESS_STARTED
    if uptime > max(60.0, 4 * settings.CLAPILOT_HEARTBEAT_SECONDS):
        return False
    age = heartbeat_age_seconds("beat")
    return age is None or age > uptime


_lock = threading.Lock()
_last: tuple[float, dict] | None = None


def report() -> dict:
    """The checks' result, at most CLAPILOT_HEALTH_CACHE_SECONDS old; concurrent callers share
    one run."""
    global _last
    max_age = settings.CLAPILOT_HEALTH_CACHE_SECONDS
    with _lock:
        if _last is not None and time.monotonic() - _last[0] < max_age:
            return _last[1]
        result = _run_checks()
        _last = (time.monotonic(), result)
        return result


@caches.register
def forget() -> None:
    """Drop the cached result (tests change the state between probes)."""
    global _last
    with _lock:
        _last = None
