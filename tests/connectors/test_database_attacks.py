"""The attack suite: statements that try to reach tables outside the allowed list or the
server's files, each sent through the real dispatcher to real PostgreSQL, MariaDB and SQLite.
Every one must fail preflight; none may answer a row of `geheim`, a file or a catalog."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from apps.accounts.principal import Principal
from apps.connectors.models import Connector
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.connectors.conftest import SECRET

pytestmark = pytest.mark.django_db

PREFLIGHT = {"table_not_allowed", "statement_not_allowed", "statement_unparsable"}

ATTACKS = [
    # stacked statements
    "SELECT * FROM zeiten; SELECT * FROM geheim",
    "SELECT * FROM zeiten;SELECT wert FROM geheim;",
    "SELECT 1; DROP TABLE zeiten",
    # comments and version comments
    "SELECT * FROM zeiten /*! UNION SELECT id, wert, 1 FROM geheim */",
    "SELECT * FROM zeiten /*!50000 UNION SELECT id, wert, 1 FROM geheim */",
    "SELECT * FROM zeiten /*M! UNION SELECT id, wert, 1 FROM geheim */",
    "SELECT * FROM zeiten -- \n UNION SELECT id, wert, 1 FROM geheim",
    "SELECT * FROM zeiten # x\n UNION SELECT id, wert, 1 FROM geheim",
    "SELECT * FROM/**/geheim",
    "SELECT /*+ anything */ * FROM geheim",
    # set operations, subqueries, CTEs, joins
    "SELECT id, mandant, stunden FROM zeiten UNION SELECT id, wert, 1 FROM geheim",
    "SELECT id, mandant, stunden FROM zeiten UNION ALL SELECT id, wert, id FROM geheim",
    "SELECT id FROM zeiten INTERSECT SELECT id FROM geheim",
    "SELECT id FROM zeiten EXCEPT SELECT id FROM geheim",
    "SELECT * FROM zeiten WHERE mandant IN (SELECT wert FROM geheim)",
    "SELECT (SELECT wert FROM geheim LIMIT 1) AS x FROM zeiten",
    "SELECT * FROM zeiten WHERE EXISTS (SELECT 1 FROM geheim)",
    "SELECT * FROM (SELECT * FROM geheim) AS zeiten",
    "SELECT z.* FROM zeiten z JOIN geheim g ON g.id = z.id",
    "SELECT * FROM zeiten, geheim",
    "WITH x AS (SELECT * FROM geheim) SELECT * FROM x",
    "WITH geheim AS (SELECT * FROM geheim) SELECT * FROM geheim",
    "WITH RECURSIVE r AS (SELECT wert FROM geheim) SELECT * FROM r",
    "SELECT * FROM (WITH geheim AS (SELECT 1 AS a) SELECT * FROM geheim) q, geheim",
    "WITH zeiten AS (SELECT wert FROM geheim) SELECT * FROM zeiten",
    "WITH a AS (SELECT * FROM b), b AS (SELECT * FROM geheim) SELECT * FROM a",
    "TABLE geheim",
    # writes reaching foreign tables
    "INSERT INTO zeiten (id, mandant, stunden) SELECT id + 1000, wert, 1 FROM geheim",
    "UPDATE zeiten SET mandant = (SELECT wert FROM geheim LIMIT 1)",
    "DELETE FROM geheim",
    "WITH d AS (DELETE FROM zeiten RETURNING *) SELECT * FROM d",
    # catalogs
    "SELECT * FROM information_schema.tables",
    "SELECT table_name FROM information_schema.columns",
    "SELECT * FROM pg_catalog.pg_tables",
    "SELECT * FROM pg_shadow",
    "SELECT * FROM sqlite_master",
    "SELECT sql FROM sqlite_schema",
    "SELECT * FROM mysql.user",
    # schema-qualified, quoted, case and unicode variants
    'SELECT * FROM "geheim"',
    "SELECT * FROM `geheim`",
    "SELECT * FROM [geheim]",
    "SELECT * FROM public.geheim",
    'SELECT * FROM "public"."geheim"',
    'SELECT * FROM "GEHEIM"',
    "SELECT @@datadir",
    "SELECT @@version",
    "SELECT @x := (SELECT wert FROM geheim LIMIT 1)",
    "SELECT * FROM zeiten WHERE id = @x",
    "SELECT * FROM GEHEIM",
    "SELECT * FROM zеiten",  # Cyrillic е
    "SELECT * FROM ｚeiten",  # fullwidth z
    "SELECT * FROM zeiten\u200b",  # zero-width space
    "SELECT * FROM other_db.zeiten",
    "SELECT * FROM main.geheim",
    # file and server functions
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT * FROM pg_read_file('/etc/passwd')",
    "SELECT pg_ls_dir('.')",
    "SELECT lo_import('/etc/passwd')",
    "SELECT load_file('/etc/passwd')",
    "SELECT LOAD_FILE(0x2f6574632f706173737764)",
    "SELECT query_to_xml('select * from geheim', true, true, '')",
    "SELECT readfile('/etc/passwd')",
    "SELECT load_extension('/tmp/x')",
    "SELECT * FROM zeiten WHERE pg_sleep(5) IS NULL",
    "SELECT sleep(5)",
    "SELECT current_setting('data_directory')",
    "SELECT version()",
    "SELECT * FROM zeiten INTO OUTFILE '/tmp/c1_out'",
    "SELECT * INTO geheim2 FROM zeiten",
    # commands
    "PRAGMA table_info(geheim)",
    "ATTACH DATABASE '/etc/passwd' AS x",
    "COPY zeiten TO '/tmp/c1_out'",
    "COPY (SELECT * FROM geheim) TO STDOUT",
    "LOAD DATA INFILE '/etc/passwd' INTO TABLE zeiten",
    "LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE zeiten",
    "SET search_path TO evil",
    "SHOW TABLES",
    "EXPLAIN SELECT * FROM geheim",
    "CREATE TABLE x AS SELECT * FROM geheim",
    "DROP TABLE geheim",
    "ALTER TABLE zeiten RENAME TO x",
    "TRUNCATE zeiten",
    "CALL evil()",
    "DO $$ BEGIN PERFORM 1; END $$",
    "PREPARE p AS SELECT * FROM geheim",
    "GRANT ALL ON zeiten TO public",
    "HANDLER geheim OPEN",
    "SELECT * FROM zeiten WHERE id = '\\' UNION SELECT id, wert, 1 FROM geheim -- '",
    "SELECT * FROM zeiten WHERE id = $1",
    "SELECT * FROM zeiten WHERE mandant = :name",
    "SELECT * FROM zeiten\x00; SELECT * FROM geheim",
    "",
]


def test_the_suite_is_large_enough() -> None:
    assert len(ATTACKS) >= 40


def test_zero_escapes(connector: Connector, anna: Any) -> None:
    # Even a call a person has approved goes through the preflight first.
    ctx = replace(ToolContext(principal=Principal.for_user(anna)), approved=True)
    escapes = []
    for sql in ATTACKS:
        result = dispatch("database", {"connector": "Zeiterfassung", "action": "query", "sql": sql}, ctx)
        text = json.dumps(result.as_dict(), ensure_ascii=False)
        if result.ok or result.code not in PREFLIGHT or SECRET in text or "root:" in text:
            escapes.append((sql, result.code, text[:120]))
    assert escapes == []
    # nothing was written or dropped on the way
    ok = dispatch(
        "database",
        {"connector": "Zeiterfassung", "action": "query", "sql": "SELECT COUNT(*) FROM zeiten"},
        ctx,
    )
    assert ok.output["rows"] == [[300]]


@pytest.mark.parametrize(
    "field,value",
    [
        ("table", "geheim"),
        ("table", "public.geheim"),
        ("table", 'zeiten" (id) SELECT 1 FROM geheim --'),
        ("columns", ["id) SELECT id FROM geheim --"]),
    ],
)
def test_structured_writes_cannot_escape(connector: Connector, anna: Any, field: str, value: Any) -> None:
    ctx = replace(ToolContext(principal=Principal.for_user(anna)), approved=True)
    args: dict[str, Any] = {
        "connector": "Zeiterfassung",
        "action": "insert",
        "table": "zeiten",
        "columns": ["id"],
        "values": [[999]],
    }
    args[field] = value
    result = dispatch("database", args, ctx)
    assert not result.ok
    assert result.code in PREFLIGHT | {"statement_failed"}
    assert SECRET not in json.dumps(result.as_dict())
