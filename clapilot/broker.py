"""The Celery broker without Redis: kombu's SQLAlchemy transport on the product's PostgreSQL, with
leases, so a job whose worker dies is delivered again.

kombu's transport marks a fetched message row invisible and forgets it: an acknowledgement only
touches the worker's memory, and a worker killed with SIGKILL (or the OOM killer) never puts its
unacknowledged messages back. With `acks_late` such a job was simply lost, the row invisible for
ever. Here a delivered row is a lease:

- fetching stamps the row (`timestamp`) and remembers its id for the delivery tag;
- while the worker process lives, a thread renews the stamps of its unacknowledged rows every
  quarter of the visibility timeout, so a long job is never delivered twice;
- an acknowledgement (or a reject without requeue) deletes the row; a requeue puts a new row and
  deletes the old one;
- a row whose lease is older than the visibility timeout (its worker died) is fetched again by the
  next worker that polls the queue;
- a message delivered `max_deliveries` times (default 5) whose worker died each time (a requeue
  after a lost pool child counts too) is dropped with an error in the log, so one poisonous job
  cannot kill workers for ever.

Throughput: kombu's virtual transport sleeps `polling_interval` (1 s) whenever a poll returns
nothing, and also while the worker holds as many unacknowledged jobs as its prefetch allows: a
worker with two pool processes ran about two jobs a second however short they were. Here the
transport waits on an event instead, set as soon as a job is acknowledged (a slot is free, so it
polls at once), and an empty queue is polled again after 50 ms, doubling up to `polling_interval`
(default 1 s) while it stays empty: a busy queue drains without pauses, an idle worker still
queries about once a second.

Delivery is at least once: a worker that dies after a job's writes committed but before the
acknowledgement reached the database runs the job again, so jobs are idempotent (see
`apps/ops/jobs.py`). The URL scheme is `clapilot-sqla+<SQLAlchemy URL>`; the transport options
`visibility_timeout` (seconds), `max_deliveries` and `polling_interval` (kombu's, the longest
wait of an idle worker) are ours, every other one goes to `create_engine()`.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from json import dumps, loads
from queue import Empty
from urllib.parse import quote

from kombu.transport import TRANSPORT_ALIASES
from kombu.transport import sqlalchemy as sqla
from kombu.utils.encoding import bytes_to_str
from sqlalchemy import create_engine, delete, or_, update
from sqlalchemy.exc import InterfaceError, OperationalError, PendingRollbackError

logger = logging.getLogger(__name__)

ALIAS = "clapilot-sqla"
DEFAULT_VISIBILITY_TIMEOUT = 60.0
# A job delivered this often because its worker died each time (a parser that segfaults, a file
# that exhausts memory) is dropped with an error instead of killing workers for ever.
DEFAULT_MAX_DELIVERIES = 5
# An empty queue is polled again after this long, doubling up to `polling_interval`.
FIRST_EMPTY_WAIT = 0.05
DELIVERIES = "x_clapilot_deliveries"  # in the message properties
# Options kombu itself reads from the transport options; they are no create_engine() arguments.
_NOT_ENGINE_OPTIONS = (
    "queue_tablename",
    "message_tablename",
    "callback",
    "errback",
    "max_retries",
    "interval_start",
    "interval_step",
    "interval_max",
    "retry_errors",
    "visibility_timeout",
    "max_deliveries",
    "polling_interval",
)


def url_for(db: dict) -> str:
    """The broker URL on the database of a Django database settings dict."""
    auth = quote(str(db["USER"])) + (f":{quote(str(db['PASSWORD']))}" if db.get("PASSWORD") else "")
    host = str(db.get("HOST") or "localhost")
    if host.startswith("/"):  # a Unix socket directory
        return f"{ALIAS}+postgresql+psycopg://{auth}@/{db['NAME']}?host={host}"
    return f"{ALIAS}+postgresql+psycopg://{auth}@{host}:{db.get('PORT') or 5432}/{db['NAME']}"


def _now() -> dt.datetime:
    # kombu's column is a naive timestamp stamped with datetime.now() (its `onupdate`).
    return dt.datetime.now()


class Channel(sqla.Channel):
    def __init__(self, connection, **kwargs):
        options = connection.client.transport_options
        self.visibility_timeout = float(options.get("visibility_timeout") or DEFAULT_VISIBILITY_TIMEOUT)
        self.max_deliveries = int(options.get("max_deliveries") or DEFAULT_MAX_DELIVERIES)
        self._leases: dict[str, int] = {}  # delivery tag -> row id, not yet acknowledged
        self._unreleased: set[int] = set()  # acknowledged rows whose delete failed (retried)
        self._lease_lock = threading.Lock()
        # kombu's channel has ONE SQLAlchemy session, and sessions are not thread-safe. With a
        # broker that has no event loop the worker runs billiard's blocking pool, which settles
        # jobs from its own threads: a job whose pool process died is requeued
        # (reject_on_worker_lost) from a pool thread while the main thread polls, and an empty
        # poll rolls the shared session back, which can discard the requeue's new row before its
        # commit (the old row is deleted next: the job is gone; 1 of 65 jobs was lost in the
        # ten-kill test before this lock, none in the runs since). Every use of the session holds it.
        self._session_lock = threading.RLock()
        self._stop_renewing = threading.Event()
        self._renewer: threading.Thread | None = None
        super().__init__(connection, **kwargs)

    def _engine_from_config(self):
        conninfo = self.connection.client
        options = {k: v for k, v in conninfo.transport_options.items() if k not in _NOT_ENGINE_OPTIONS}
        return create_engine(conninfo.hostname, **options)

    @property
    def _table(self):
        return self.message_cls.__table__

    def _get(self, queue):
        while True:
            with self._session_lock:
                payload = self._get_one(queue)
            if payload is not None:
                return payload

    def _put(self, queue, payload, **kwargs):
        with self._session_lock:
            super()._put(queue, payload, **kwargs)

    def _purge(self, queue):
        with self._session_lock:
            return super()._purge(queue)

    def _size(self, queue):
        with self._session_lock:
            return super()._size(queue)

    def _get_one(self, queue):
        """The next message, or None when the one found was dropped (delivered too often)."""
        obj = self._get_or_create(queue)
        message = self.message_cls
        now = _now()
        expired = now - dt.timedelta(seconds=self.visibility_timeout)
        try:
            row = (
                self.session.query(message)
                .with_for_update(skip_locked=True)
                .filter(message.queue_id == obj.id)
                .filter(or_(message.visible != False, message.sent_at < expired))  # noqa: E712
                .order_by(message.id)
                .limit(1)
                .first()
            )
            if row is None:
                raise Empty()
            payload = loads(bytes_to_str(row.payload))
            if not row.visible:  # its lease ran out: the worker died
                deliveries = int(payload["properties"].get(DELIVERIES) or 1) + 1
                if deliveries > self.max_deliveries:
                    _drop(payload, queue, deliveries - 1)
                    self.session.delete(row)
                    self.session.commit()
                    return None
                logger.warning(
                    "broker: message %s of queue %s delivered again (its worker died; delivery %d)",
                    row.id,
                    queue,
                    deliveries,
                )
                payload["properties"][DELIVERIES] = deliveries
                row.payload = dumps(payload)
            row.visible = False
            row.sent_at = now
            row_id = row.id
        except Exception:
            self.session.rollback()
            raise
        self.session.commit()
        with self._lease_lock:
            self._leases[payload["properties"]["delivery_tag"]] = row_id
        self._start_renewing()
        return payload

    # --- the end of a delivery ----------------------------------------------------------------
    def basic_ack(self, delivery_tag, multiple=False):
        super().basic_ack(delivery_tag, multiple=multiple)
        self._release(delivery_tag)

    def basic_reject(self, delivery_tag, requeue=False):
        try:
            super().basic_reject(delivery_tag, requeue=requeue)  # a requeue goes through _restore
        except Exception:
            with self._lease_lock:  # not put back: let the lease run out instead of renewing it
                self._leases.pop(delivery_tag, None)
            raise
        self._release(delivery_tag)

    def _restore(self, message):
        """Requeue (reject with requeue, warm shutdown): a new row, then the old one goes."""
        super()._restore(message)
        self._release(message.delivery_tag)

    def _restore_at_beginning(self, message):
        """A reject with requeue: the job's worker process was lost (reject_on_worker_lost)."""
        deliveries = int(message.properties.get(DELIVERIES) or 1) + 1
        if deliveries > self.max_deliveries:
            _drop(message.serializable(), message.delivery_info.get("routing_key", ""), deliveries - 1)
            self._release(message.delivery_tag)
            return
        message.properties[DELIVERIES] = deliveries
        self._restore(message)

    def _release(self, delivery_tag) -> None:
        self.connection.wake()  # a prefetch slot is free: poll now, not after polling_interval
        with self._lease_lock:
            row_id = self._leases.pop(delivery_tag, None)
            if row_id is None:
                return
            self._unreleased.add(row_id)
        self._delete_released()

    def _delete_released(self) -> None:
        with self._lease_lock:
            ids = list(self._unreleased)
        if not ids:
            return
        engine, _session = self._open()
        try:
            with engine.begin() as conn:
                conn.execute(delete(self._table).where(self._table.c.id.in_(ids)))
        except Exception as exc:  # the database is away: the renewer keeps the lease and retries
            logger.warning("broker: could not delete %d acknowledged messages yet (%s)", len(ids), exc)
            return
        with self._lease_lock:
            self._unreleased.difference_update(ids)

    # --- leases -------------------------------------------------------------------------------
    def _start_renewing(self) -> None:
        if self._renewer is not None:
            return
        self._renewer = threading.Thread(target=self._renew_loop, name="broker-lease-renewer", daemon=True)
        self._renewer.start()

    def _renew_loop(self) -> None:
        interval = max(0.2, self.visibility_timeout / 4)
        while not self._stop_renewing.wait(interval):
            self._delete_released()
            with self._lease_lock:
                ids = [*self._leases.values(), *self._unreleased]
            if not ids:
                continue
            try:
                engine, _session = self._open()
                with engine.begin() as conn:
                    stamp = self.message_cls.sent_at.property.columns[0]
                    conn.execute(update(self._table).where(self._table.c.id.in_(ids)).values({stamp: _now()}))
            except Exception as exc:
                logger.warning("broker: could not renew %d message leases (%s)", len(ids), exc)

    def close(self):
        try:
            super().close()  # restores what is unacknowledged (warm shutdown)
        finally:
            self._stop_renewing.set()


def _drop(payload: dict, queue: str, deliveries: int) -> None:
    headers = payload.get("headers") or {}
    logger.error(
        "broker: job %s (%s) of queue %s dropped: its worker died in each of %d deliveries",
        headers.get("task", "?"),
        headers.get("id", "?"),
        queue,
        deliveries,
    )


class Transport(sqla.Transport):
    Channel = Channel
    # A restarted database surfaces as any of these; the worker then reconnects.
    connection_errors = (OperationalError, InterfaceError, PendingRollbackError)

    def __init__(self, client, **kwargs):
        self._wakeup = threading.Event()
        self._empty_wait = FIRST_EMPTY_WAIT  # kept across calls: the worker calls in a loop
        super().__init__(client, **kwargs)

    def wake(self) -> None:
        """Something changed (a job was acknowledged): the waiting consumer polls at once."""
        self._wakeup.set()

    def drain_events(self, connection, timeout=None):
        """kombu's loop, with the fixed sleep replaced by a wait on `wake()` that backs off from
        FIRST_EMPTY_WAIT to `polling_interval` while nothing comes."""
        start = time.monotonic()
        longest = self.polling_interval or 1.0
        while True:
            self._wakeup.clear()
            try:
                self.cycle.get(self._deliver, timeout=timeout)
            except Empty:
                wait = min(self._empty_wait, longest)
                if timeout is not None:
                    left = timeout - (time.monotonic() - start)
                    if left <= 0:
                        raise TimeoutError() from None
                    wait = min(wait, left)
                if self._wakeup.wait(wait):
                    self._empty_wait = FIRST_EMPTY_WAIT
                else:
                    self._empty_wait = min(self._empty_wait * 2, longest)
            else:
                self._empty_wait = FIRST_EMPTY_WAIT
                return


TRANSPORT_ALIASES[ALIAS] = "clapilot.broker:Transport"
