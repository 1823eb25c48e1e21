"""Connections to the office's databases, reused across calls in one process (#26).

Opening a PostgreSQL or MariaDB connection costs more than the query it serves (10-40 ms against
well under 1 ms), so `database` leases connections from here instead. One slot per configuration
(and, for SQLite, per read/write mode), at most `max_size` connections per slot, open or idle;
a caller beyond that waits up to `wait_seconds`. A slot is keyed by a fingerprint of everything
the connection was opened with (host, port, database, user, password, SQLite file identity):
when the configuration or its secret changes, the old connections are closed instead of reused.
The password only enters the fingerprint through a hash; nothing here logs or raises driver text.

The pool knows nothing about transactions: `database` starts a clean one per call and decides
whether a connection goes back (`release`) or is closed (`discard`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

logger = logging.getLogger(__name__)

Slot = tuple[str, bool]  # (configuration, read-only SQLite connection)


class PoolExhausted(Exception):
    """All connections of a configuration stayed busy for `wait_seconds`."""


@dataclass
class Lease:
    conn: Any
    slot: Slot
    fingerprint: str
    reused: bool  # came from the idle list: may have died since it was last used
    opened_at: float = field(default_factory=time.monotonic)
    in_transaction: bool = False  # set by the caller: a transaction it began and must end
    dirty: bool = False  # set by the caller: may carry session state; reset before the next use


@dataclass
class _Idle:
    conn: Any
    opened_at: float
    last_used: float
    dirty: bool


class Pool:
    def __init__(
        self,
        *,
        max_size: int = 4,
        max_slots: int = 32,
        max_idle_seconds: float = 300.0,
        max_age_seconds: float = 3600.0,
        wait_seconds: float = 5.0,
    ) -> None:
        self.max_size = max_size
        self.max_slots = max_slots
        self.max_idle_seconds = max_idle_seconds
        self.max_age_seconds = max_age_seconds
        self.wait_seconds = wait_seconds
        self._reset_state()

    def _reset_state(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._fingerprints: dict[Slot, str] = {}  # insertion order = least recently used first
        self._idle: dict[Slot, list[_Idle]] = {}
        self._open: dict[Slot, int] = {}  # idle + leased, per slot

    # --- lease and return ---------------------------------------------------------------------
    def acquire(self, slot: Slot, fingerprint: str, opener: Callable[[], Any]) -> Lease:
        doomed: list[Any] = []
        deadline = time.monotonic() + self.wait_seconds
        try:
            with self._cond:
                doomed += self._adopt(slot, fingerprint)
                while True:
                    now = time.monotonic()
                    idle = self._idle.get(slot, [])
                    while idle:
                        entry = idle.pop()  # the most recently used: the likeliest to be alive
                        if self._stale(entry, now):
                            doomed.append(entry.conn)
                            self._open[slot] -= 1
                            continue
                        return Lease(
                            entry.conn,
                            slot,
                            fingerprint,
                            reused=True,
                            opened_at=entry.opened_at,
                            dirty=entry.dirty,
                        )
                    if self._open.get(slot, 0) < self.max_size:
                        self._open[slot] = self._open.get(slot, 0) + 1
                        break
                    if now >= deadline or not self._cond.wait(deadline - now):
                        raise PoolExhausted(slot[0])
        finally:
            _close_all(doomed)
        try:
            conn = opener()
        except BaseException:
            self._forget_one(slot, fingerprint)
            raise
        return Lease(conn, slot, fingerprint, reused=False)

    def release(self, lease: Lease) -> None:
        """Back to the idle list: the caller has ended its transaction and checked the state."""
        now = time.monotonic()
        with self._cond:
            current = self._fingerprints.get(lease.slot) == lease.fingerprint
            if current and now - lease.opened_at < self.max_age_seconds:
                entry = _Idle(lease.conn, lease.opened_at, now, lease.dirty)
                self._idle.setdefault(lease.slot, []).append(entry)
                self._cond.notify()
                return
        self.discard(lease)

    def discard(self, lease: Lease) -> None:
        """Close a connection that broke, carries state, or belongs to an old configuration."""
        _close_all([lease.conn])
        self._forget_one(lease.slot, lease.fingerprint)

    def _forget_one(self, slot: Slot, fingerprint: str) -> None:
        with self._cond:
            if self._fingerprints.get(slot) == fingerprint and self._open.get(slot, 0) > 0:
                self._open[slot] -= 1
            self._cond.notify()

    # --- bookkeeping (called with the lock held) ------------------------------------------------
    def _adopt(self, slot: Slot, fingerprint: str) -> list[Any]:
        """Make `fingerprint` the slot's current one; return connections to close."""
        doomed: list[Any] = []
        old = self._fingerprints.pop(slot, None)
        if old is not None and old != fingerprint:
            doomed += [e.conn for e in self._idle.pop(slot, [])]
            self._open[slot] = 0  # leased ones of the old configuration are closed on release
        self._fingerprints[slot] = fingerprint  # now the most recently used slot
        while len(self._fingerprints) > self.max_slots:
            oldest = next(iter(self._fingerprints))
            del self._fingerprints[oldest]
            doomed += [e.conn for e in self._idle.pop(oldest, [])]
            self._open.pop(oldest, None)
        return doomed

    def _stale(self, entry: _Idle, now: float) -> bool:
        return now - entry.last_used > self.max_idle_seconds or now - entry.opened_at > self.max_age_seconds

    # --- whole pool -------------------------------------------------------------------------------
    def clear(self) -> None:
        """Close every idle connection (tests, shutdown); leased ones are closed on return."""
        with self._cond:
            doomed = [e.conn for idle in self._idle.values() for e in idle]
            self._fingerprints.clear()
            self._idle.clear()
            self._open.clear()
        _close_all(doomed)

    def stats(self, slot: Slot) -> tuple[int, int]:
        """(open, idle) connections of one slot."""
        with self._cond:
            return self._open.get(slot, 0), len(self._idle.get(slot, []))

    def forget_after_fork(self) -> None:
        """In a forked child the sockets are the parent's: drop them without a word to the server
        (closing would end the parent's sessions)."""
        self._reset_state()


def _close_all(conns: list[Any]) -> None:
    for conn in conns:
        try:
            conn.close()
        except Exception:
            logger.debug("connector pool: close failed")


def fingerprint(*parts: object) -> str:
    return hashlib.sha256("\x00".join(str(p) for p in parts).encode()).hexdigest()


POOL = Pool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=POOL.forget_after_fork)
