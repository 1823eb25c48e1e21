"""One clean transaction per call on a pooled connection, per engine, in as few round trips as
the driver allows (each round trip is the bulk of what the tool adds over a raw driver call).

PostgreSQL: a read is the statement alone on a read session (opened with
default_transaction_read_only=on and the statement timeout: each statement is its own read-only
transaction); a write begins READ WRITE with SET LOCAL statement_timeout. MariaDB: a read is the statement alone, wrapped in
`SET STATEMENT max_statement_time=…, tx_read_only=1 FOR …` (an autocommit read-only statement);
MySQL: `max_execution_time` and START TRANSACTION READ ONLY. SQLite: in-process, a progress
handler with a deadline and a read-only connection.

Session state never outlives a call: the preflight refuses SET, temporary tables, session
variables, LOCK and the like, and a reused connection is reset anyway (PostgreSQL DISCARD TEMP +
RESET ALL, MySQL/MariaDB COM_RESET_CONNECTION). The one exception saves a round trip per
read: a connection whose last use was a checked SELECT in autocommit (nothing else ran on it,
no error) is not reset again, since such a statement cannot change session state. A
connection is only pooled again when no transaction is open (and, SQLite, nothing temporary or
attached).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from apps.connectors.models import Connector
from apps.connectors.pool import Lease

POSTGRES, MYSQL = Connector.Kind.POSTGRES, Connector.Kind.MYSQL
_MYSQL_IN_TRANSACTION = 0x0001 | 0x2000  # SERVER_STATUS_IN_TRANS, SERVER_STATUS_IN_TRANS_READONLY
_MYSQL_AUTOCOMMIT = 0x0002  # SERVER_STATUS_AUTOCOMMIT
_COM_RESET_CONNECTION = 0x1F  # MySQL protocol: session variables, temp tables, user variables, locks


def begin(kind: str, lease: Lease, read_only: bool, timeout: int, *, inline: bool = False) -> Any:
    """Start the call's transaction; a cursor. `inline`: a read whose settings come with the
    session (PostgreSQL) or the statement (MariaDB SET STATEMENT): nothing is sent for a clean
    connection, and a dead one fails on the statement itself (the caller retries reads)."""
    conn = lease.conn
    mode = "READ ONLY" if read_only else "READ WRITE"
    if kind == POSTGRES:
        cur = conn.cursor()
        statements = ["DISCARD TEMP", "RESET ALL"] if lease.reused and lease.dirty else []
        lease.dirty = False
        if not inline:
            lease.dirty = True  # our own statements and writes: reset before the next read
            statements += [f"BEGIN {mode}", f"SET LOCAL statement_timeout = {int(timeout) * 1000}"]
        if statements:  # no parameters: psycopg sends them as one simple query, one round trip
            cur.execute("; ".join(statements))
        return cur
    if kind == MYSQL:
        if lease.reused and (lease.dirty or not inline or not mariadb(conn)):
            conn._execute_command(_COM_RESET_CONNECTION, b"")  # PyMySQL has no public call for it
            conn._read_ok_packet()
            if not conn.get_autocommit():  # the reset restores the server's default
                conn.autocommit(True)
        lease.dirty = False
        cur = conn.cursor()
        if mariadb(conn) and inline:
            return cur  # a checked SELECT in autocommit leaves no session state behind
        lease.dirty = True  # our own statements and writes: reset before the next read
        if not mariadb(conn):  # MySQL bounds reads by a session variable, reset with the session
            cur.execute(f"SET SESSION max_execution_time = {timeout * 1000}")
        cur.execute(f"START TRANSACTION {mode}")
        lease.in_transaction = True  # PyMySQL's status flags lag behind a read-only transaction
        return cur
    deadline = time.monotonic() + timeout
    conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 1000)
    cur = conn.cursor()
    cur.execute("BEGIN")
    return cur


def run(
    kind: str,
    lease: Lease,
    cur: Any,
    sql: str,
    params: Sequence[Any],
    read_only: bool,
    timeout: int,
    *,
    inline: bool,
) -> None:
    """Execute the checked statement; its rows stay on `cur`."""
    conn = lease.conn
    if kind == MYSQL and mariadb(conn):
        settings = f"max_statement_time = {float(timeout)}"
        if inline and read_only:
            settings += f", {_read_only_variable(conn)} = 1"
        sql = f"SET STATEMENT {settings} FOR {sql}"
    cur.execute(sql, tuple(params))


def end(kind: str, lease: Lease, *, commit: bool) -> None:
    """Commit or roll back what is still open (a pipelined or autocommit read left nothing)."""
    conn = lease.conn
    if kind == POSTGRES:
        from psycopg import pq

        if conn.info.transaction_status != pq.TransactionStatus.IDLE:
            conn.execute("COMMIT" if commit else "ROLLBACK")
        return
    if kind == MYSQL:
        if lease.in_transaction:
            conn.commit() if commit else conn.rollback()
            lease.in_transaction = False
        return
    conn.commit() if commit else conn.rollback()
    conn.set_progress_handler(None, 0)


def clean(kind: str, conn: Any) -> bool:
    """May the connection serve another call: no open transaction, nothing attached or temporary."""
    if kind == POSTGRES:
        from psycopg import pq

        return not conn.closed and conn.info.transaction_status == pq.TransactionStatus.IDLE
    if kind == MYSQL:
        status = conn.server_status or 0
        # autocommit off: a plain SELECT would have left a snapshot open without saying so
        return bool(conn.open) and bool(status & _MYSQL_AUTOCOMMIT) and not status & _MYSQL_IN_TRANSACTION
    if conn.in_transaction:
        return False
    row = conn.execute(
        "SELECT (SELECT COUNT(*) FROM temp.sqlite_master)"
        " + (SELECT COUNT(*) FROM pragma_database_list WHERE name NOT IN ('main', 'temp'))"
    ).fetchone()
    return bool(row and row[0] == 0)


def broken(conn: Any, exc: BaseException) -> bool:
    """Did the connection itself fail (as opposed to the statement)?"""
    if isinstance(conn, sqlite3.Connection):
        return isinstance(exc, sqlite3.ProgrammingError)  # closed
    if hasattr(conn, "broken"):  # psycopg
        return bool(conn.closed or conn.broken)
    import pymysql

    if isinstance(exc, pymysql.err.InterfaceError) or not conn.open:
        return True
    code = exc.args[0] if isinstance(exc, pymysql.err.OperationalError) and exc.args else None
    return code in (2006, 2013, 2014, 2055)  # server gone, lost, out of sync, lost at handshake


def mariadb(conn: Any) -> bool:
    return "mariadb" in str(getattr(conn, "server_version", "")).lower()


def _read_only_variable(conn: Any) -> str:
    """MariaDB 11.1 renamed tx_read_only."""
    version = str(conn.server_version).removeprefix("5.5.5-").split("-")[0].split(".")
    numbers = tuple(int(v) for v in version[:2] if v.isdigit())
    return "transaction_read_only" if numbers >= (11, 1) else "tx_read_only"
