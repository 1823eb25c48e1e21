"""Real foreign databases for the connector tests: a fresh database on the machine's PostgreSQL
and MariaDB per test session, and an SQLite file. Each holds the allowed tables `zeiten` and
`mandanten` and a table `geheim` that no call may ever read."""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from apps.accounts.principal import Principal
from apps.connectors.models import Connector
from apps.connectors.pool import POOL
from apps.tools.context import ToolContext

SECRET = "TOPSECRET-7f3a"
PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres"}
MY = {"host": "127.0.0.1", "port": 3306, "user": "root", "password": ""}

SCHEMA = [
    "CREATE TABLE zeiten (id INTEGER PRIMARY KEY, mandant VARCHAR(100), stunden INTEGER)",
    "CREATE TABLE mandanten (id INTEGER PRIMARY KEY, name VARCHAR(100))",
    "CREATE TABLE geheim (id INTEGER PRIMARY KEY, wert VARCHAR(100))",
    "INSERT INTO mandanten (id, name) VALUES (1, 'Müller GmbH'), (2, 'Rossi S.r.l.')",
    f"INSERT INTO geheim (id, wert) VALUES (1, '{SECRET}')",
] + [f"INSERT INTO zeiten (id, mandant, stunden) VALUES ({i}, 'Müller GmbH', {i % 8})" for i in range(1, 301)]


def _fill(conn: Any) -> None:
    cur = conn.cursor()
    for statement in SCHEMA:
        cur.execute(statement)
    conn.commit()


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    psycopg = pytest.importorskip("psycopg")
    name = f"c1_conn_{secrets.token_hex(4)}"
    try:
        admin = psycopg.connect(dbname="postgres", autocommit=True, connect_timeout=3, **PG)
    except psycopg.OperationalError:
        pytest.fail(
            "PostgreSQL on 127.0.0.1:5432 is not reachable: the attack suite needs a real server (.ci/run starts it)"
        )
    admin.execute(f'CREATE DATABASE "{name}"')
    with psycopg.connect(dbname=name, **PG) as conn:
        _fill(conn)
    yield name
    POOL.clear()
    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.close()


@pytest.fixture(scope="session")
def my_database() -> Iterator[str]:
    pymysql = pytest.importorskip("pymysql")
    name = f"c1_conn_{secrets.token_hex(4)}"
    try:
        admin = pymysql.connect(connect_timeout=3, autocommit=True, **MY)
    except pymysql.err.OperationalError:
        pytest.fail(
            "MariaDB on 127.0.0.1:3306 is not reachable: the attack suite needs a real server (.ci/run starts it)"
        )
    admin.cursor().execute(f"CREATE DATABASE `{name}`")
    conn = pymysql.connect(database=name, **MY)
    _fill(conn)
    conn.close()
    yield name
    POOL.clear()  # an idle connection must not hold the drop up
    admin.cursor().execute("SET SESSION lock_wait_timeout = 30")
    admin.cursor().execute(f"DROP DATABASE IF EXISTS `{name}`")
    admin.close()


@pytest.fixture(scope="session")
def sqlite_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("c1sqlite") / "zeiten.sqlite3"
    conn = sqlite3.connect(path)
    _fill(conn)
    conn.close()
    return str(path)


def make_connector(kind: str, database: str, **extra: Any) -> Connector:
    values: dict[str, Any] = {
        "tool": Connector.Tool.DATABASE,
        "name": "Zeiterfassung",
        "kind": kind,
        "allowed_tables": ["zeiten", "mandanten"],
        "max_rows": 100,
    }
    if kind == "postgres":
        values.update(host=PG["host"], port=PG["port"], username=PG["user"], database=database)
    elif kind == "mysql":
        values.update(host=MY["host"], port=MY["port"], username=MY["user"], password="", database=database)
    else:
        values.update(path=database)
    values.update(extra)
    return Connector.objects.create(**values)


@pytest.fixture(params=["postgres", "mysql", "sqlite"])
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def connector(db: Any, engine: str, request: pytest.FixtureRequest, anna: Any) -> Connector:
    from guardian.shortcuts import assign_perm

    source = {"postgres": "pg_database", "mysql": "my_database", "sqlite": "sqlite_file"}[engine]
    c = make_connector(engine, request.getfixturevalue(source))
    assign_perm("connectors.use_connector", anna, c)
    return c


@pytest.fixture
def anna_ctx(anna: Any) -> ToolContext:
    return ToolContext(principal=Principal.for_user(anna))
