"""The connection pool behind the Database tool: bounded, thread-safe, invalidated when the
configuration or its secret changes (unit tests with stand-in connections), and against the
real engines: connections are reused, never carry state from one call to the next, a read can
never write, a killed connection is replaced, and no error names a secret."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from apps.connectors import database
from apps.connectors.errors import StatementFailed
from apps.connectors.models import Connector
from apps.connectors.pool import POOL, Pool, PoolExhausted
from apps.connectors.sqlguard import Checked
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.connectors.conftest import MY, PG, SECRET


class FakeConn:
    opened = 0

    def __init__(self) -> None:
        FakeConn.opened += 1
        self.closed = False

    def close(self) -> None:
        self.closed = True


SLOT = ("7", True)


def test_pool_reuses_caps_and_times_out() -> None:
    pool = Pool(max_size=2, wait_seconds=0.2)
    a = pool.acquire(SLOT, "fp", FakeConn)
    b = pool.acquire(SLOT, "fp", FakeConn)
    assert not a.reused and a.conn is not b.conn
    started = time.monotonic()
    with pytest.raises(PoolExhausted):
        pool.acquire(SLOT, "fp", FakeConn)  # two leased: the third waits, then gives up
    assert time.monotonic() - started >= 0.19
    pool.release(a)
    c = pool.acquire(SLOT, "fp", FakeConn)
    assert c.reused and c.conn is a.conn
    assert pool.stats(SLOT) == (2, 0)


def test_a_waiting_caller_gets_the_connection_given_back() -> None:
    pool = Pool(max_size=1, wait_seconds=5)
    first = pool.acquire(SLOT, "fp", FakeConn)
    got: list[Any] = []
    waiter = threading.Thread(target=lambda: got.append(pool.acquire(SLOT, "fp", FakeConn)))
    waiter.start()
    time.sleep(0.1)
    assert not got
    pool.release(first)
    waiter.join(2)
    assert got and got[0].conn is first.conn


def test_a_changed_configuration_or_secret_closes_the_old_connections() -> None:
    pool = Pool(max_size=2)
    idle = pool.acquire(SLOT, "old", FakeConn)
    leased = pool.acquire(SLOT, "old", FakeConn)
    pool.release(idle)
    new = pool.acquire(SLOT, "new", FakeConn)  # e.g. the password changed
    assert not new.reused and idle.conn.closed
    pool.release(leased)  # a connection of the old configuration never goes back
    assert leased.conn.closed
    assert pool.stats(SLOT) == (1, 0)


def test_stale_and_surplus_slots_are_closed() -> None:
    pool = Pool(max_size=2, max_slots=2, max_idle_seconds=0.05)
    lease = pool.acquire(SLOT, "fp", FakeConn)
    pool.release(lease)
    time.sleep(0.1)
    again = pool.acquire(SLOT, "fp", FakeConn)
    assert not again.reused and lease.conn.closed  # idle too long: closed, a new one opened
    pool.release(again)
    for n in range(3):  # more configurations than slots: the least recently used is closed
        pool.release(pool.acquire((f"other{n}", True), "fp", FakeConn))
    assert again.conn.closed


def test_a_forked_child_forgets_the_parents_connections_without_closing_them() -> None:
    pool = Pool()
    lease = pool.acquire(SLOT, "fp", FakeConn)
    pool.release(lease)
    pool.forget_after_fork()  # closing would end the parent's sessions on the shared socket
    assert not lease.conn.closed
    assert pool.stats(SLOT) == (0, 0)
    assert not pool.acquire(SLOT, "fp", FakeConn).reused


def test_concurrent_callers_never_share_a_connection() -> None:
    pool = Pool(max_size=3, wait_seconds=5)
    in_use: set[int] = set()
    clashes: list[int] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(50):
            lease = pool.acquire(SLOT, "fp", FakeConn)
            with lock:
                if id(lease.conn) in in_use:
                    clashes.append(id(lease.conn))
                in_use.add(id(lease.conn))
            time.sleep(0.0005)
            with lock:
                in_use.discard(id(lease.conn))
            pool.release(lease)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not clashes
    assert pool.stats(SLOT)[0] <= 3


# --- against PostgreSQL, MariaDB and SQLite -----------------------------------------------------
def call(ctx: ToolContext, **args: Any) -> Any:
    args.setdefault("connector", "Zeiterfassung")
    return dispatch("database", args, ctx)


def count(ctx: ToolContext) -> int:
    r = call(ctx, action="query", sql="SELECT COUNT(*) FROM zeiten")
    assert r.ok, r
    return int(r.output["rows"][0][0])


@pytest.mark.django_db
def test_repeated_calls_reuse_one_connection(connector: Connector, anna_ctx: ToolContext) -> None:
    POOL.clear()
    for _ in range(5):
        assert count(anna_ctx) == 300
    opened, idle = POOL.stats((str(connector.pk), True))
    assert (opened, idle) == (1, 1)


def _leak_state(connector: Connector) -> Any:
    """Leave session state on a pooled read connection, as a preflight bypass would."""
    with database.connect(connector, read_only=True) as conn:
        kind = connector.kind
        if kind == "postgres":
            conn.execute("COMMIT")
            conn.execute("SET default_transaction_read_only = off")
            conn.execute("SET statement_timeout = 0")
            conn.execute("CREATE TEMP TABLE zeiten (id INTEGER)")  # shadows the real table
            conn.execute("CREATE TEMP TABLE probe (id INTEGER)")
        elif kind == "mysql":
            conn.commit()
            cur = conn.cursor()
            cur.execute("SET @leak = 1")
            cur.execute("SET SESSION max_statement_time = 0")
            cur.execute("CREATE TEMPORARY TABLE zeiten (id INTEGER)")
        else:
            conn.commit()
            conn.execute("CREATE TEMP TABLE zeiten (id INTEGER)")
        return conn


@pytest.mark.django_db
def test_state_from_one_call_is_invisible_to_the_next(connector: Connector, anna_ctx: ToolContext) -> None:
    POOL.clear()
    assert count(anna_ctx) == 300
    leaked = _leak_state(connector)
    assert count(anna_ctx) == 300  # the real table again, not the empty temporary one
    with database.connect(connector, read_only=True) as conn:
        if connector.kind == "postgres":
            assert conn is leaked  # reset, not replaced
            assert conn.execute("SHOW default_transaction_read_only").fetchone()[0] == "on"
            assert conn.execute("SHOW statement_timeout").fetchone()[0] == "10s"
            assert conn.execute("SELECT to_regclass('pg_temp.probe')").fetchone()[0] is None
        elif connector.kind == "mysql":
            assert conn is leaked
            cur = conn.cursor()
            cur.execute("SELECT @leak, @@SESSION.max_statement_time = @@GLOBAL.max_statement_time")
            assert cur.fetchone() == (None, 1)
        else:  # SQLite cannot be reset: the connection was closed instead
            assert conn is not leaked
            assert conn.execute("SELECT COUNT(*) FROM temp.sqlite_master").fetchone()[0] == 0


@pytest.mark.django_db
def test_a_write_in_a_read_call_is_impossible(connector: Connector, anna_ctx: ToolContext) -> None:
    """Even a write that got past the preflight fails on a read connection."""
    write = "INSERT INTO mandanten (id, name) VALUES (99, 'Eingeschleust')"
    forged = Checked(verb="select", tables=("mandanten",), sql=write, placeholders=0)
    for _ in range(2):  # a fresh connection, then a reused one
        with pytest.raises(StatementFailed):
            database.execute(connector, forged, [])
    r = call(anna_ctx, action="query", sql="SELECT COUNT(*) FROM mandanten WHERE id = ?", params=[99])
    assert r.ok and r.output["rows"] == [[0]]


def _backend_id(connector: Connector) -> int:
    with database.connect(connector, read_only=True) as conn:
        cur = conn.cursor()
        cur.execute("SELECT pg_backend_pid()" if connector.kind == "postgres" else "SELECT CONNECTION_ID()")
        return int(cur.fetchone()[0])


@pytest.mark.django_db
@pytest.mark.parametrize("engine", ["postgres", "mysql"])
def test_a_killed_connection_is_dropped_and_the_call_retried(
    connector: Connector, anna_ctx: ToolContext, engine: str
) -> None:
    """The server ends the pooled session (as on a restart): the next call still answers. Only
    our own backend is terminated; the shared servers are never restarted."""
    POOL.clear()
    assert count(anna_ctx) == 300
    before = _backend_id(connector)
    assert count(anna_ctx) == 300  # the connection is idle in the pool now, and clean
    if engine == "postgres":
        import psycopg

        with psycopg.connect(dbname="postgres", autocommit=True, **PG) as admin:
            assert admin.execute("SELECT pg_terminate_backend(%s)", (before,)).fetchone()[0]
    else:
        import pymysql

        admin = pymysql.connect(autocommit=True, **MY)
        admin.cursor().execute(f"KILL CONNECTION {before}")
        admin.close()
    time.sleep(0.2)
    assert count(anna_ctx) == 300
    assert _backend_id(connector) != before
    assert POOL.stats((str(connector.pk), True))[0] == 1  # the dead one is no longer counted


@pytest.mark.django_db
@pytest.mark.parametrize("engine", ["postgres", "mysql"])
def test_failures_through_the_pool_never_name_the_secret(
    connector: Connector, anna_ctx: ToolContext, engine: str
) -> None:
    assert count(anna_ctx) == 300  # a pooled connection of the working configuration
    connector.password = "pw-" + SECRET
    connector.port = 1  # nothing listens there
    connector.save()
    r = call(anna_ctx, action="query", sql="SELECT COUNT(*) FROM zeiten")
    assert not r.ok and r.code == "connector_unreachable", r  # the old connection is not used
    dumped = json.dumps(r.as_dict())
    assert SECRET not in dumped and "127.0.0.1" not in dumped and "root" not in dumped


@pytest.mark.django_db
@pytest.mark.parametrize(
    "sql",
    [
        "CREATE TABLE neu (id INTEGER)",
        "CREATE TEMPORARY TABLE zeiten (id INTEGER)",
        "DROP TABLE geheim",
        "ALTER TABLE zeiten ADD COLUMN x INTEGER",
        "TRUNCATE TABLE zeiten",
        "TRUNCATE zeiten",
        "GRANT SELECT ON geheim TO PUBLIC",
        "REVOKE ALL ON zeiten FROM PUBLIC",
    ],
)
def test_ddl_and_grants_are_refused(connector: Connector, anna_ctx: ToolContext, sql: str) -> None:
    r = call(anna_ctx, action="query", sql=sql)
    assert not r.ok and r.code == "statement_not_allowed", r
    verb = sql.split()[0].upper()
    assert verb in r.message and "SELECT, INSERT, UPDATE" in r.message
    assert count(anna_ctx) == 300


@pytest.mark.django_db
@pytest.mark.parametrize("engine", ["postgres", "mysql"])
def test_idle_pooled_connections_hold_no_transaction(
    connector: Connector, anna_ctx: ToolContext, engine: str
) -> None:
    """An idle connection in an open transaction would pin a snapshot (stale reads) and block
    the office's own schema changes."""
    from apps.connectors import sqlguard

    POOL.clear()
    assert count(anna_ctx) == 300
    write = sqlguard.check("INSERT INTO mandanten (id, name) VALUES (?, ?)", engine, ["mandanten"], "")
    database.execute(connector, write, [77, "Neu GmbH"])
    r = call(anna_ctx, action="query", sql="SELECT name FROM mandanten WHERE id = ?", params=[77])
    assert r.output["rows"] == [["Neu GmbH"]]  # a write is seen by the next read at once
    database.execute(
        connector, sqlguard.check("DELETE FROM mandanten WHERE id = ?", engine, ["mandanten"]), [77]
    )
    assert count(anna_ctx) == 300
    assert call(anna_ctx, action="describe", table="mandanten").ok
    assert not call(anna_ctx, action="query", sql="SELECT nope FROM zeiten").ok
    assert count(anna_ctx) == 300
    if engine == "postgres":
        import psycopg

        with psycopg.connect(dbname="postgres", autocommit=True, **PG) as admin:
            busy = admin.execute(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = %s AND state <> 'idle'",
                (connector.database,),
            ).fetchone()[0]
    else:
        import pymysql

        admin = pymysql.connect(autocommit=True, **MY)
        cur = admin.cursor()
        cur.execute(
            "SELECT COUNT(*) FROM information_schema.innodb_trx t JOIN information_schema.processlist p "
            "ON p.id = t.trx_mysql_thread_id WHERE p.db = %s",
            (connector.database,),
        )
        busy = cur.fetchone()[0]
        admin.close()
    assert busy == 0
    assert POOL.stats((str(connector.pk), True))[1] >= 1  # and the connections were kept


@pytest.mark.django_db
def test_a_cached_statement_still_meets_the_current_allowed_tables(
    connector: Connector, anna_ctx: ToolContext
) -> None:
    sql = "SELECT name FROM mandanten WHERE id = ?"
    assert call(anna_ctx, action="query", sql=sql, params=[1]).ok  # parsed and cached
    Connector.objects.filter(pk=connector.pk).update(allowed_tables=["zeiten"])
    r = call(anna_ctx, action="query", sql=sql, params=[1])
    assert not r.ok and r.code == "table_not_allowed", r
