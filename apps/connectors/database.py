"""The one client module for the office's own databases: PostgreSQL (psycopg), MariaDB/MySQL
(PyMySQL) and SQLite (the standard library).

Reads run in a read-only transaction with a statement timeout (SQLite: a read-only connection and
a progress handler with a deadline); writes in one transaction committed at the end. Results are
capped in rows and bytes. No error raised here carries a host, a user name, a password or the
driver's own text: the model gets a stable code and the columns of the allowed tables instead.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

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


@contextmanager
def connect(connector: Connector, *, read_only: bool) -> Iterator[Any]:
    """A DB-API connection; closed afterwards. Connection failures become connector_unreachable."""
    try:
        conn = _open(connector, read_only)
    except Exception:
        logger.warning(
            "connector %s: connection failed", connector.pk
        )  # no exception text: it may name the host
        raise _unreachable(connector) from None
    try:
        yield conn
    finally:
        try:
            conn.close()
        except Exception:
            logger.debug("connector %s: close failed", connector.pk)


def _open(connector: Connector, read_only: bool) -> Any:
    kind = connector.kind
    if kind == Connector.Kind.POSTGRES:
        import psycopg

        return psycopg.connect(
            host=connector.host or None,
            port=connector.port or None,
            dbname=connector.database,
            user=connector.username or None,
            password=connector.password or None,
            connect_timeout=CONNECT_TIMEOUT,
            autocommit=False,
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
            autocommit=False,
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
        )
        return conn
    raise _unreachable(connector)


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
    with connect(connector, read_only=read_only) as conn:
        try:
            return _run(connector, conn, checked, params, read_only, timeout)
        except (StatementTimeout, StatementFailed):
            raise
        except Exception as exc:
            _rollback(conn)
            if _is_timeout(exc):
                raise StatementTimeout(
                    _("The statement ran longer than %(s)d s and was cancelled. Narrow it (WHERE, LIMIT).")
                    % {"s": timeout}
                ) from None
            logger.info("connector %s: statement failed (%s)", connector.pk, type(exc).__name__)
            raise failed(connector, checked.tables) from None


def _rollback(conn: Any) -> None:
    try:
        conn.rollback()
    except Exception:
        logger.debug("rollback failed")


def _run(
    connector: Connector, conn: Any, checked: Checked, params: Sequence[Any], read_only: bool, timeout: int
) -> Result:
    kind = connector.kind
    cur = conn.cursor()
    deadline = time.monotonic() + timeout
    if kind == Connector.Kind.POSTGRES:
        cur.execute("SET TRANSACTION READ ONLY" if read_only else "SET TRANSACTION READ WRITE")
        cur.execute("SELECT set_config('statement_timeout', %s, true)", (str(timeout * 1000),))
    elif kind == Connector.Kind.MYSQL:
        cur.execute(f"SET SESSION max_statement_time = {float(timeout)}")
        cur.execute("START TRANSACTION READ ONLY" if read_only else "START TRANSACTION READ WRITE")
    else:
        conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 1000)
        cur.execute("BEGIN")
    cur.execute(checked.sql, tuple(params))
    if read_only or cur.description is not None:
        result = _fetch(cur, connector)
    else:
        result = Result(columns=[], rows=[], row_count=max(cur.rowcount, 0))
    if read_only:
        _rollback(conn)
    else:
        conn.commit()
    return result


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
        try:
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
        finally:
            _rollback(conn)


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
