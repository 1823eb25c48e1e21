"""The one client module for the office's own databases: PostgreSQL (psycopg), MariaDB/MySQL
(PyMySQL) and SQLite (the standard library).

Reads run in a read-only transaction with a statement timeout (SQLite: a read-only connection and
a progress handler with a deadline); writes in one transaction committed at the end. Results are
capped in rows and bytes. No error raised here carries a host, a user name, a password or the
driver's own text: the model gets a stable code and the columns of the allowed tables instead.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from apps.connectors import pool, sessions
from apps.connectors.errors import ConnectorUnreachable, StatementFailed, StatementTimeout
from apps.connectors.models import Connector
from apps.connectors.sqlguard import Checked, normalized_name

logger = logging.getLogger(__name__)
CONNECT_TIMEOUT = 5


@dataclass
class Result:
    columns: list[str]
    rows: list[list[Any]]
    row_count: int  # rows affected by a write; rows returned by a read
    truncated: bool = False
    notice: dict[str, Any] = field(default_factory=dict)


def _unreachable(connector: Connector) -> ConnectorUnreachable:
    return ConnectorUnreachable(
        _("The database “%(name)s” cannot be reached. Ask an administrator to check the connector.")
        % {"name": connector.name},
        details={"connector": connector.name},
    )


def _busy(connector: Connector) -> ConnectorUnreachable:
    return ConnectorUnreachable(
        _("All connections to the database “%(name)s” are busy. Try again in a moment.")
        % {"name": connector.name},
        details={"connector": connector.name},
    )


@contextmanager
def connect(connector: Connector, *, read_only: bool, timeout: int | None = None) -> Iterator[Any]:
    """A pooled DB-API connection inside a fresh transaction (read-only, with the statement
    timeout); rolled back and returned to the pool afterwards, closed if it broke."""
    lease, _cur = _lease(connector, read_only, timeout)
    try:
        yield lease.conn
    except BaseException as exc:
        lease.dirty = True
        _give_back(connector, lease, broken=sessions.broken(lease.conn, exc))
        raise
    _give_back(connector, lease, broken=False)


def _lease(
    connector: Connector, read_only: bool, timeout: int | None, *, inline: bool = False
) -> tuple[pool.Lease, Any]:
    """A connection with its transaction begun. A pooled connection that died while idle (server
    restart, killed backend) fails here, before any statement of the call: it is dropped and
    the call tries once more on a fresh one. (`inline` reads find out in `execute`.)"""
    seconds = max(1, int(timeout or connector.timeout_seconds))
    slot, fingerprint = _slot(connector, read_only, seconds)
    for _attempt in range(2):
        try:
            lease = pool.POOL.acquire(slot, fingerprint, lambda: _open(connector, read_only, seconds))
        except pool.PoolExhausted:
            raise _busy(connector) from None
        except Exception:
            # no exception text: it may name the host or the user
            logger.warning("connector %s: connection failed", connector.pk)
            raise _unreachable(connector) from None
        try:
            return lease, sessions.begin(connector.kind, lease, read_only, seconds, inline=inline)
        except Exception:
            pool.POOL.discard(lease)
            if not lease.reused:
                logger.warning("connector %s: transaction could not start", connector.pk)
                raise _unreachable(connector) from None
            logger.info("connector %s: dropped a dead pooled connection", connector.pk)
    raise _unreachable(connector)


def _give_back(connector: Connector, lease: pool.Lease, *, broken: bool, commit: bool = False) -> None:
    if not broken:
        try:
            sessions.end(connector.kind, lease, commit=commit)
            if sessions.clean(connector.kind, lease.conn):
                pool.POOL.release(lease)
                return
        except Exception:
            logger.debug("connector %s: connection not reusable", connector.pk)
    pool.POOL.discard(lease)


def _slot(connector: Connector, read_only: bool, timeout: int) -> tuple[pool.Slot, str]:
    """Reads and writes use separate connections (SQLite: a read-only file handle; PostgreSQL:
    read-only sessions with the configuration's statement timeout, part of the fingerprint)."""
    sqlite = connector.kind == Connector.Kind.SQLITE
    file_id = ""
    if sqlite:  # a replaced file is a new source
        try:
            st = os.stat(connector.path)
            file_id = f"{st.st_dev}:{st.st_ino}"
        except OSError:
            file_id = "missing"
    ident = str(connector.pk) if connector.pk else f"unsaved-{id(connector)}"
    fingerprint = pool.fingerprint(
        connector.kind,
        connector.host,
        connector.port,
        connector.database,
        connector.username,
        connector.password,
        connector.path,
        file_id,
        timeout if read_only and connector.kind == Connector.Kind.POSTGRES else "",
    )
    return (ident, read_only), fingerprint


def _open(connector: Connector, read_only: bool, timeout: int) -> Any:
    kind = connector.kind
    if kind == Connector.Kind.POSTGRES:
        import psycopg

        # A read session: every statement is its own read-only transaction under the timeout
        # (RESET ALL returns to these values). Writes begin their transaction explicitly.
        options = f"-c default_transaction_read_only=on -c statement_timeout={timeout * 1000}"
        return psycopg.connect(
            options=options if read_only else None,
            host=connector.host or None,
            port=connector.port or None,
            dbname=connector.database,
            user=connector.username or None,
            password=connector.password or None,
            connect_timeout=CONNECT_TIMEOUT,
            autocommit=True,
        )
    if kind == Connector.Kind.MYSQL:
        import pymysql

        return pymysql.connect(
            host=connector.host or "localhost",
            port=connector.port or 3306,
            user=connector.username or "",
            password=connector.password or "",
            database=connector.database,
            connect_timeout=CONNECT_TIMEOUT,
            autocommit=True,  # a read is one statement, its own transaction; writes START one
            charset="utf8mb4",
            local_infile=False,
        )
    if kind == Connector.Kind.SQLITE:
        mode = "ro" if read_only else "rw"
        conn = sqlite3.connect(
            f"file:{_sqlite_path(connector.path)}?mode={mode}",
            uri=True,
            timeout=CONNECT_TIMEOUT,
            isolation_level=None,
            check_same_thread=False,  # leased to one thread at a time by the pool
        )
        return conn
    raise ValueError("unknown connector kind")


def _sqlite_path(path: str) -> str:
    from urllib.parse import quote

    return quote(path, safe="/")


def _is_timeout(exc: BaseException) -> bool:
    name = type(exc).__name__
    if name == "QueryCanceled":
        return True
    code = getattr(exc, "args", (None,))[0] if exc.args else None
    if code in (1969, 3024):  # MariaDB max_statement_time, MySQL max_execution_time
        return True
    return isinstance(exc, sqlite3.OperationalError) and "interrupted" in str(exc)


def execute(connector: Connector, checked: Checked, params: Sequence[Any]) -> Result:
    read_only = checked.verb == "select"
    timeout = max(1, int(connector.timeout_seconds))
    for attempt in range(2):
        # reads go in one round trip where the engine allows; writes start their transaction first
        lease, cur = _lease(connector, read_only, timeout, inline=read_only)
        try:
            sessions.run(
                connector.kind, lease, cur, checked.sql, params, read_only, timeout, inline=read_only
            )
            if read_only or cur.description is not None:
                result = _fetch(cur, connector)
            else:
                result = Result(columns=[], rows=[], row_count=max(cur.rowcount, 0))
        except Exception as exc:
            broken = sessions.broken(lease.conn, exc)
            lease.dirty = True  # a failed statement may have left something behind: reset next time
            _give_back(connector, lease, broken=broken)
            if broken and read_only and lease.reused and attempt == 0:
                continue  # the connection died while idle: reading again is harmless
            if broken:
                raise _unreachable(connector) from None
            if _is_timeout(exc):
                raise StatementTimeout(
                    _("The statement ran longer than %(s)d s and was cancelled. Narrow it (WHERE, LIMIT).")
                    % {"s": timeout}
                ) from None
            logger.info("connector %s: statement failed (%s)", connector.pk, type(exc).__name__)
            raise failed(connector, checked.tables) from None
        _give_back(connector, lease, broken=False, commit=not read_only)
        return result
    raise _unreachable(connector)


def _fetch(cur: Any, connector: Connector) -> Result:
    columns = [d[0] for d in cur.description or ()]
    max_rows = max(1, int(connector.max_rows))
    max_bytes = max(1000, int(connector.max_bytes))
    rows: list[list[Any]] = []
    size = 0
    truncated = False
    for raw in iter(lambda: cur.fetchmany(100), []):
        for row in raw:
            values = [_plain(v) for v in row]
            size += sum(len(v) + 4 if isinstance(v, str) else 8 for v in values)  # JSON size, roughly
            if len(rows) >= max_rows or size > max_bytes:
                truncated = True
                break
            rows.append(values)
        if truncated or not raw:
            break
    result = Result(columns=columns, rows=rows, row_count=len(rows), truncated=truncated)
    if truncated:
        result.notice = {
            "code": "result_truncated",
            "message": _(
                "The result was cut after %(rows)d rows (limit %(max_rows)d rows, %(max_bytes)d bytes). "
                "Narrow the query (WHERE, LIMIT, fewer columns)."
            )
            % {"rows": len(rows), "max_rows": max_rows, "max_bytes": max_bytes},
        }
    return result


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(bytes(value))} bytes>"
    return str(value)


# --- schema information: queries the tool writes itself, table names as parameters -----------
def columns_of(connector: Connector, table: str) -> list[dict[str, Any]]:
    with connect(connector, read_only=True) as conn:
        cur = conn.cursor()
        if connector.kind == Connector.Kind.SQLITE:
            cur.execute('SELECT name, type, "notnull" FROM pragma_table_info(?)', (table,))
            return [{"name": r[0], "type": r[1], "nullable": not r[2]} for r in cur.fetchall()]
        schema, _dot, name = table.rpartition(".")
        if connector.kind == Connector.Kind.POSTGRES:
            cur.execute(
                "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                "WHERE table_name = %s AND table_schema = COALESCE(%s, current_schema()) "
                "ORDER BY ordinal_position",
                (name, schema or None),
            )
        else:
            cur.execute(
                "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                "WHERE table_name = %s AND table_schema = COALESCE(%s, DATABASE()) "
                "ORDER BY ordinal_position",
                (name, schema or None),
            )
        return [{"name": r[0], "type": r[1], "nullable": r[2] == "YES"} for r in cur.fetchall()]


def allowed_tables(connector: Connector) -> list[str]:
    dialect = {"postgres": "postgres", "mysql": "mysql", "sqlite": "sqlite"}[connector.kind]
    return sorted({normalized_name(t, dialect) for t in connector.allowed_tables or () if t})


def failed(connector: Connector, tables: Sequence[str]) -> StatementFailed:
    """The database refused the statement: name the columns of the allowed tables involved (or
    the allowed tables, when it named none of them), never the driver's text."""
    known: dict[str, list[str]] = {}
    try:
        for table in (tables or allowed_tables(connector))[:10]:
            known[table] = [c["name"] for c in columns_of(connector, table)]
    except Exception:
        logger.debug("connector %s: columns could not be read", connector.pk)
    missing = _("(does not exist)")
    described = "; ".join(f"{t}: {', '.join(cols) or missing}" for t, cols in known.items())
    return StatementFailed(
        _(
            "The database refused the statement (an unknown column or table, or a wrong type). What exists: %(what)s."
        )
        % {"what": described or ", ".join(allowed_tables(connector))},
        details={"columns": known, "allowed_tables": allowed_tables(connector)},
    )


def ping(connector: Connector) -> None:
    """Test the connection (admin's "test connection"): raises connector_unreachable."""
    with connect(connector, read_only=True) as conn:
        cur = conn.cursor()
        try:
            cur.execute("SELECT 1")
            cur.fetchall()
        except Exception:
            raise _unreachable(connector) from None
