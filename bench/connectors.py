"""The Database tool's cost (#26): what a `query` adds over the raw driver call for a 100-row
select, on PostgreSQL, MariaDB (both on this machine) and an SQLite file, and parse + preflight
time per statement.

    .venv/bin/python bench/connectors.py            # 300 rounds per figure
    .venv/bin/python bench/connectors.py --tiny     # 20 rounds, for CI (target not enforced)

The three are timed round-robin. "raw" is the driver alone on an open connection: execute + fetchall. "tool" is the tool's path
below the dispatcher (`tools.checked_call`: the approval verb, sqlglot preflight, allowed-table
check; `database.execute`: a pooled connection reset and put into a read-only transaction with a
statement timeout, capped fetch, rollback, state check). A statement the tool has seen before is
parsed once per process; "new" clears that cache before every call. The target is <= 2 ms added
at p50 for a repeated statement: the script exits 1 when an engine misses it.
"""

from __future__ import annotations

import argparse
import secrets
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _setup  # noqa: F401  (paths, settings module)

TARGET_MS = 2.0
SQL = "SELECT id, mandant, stunden FROM zeiten WHERE stunden >= ? ORDER BY id LIMIT 100"
STATEMENTS = [
    SQL,
    "SELECT z.id, m.name FROM zeiten z JOIN mandanten m ON m.name = z.mandant WHERE z.id < ?",
    "WITH s AS (SELECT mandant, SUM(stunden) AS h FROM zeiten GROUP BY mandant) SELECT * FROM s WHERE h > ?",
    "SELECT id FROM zeiten UNION SELECT id FROM mandanten",
    "INSERT INTO zeiten (id, mandant, stunden) VALUES (?, ?, ?)",
    "UPDATE zeiten SET stunden = ? WHERE id = ?",
]
PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres"}
MY = {"host": "127.0.0.1", "port": 3306, "user": "root", "password": ""}


def timed(fn: Callable[[], object], rounds: int) -> list[float]:
    for _ in range(min(10, rounds)):
        fn()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return samples


def interleaved(fns: list[Callable[[], object]], rounds: int) -> list[list[float]]:
    """Time several calls round-robin (order rotating), so that a busy machine slows all of them
    alike instead of whichever happened to run during the busy second."""
    for fn in fns:
        for _ in range(min(10, rounds)):
            fn()
    samples: list[list[float]] = [[] for _ in fns]
    for i in range(rounds):
        for k in range(len(fns)):
            j = (i + k) % len(fns)
            t0 = time.perf_counter()
            fns[j]()
            samples[j].append((time.perf_counter() - t0) * 1000)
    return samples


def p50(samples: list[float]) -> float:
    return statistics.median(samples)


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100)[94] if len(samples) > 1 else samples[0]


def fill(conn: Any, placeholder: str) -> None:
    cur = conn.cursor()
    cur.execute("CREATE TABLE zeiten (id INTEGER PRIMARY KEY, mandant VARCHAR(100), stunden INTEGER)")
    cur.execute("CREATE TABLE mandanten (id INTEGER PRIMARY KEY, name VARCHAR(100))")
    rows = [(i, f"Mandant {i % 20}", i % 8) for i in range(1, 2001)]
    cur.executemany(f"INSERT INTO zeiten VALUES ({placeholder}, {placeholder}, {placeholder})", rows)
    conn.commit()


class Engine:
    def __init__(self, kind: str, connector: Any, raw: Callable[[], object], connect: Callable[[], object]):
        self.kind, self.connector, self.raw, self.connect = kind, connector, raw, connect


def postgres(name: str, cleanup: list[Callable[[], None]]) -> Engine:
    import psycopg

    from apps.connectors.models import Connector

    admin = psycopg.connect(dbname="postgres", autocommit=True, connect_timeout=3, **PG)
    admin.execute(f'CREATE DATABASE "{name}"')
    cleanup.append(lambda: admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    with psycopg.connect(dbname=name, **PG) as c:
        fill(c, "%s")
    conn = psycopg.connect(dbname=name, autocommit=True, **PG)
    cleanup.insert(0, conn.close)
    sql = SQL.replace("?", "%s")
    connector = Connector(
        tool="database",
        name="bench",
        kind="postgres",
        host=PG["host"],
        port=PG["port"],
        username=PG["user"],
        database=name,
        allowed_tables=["zeiten", "mandanten"],
        max_rows=200,
    )
    return Engine(
        "postgres",
        connector,
        lambda: conn.execute(sql, (0,)).fetchall(),
        lambda: psycopg.connect(dbname=name, **PG).close(),
    )


def mariadb(name: str, cleanup: list[Callable[[], None]]) -> Engine:
    import pymysql

    from apps.connectors.models import Connector

    admin = pymysql.connect(autocommit=True, connect_timeout=3, **MY)
    admin.cursor().execute(f"CREATE DATABASE `{name}`")
    cleanup.append(lambda: admin.cursor().execute(f"DROP DATABASE IF EXISTS `{name}`"))
    c = pymysql.connect(database=name, **MY)
    fill(c, "%s")
    c.close()
    conn = pymysql.connect(database=name, autocommit=True, charset="utf8mb4", **MY)
    cleanup.insert(0, conn.close)
    sql = SQL.replace("?", "%s")

    def raw() -> object:
        cur = conn.cursor()
        cur.execute(sql, (0,))
        return cur.fetchall()

    connector = Connector(
        tool="database",
        name="bench",
        kind="mysql",
        host=MY["host"],
        port=MY["port"],
        username=MY["user"],
        password=MY["password"],
        database=name,
        allowed_tables=["zeiten", "mandanten"],
        max_rows=200,
    )
    return Engine("mysql", connector, raw, lambda: pymysql.connect(database=name, **MY).close())


def sqlite_file(cleanup: list[Callable[[], None]]) -> Engine:
    from apps.connectors.models import Connector

    path = Path(tempfile.mkdtemp()) / "bench.sqlite3"
    c = sqlite3.connect(path)
    fill(c, "?")
    c.close()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    cleanup.insert(0, conn.close)
    connector = Connector(
        tool="database",
        name="bench",
        kind="sqlite",
        path=str(path),
        allowed_tables=["zeiten", "mandanten"],
        max_rows=200,
    )
    return Engine(
        "sqlite",
        connector,
        lambda: conn.execute(SQL, (0,)).fetchall(),
        lambda: sqlite3.connect(f"file:{path}?mode=ro", uri=True).close(),
    )


def preflight_figures(rounds: int) -> None:
    from apps.connectors import sqlguard

    print("parse + preflight per statement, p50 / p95 ms (new: parsed; cached: allowed-table check only):")
    for kind in ("postgres", "mysql", "sqlite"):
        dialect = sqlguard.dialect_of(kind)
        sqlguard.parse_checked(SQL, dialect)  # the dialect's modules load once per process
        for sql in STATEMENTS:

            def new(sql: str = sql, dialect: str = dialect) -> object:
                sqlguard.parse_checked.cache_clear()
                sqlguard.operation_of_sql.cache_clear()
                sqlguard.operation_of_sql(sql)
                return sqlguard.check(sql, dialect, ("mandanten", "zeiten"))

            n = timed(new, rounds)
            c = timed(lambda sql=sql, d=dialect: sqlguard.check(sql, d, ("mandanten", "zeiten")), rounds)
            print(
                f"  {kind:8} new {p50(n):6.3f} / {p95(n):6.3f}   cached {p50(c):6.3f} / {p95(c):6.3f}   {sql[:56]}"
            )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument(
        "--tiny", action="store_true", help="20 rounds: proves the bench runs (CI), enforces nothing"
    )
    opts = parser.parse_args()
    rounds = 20 if opts.tiny else opts.rounds
    import django

    django.setup()
    from apps.connectors import database, sqlguard, tools
    from apps.connectors.pool import POOL

    preflight_figures(5 if opts.tiny else rounds)
    name = f"c1_bench_{secrets.token_hex(4)}"
    cleanup: list[Callable[[], None]] = []
    engines: list[Engine] = []
    for label, make in (("PostgreSQL", postgres), ("MariaDB", mariadb)):
        try:
            engines.append(make(name, cleanup))
        except Exception as exc:
            print(f"{label} skipped (not reachable on 127.0.0.1: {type(exc).__name__})")
    engines.append(sqlite_file(cleanup))
    args = tools.DatabaseArgs(connector="bench", action="query", sql=SQL, params=[0])

    def tool(connector: Any, *, new: bool) -> object:
        if new:  # a statement the process has not seen: parsed and checked anew
            sqlguard.parse_checked.cache_clear()
            sqlguard.operation_of_sql.cache_clear()
        checked, params = tools.checked_call(args, connector)
        result = database.execute(connector, checked, params)
        assert len(result.rows) == 100
        return result

    print(f"\n100-row select, {rounds} rounds, p50 / p95 ms (raw: the driver on an open connection):")
    missed = []
    try:
        for e in engines:
            connect = timed(e.connect, max(5, rounds // 10))
            r, t, f = interleaved(
                [e.raw, lambda e=e: tool(e.connector, new=False), lambda e=e: tool(e.connector, new=True)],
                rounds,
            )
            added, added_new = p50(t) - p50(r), p50(f) - p50(r)
            print(
                f"  {e.kind:8} raw {p50(r):6.3f} / {p95(r):6.3f}   tool {p50(t):6.3f} / {p95(t):6.3f}   "
                f"added {added:+.3f} ms repeated, {added_new:+.3f} ms new statement   "
                f"(a new connection would cost {p50(connect):.3f} ms)"
            )
            if added > TARGET_MS:
                missed.append(e.kind)
    finally:
        POOL.clear()
        for fn in cleanup:
            fn()
    if missed:
        print(f"\nMISSED: more than {TARGET_MS} ms added for a repeated statement on {', '.join(missed)}")
        if opts.tiny:  # 20 rounds measure nothing: the tiny run proves the bench runs, not the figure
            print("(--tiny: not enforced)")
            return 0
        return 1
    print(f"\nOK: at most {TARGET_MS} ms added for a repeated statement on every engine measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
