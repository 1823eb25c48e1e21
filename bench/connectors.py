"""The Database tool's cost (#26): what a `query` adds over the raw driver call for a 100-row
select, and parse + preflight time per statement.

    .venv/bin/python bench/connectors.py               # PostgreSQL, MariaDB (on this machine), SQLite
    .venv/bin/python bench/connectors.py --rounds 500

Both sides of the comparison open a fresh connection per call, as the tool does (one connection
per call, no pool): "raw" is connect + execute + fetchall + close with the driver alone; "tool" is
the tool's path below the dispatcher (sqlglot parse and preflight, SQL regenerated from the tree,
read-only transaction, statement timeout, capped fetch). A checked statement is cached per text and
configuration, so the tool is timed twice: a repeated statement, and a new one (cache cleared).
Target: <= 2 ms added at p50.
"""

from __future__ import annotations

import argparse
import secrets
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import _setup  # noqa: F401  (paths, settings module)

SQL = "SELECT id, mandant, stunden FROM zeiten WHERE stunden >= ? ORDER BY id LIMIT 100"
STATEMENTS = [
    SQL,
    "SELECT z.id, m.name FROM zeiten z JOIN mandanten m ON m.name = z.mandant WHERE z.id < ?",
    "WITH s AS (SELECT mandant, SUM(stunden) AS h FROM zeiten GROUP BY mandant) SELECT * FROM s WHERE h > ?",
    "SELECT id FROM zeiten UNION SELECT id FROM mandanten",
    "INSERT INTO zeiten (id, mandant, stunden) VALUES (?, ?, ?)",
    "UPDATE zeiten SET stunden = ? WHERE id = ?",
]


def timed(fn: Callable[[], object], rounds: int) -> list[float]:
    for _ in range(5):
        fn()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return samples


def p(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100)[q - 1] if len(samples) > 1 else samples[0]


def fill(conn, placeholder: str) -> None:
    cur = conn.cursor()
    cur.execute("CREATE TABLE zeiten (id INTEGER PRIMARY KEY, mandant VARCHAR(100), stunden INTEGER)")
    cur.execute("CREATE TABLE mandanten (id INTEGER PRIMARY KEY, name VARCHAR(100))")
    rows = [(i, f"Mandant {i % 20}", i % 8) for i in range(1, 2001)]
    cur.executemany(f"INSERT INTO zeiten VALUES ({placeholder}, {placeholder}, {placeholder})", rows)
    conn.commit()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=300)
    opts = parser.parse_args()
    import django

    django.setup()
    from apps.connectors import database, sqlguard
    from apps.connectors.models import Connector

    print("parse + preflight per statement (sqlglot), p50 / p95 ms:")
    for kind in ("postgres", "mysql", "sqlite"):
        dialect = sqlguard.dialect_of(kind)
        uncached = sqlguard._checked.__wrapped__  # the parse itself, not the cache in front of it
        for sql in STATEMENTS:
            s = timed(
                lambda sql=sql, d=dialect, f=uncached: f(sql, d, ("mandanten", "zeiten"), ""), opts.rounds
            )
            print(f"  {kind:8} {statistics.median(s):7.3f} / {p(s, 95):7.3f}   {sql[:60]}")

    name = f"c1_bench_{secrets.token_hex(4)}"
    engines: list[tuple[str, Connector, Callable[[], object]]] = []
    cleanup: list[Callable[[], None]] = []
    try:
        import psycopg

        admin = psycopg.connect(host="127.0.0.1", user="postgres", dbname="postgres", autocommit=True)
        admin.execute(f'CREATE DATABASE "{name}"')
        cleanup.append(lambda: admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        with psycopg.connect(host="127.0.0.1", user="postgres", dbname=name) as c:
            fill(c, "%s")

        def raw_pg() -> object:
            with psycopg.connect(host="127.0.0.1", user="postgres", dbname=name) as c:
                return c.execute(SQL.replace("?", "%s"), (0,)).fetchall()

        pg = Connector(
            tool="database",
            name="bench",
            kind="postgres",
            host="127.0.0.1",
            port=5432,
            username="postgres",
            database=name,
            allowed_tables=["zeiten", "mandanten"],
            max_rows=200,
        )
        engines.append(("postgres", pg, raw_pg))
    except Exception as exc:
        print(f"PostgreSQL skipped: {type(exc).__name__}")
    try:
        import pymysql

        my_admin = pymysql.connect(host="127.0.0.1", user="root", password="", autocommit=True)
        my_admin.cursor().execute(f"CREATE DATABASE `{name}`")
        cleanup.append(lambda: my_admin.cursor().execute(f"DROP DATABASE IF EXISTS `{name}`"))
        c = pymysql.connect(host="127.0.0.1", user="root", password="", database=name)
        fill(c, "%s")
        c.close()

        def raw_my() -> object:
            c = pymysql.connect(host="127.0.0.1", user="root", password="", database=name)
            try:
                cur = c.cursor()
                cur.execute(SQL.replace("?", "%s"), (0,))
                return cur.fetchall()
            finally:
                c.close()

        my = Connector(
            tool="database",
            name="bench",
            kind="mysql",
            host="127.0.0.1",
            port=3306,
            username="root",
            password="",
            database=name,
            allowed_tables=["zeiten", "mandanten"],
            max_rows=200,
        )
        engines.append(("mysql", my, raw_my))
    except Exception as exc:
        print(f"MariaDB skipped: {type(exc).__name__}")
    path = Path(tempfile.mkdtemp()) / "bench.sqlite3"
    c3 = sqlite3.connect(path)
    fill(c3, "?")
    c3.close()

    def raw_sqlite() -> object:
        c = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return c.execute(SQL, (0,)).fetchall()
        finally:
            c.close()

    lite = Connector(
        tool="database",
        name="bench",
        kind="sqlite",
        path=str(path),
        allowed_tables=["zeiten", "mandanten"],
        max_rows=200,
    )
    engines.append(("sqlite", lite, raw_sqlite))

    print(f"\n100-row select, {opts.rounds} rounds, p50 / p95 ms (fresh connection per call on both sides):")
    try:
        for kind, connector, raw in engines:
            dialect = sqlguard.dialect_of(kind)

            def tool(connector=connector, dialect=dialect, fresh=False) -> object:
                if fresh:  # a statement the tool has not seen yet: parsed and checked anew
                    sqlguard._checked.cache_clear()
                checked = sqlguard.check(SQL, dialect, database.allowed_tables(connector), connector.database)
                result = database.execute(connector, checked, [0])
                assert len(result.rows) == 100
                return result

            r = timed(raw, opts.rounds)
            t = timed(tool, opts.rounds)
            f = timed(lambda tool=tool: tool(fresh=True), opts.rounds)
            added = statistics.median(t) - statistics.median(r)
            added_fresh = statistics.median(f) - statistics.median(r)
            print(
                f"  {kind:8} raw {statistics.median(r):7.3f} / {p(r, 95):7.3f}   tool {statistics.median(t):7.3f} / "
                f"{p(t, 95):7.3f}   added {added:+.3f} ms repeated, {added_fresh:+.3f} ms new statement "
                "(target <= 2 ms)"
            )
    finally:
        for fn in cleanup:
            fn()


if __name__ == "__main__":
    main()
