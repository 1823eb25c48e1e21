"""The Celery app. Jobs live in `apps/<domain>/jobs.py` so that "tasks" always means Aufgaben."""

import logging
import os
import socket
import threading
import time

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clapilot.settings")

logger = logging.getLogger(__name__)

app = Celery("clapilot")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Prefork whose children cannot wedge the worker by dying (see clapilot/pool.py). Only the pool
# class differs; `--pool solo|threads` on the command line still wins.
app.conf.worker_pool = "clapilot.pool:TaskPool"
app.autodiscover_tasks(related_name="jobs")


@signals.import_modules.connect(sender=app, dispatch_uid="clapilot.start_embedded_database")
def start_embedded_database(sender=None, **kwargs) -> None:
    """A worker or beat loads its job modules before it touches the broker or the database
    (`celery -A clapilot worker|beat` on its own, without the run command): start or attach to
    the embedded PostgreSQL then. Processes that only send jobs (web) never get here; the tests'
    in-process workers attach to the server the test run started."""
    from django.conf import settings

    if getattr(settings, "EMBEDDED_DATABASE", False):
        from clapilot import embedded_db

        embedded_db.ensure_running()


# --- liveness -------------------------------------------------------------------------------
# The worker's main process proves that its pool takes jobs: every CLAPILOT_WORKER_HEARTBEAT_SECONDS
# it records the heartbeat `worker:<node name>` (and pings systemd's watchdog when run as a
# Type=notify unit), unless a received job has waited CLAPILOT_WORKER_STUCK_SECONDS for a pool
# process while one was free. A wedged, frozen or hung worker therefore goes quiet, and whoever
# supervises it (the run command, systemd's WatchdogSec) replaces it.
_received: dict[str, float] = {}  # request id -> when the main process received it (monotonic)


def heartbeat_component(hostname: str) -> str:
    return f"worker:{hostname}"[:64]


def _sd_notify(state: str) -> None:
    """systemd's notification protocol (a datagram to $NOTIFY_SOCKET); nothing outside systemd."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(state.encode())
    except OSError as exc:
        logger.warning("worker: could not notify systemd (%s)", exc)


@signals.task_received.connect(dispatch_uid="clapilot.liveness.received")
def _on_received(request=None, **kwargs) -> None:
    _received[request.id] = time.monotonic()


def stuck_job(limit: float, stuck_seconds: float, now: float | None = None) -> tuple[str, float] | None:
    """A job received `stuck_seconds` ago or earlier that no pool process has started although
    fewer than `limit` jobs run: (its id, its wait); None while the pool takes jobs."""
    from celery.worker import state

    now = time.monotonic() if now is None else now
    reserved = {request.id for request in list(state.reserved_requests)}
    for request_id in [key for key in _received if key not in reserved]:
        _received.pop(request_id, None)
    running = {request.id for request in list(state.active_requests)}
    if len(running) >= limit:
        return None
    waiting = [(now - _received[key], key) for key in list(_received) if key not in running]
    if not waiting:
        return None
    waited, request_id = max(waiting)
    return (request_id, waited) if waited >= stuck_seconds else None


# The liveness thread writes through this alias of the same database, which has no connection
# pool: a psycopg pool opened in the worker's main process (and its threads) would be inherited by
# every pool process forked later, and Celery closes inherited pools in the child, terminating
# sessions the parent still uses (jobs then failed with "can't change 'autocommit' now").
UNPOOLED_ALIAS = "channels_postgres"


def _liveness_loop(consumer, stop: threading.Event) -> None:
    from django.conf import settings
    from django.db import connections

    from apps.core.services import record_heartbeat

    connection = connections[UNPOOLED_ALIAS]

    component = heartbeat_component(consumer.hostname)
    interval = settings.CLAPILOT_WORKER_HEARTBEAT_SECONDS
    stuck_seconds = settings.CLAPILOT_WORKER_STUCK_SECONDS
    limit = getattr(consumer.pool, "limit", None) or 1
    reported = False
    while not stop.is_set():
        stuck = stuck_job(limit, stuck_seconds)
        if stuck is not None:
            if not reported:
                logger.error(
                    "worker: job %s has waited %.0f s for a free pool process; the pool is wedged, "
                    "no heartbeat until it moves",
                    *stuck,
                )
                reported = True
        else:
            reported = False
            try:
                record_heartbeat(component, using=UNPOOLED_ALIAS)
                _sd_notify("WATCHDOG=1")
            except Exception as exc:  # the database is away: no heartbeat, tried again
                logger.warning("worker: could not record its heartbeat (%s)", type(exc).__name__)
            finally:
                connection.close()  # no connection for pool processes forked later to inherit
        stop.wait(interval)


_liveness_stops: dict[int, threading.Event] = {}  # id(worker) -> its liveness thread's stop


@signals.worker_ready.connect(dispatch_uid="clapilot.liveness.ready")
def _start_liveness(sender=None, **kwargs) -> None:
    _sd_notify("READY=1")
    stop = _liveness_stops.setdefault(id(getattr(sender, "controller", None)), threading.Event())
    threading.Thread(target=_liveness_loop, args=(sender, stop), name="worker-liveness", daemon=True).start()


@signals.worker_shutdown.connect(dispatch_uid="clapilot.liveness.shutdown")
def _stop_liveness(sender=None, **kwargs) -> None:
    """A worker that stops (also the tests' in-process workers) stops beating."""
    stop = _liveness_stops.pop(id(sender), None)
    if stop is not None:
        stop.set()
