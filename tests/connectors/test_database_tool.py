"""The Database tool against real PostgreSQL, MariaDB and SQLite: success, bad input,
permission, caps, schema answers, staging of writes, no secret in any answer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from apps.accounts.principal import Principal
from apps.connectors.models import Connector
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.connectors.conftest import SECRET

pytestmark = pytest.mark.django_db


def call(ctx: ToolContext, **args: Any) -> Any:
    args.setdefault("connector", "Zeiterfassung")
    return dispatch("database", args, ctx)


def test_query_returns_rows_with_params(connector: Connector, anna_ctx: ToolContext) -> None:
    r = call(anna_ctx, action="query", sql="SELECT id, name FROM mandanten WHERE id = ?", params=[2])
    assert r.ok, r
    assert r.output["columns"] == ["id", "name"]
    assert r.output["rows"] == [[2, "Rossi S.r.l."]]
    assert anna_ctx.foreign.seen  # rows from outside are foreign content


def test_result_is_capped_with_a_notice(connector: Connector, anna_ctx: ToolContext) -> None:
    r = call(anna_ctx, action="query", sql="SELECT * FROM zeiten ORDER BY id")
    assert r.ok
    assert len(r.output["rows"]) == 100
    assert r.output["truncated"] is True
    assert r.output["notice"]["code"] == "result_truncated"


def test_tables_and_describe(connector: Connector, anna_ctx: ToolContext) -> None:
    Connector.objects.filter(pk=connector.pk).update(allowed_tables=["zeiten", "mandanten", "fehlt"])
    r = call(anna_ctx, action="tables")
    assert r.ok, r
    assert {t["name"]: t["exists"] for t in r.output["tables"]} == {
        "zeiten": True,
        "mandanten": True,
        "fehlt": False,
    }
    d = call(anna_ctx, action="describe", table="zeiten")
    assert d.ok and d.output["columns"] == ["id", "mandant", "stunden"]
    refused = call(anna_ctx, action="describe", table="geheim")
    assert not refused.ok and refused.code == "table_not_allowed"


def test_unknown_column_names_what_exists(connector: Connector, anna_ctx: ToolContext) -> None:
    r = call(anna_ctx, action="query", sql="SELECT nichtda FROM zeiten")
    assert not r.ok and r.code == "statement_failed"
    assert "mandant" in r.message and "stunden" in r.message
    assert "geheim" not in json.dumps(r.as_dict())


def test_writes_are_staged_not_run(connector: Connector, anna_ctx: ToolContext) -> None:
    r = call(anna_ctx, action="insert", table="mandanten", columns=["id", "name"], values=[[3, "Neu"]])
    assert not r.ok and r.code == "approval_required", r
    assert r.output["operation"] == "insert"
    q = call(anna_ctx, action="query", sql="SELECT COUNT(*) FROM mandanten WHERE id = ?", params=[3])
    assert q.output["rows"] == [[0]]


def test_approved_insert_and_upsert_run(connector: Connector, anna: Any) -> None:
    from dataclasses import replace

    ctx = replace(ToolContext(principal=Principal.for_user(anna)), approved=True)
    r = call(ctx, action="insert", table="mandanten", columns=["id", "name"], values=[[10, "Neu"]])
    assert r.ok, r
    assert r.output["row_count"] == 1
    u = call(
        ctx,
        action="upsert",
        table="mandanten",
        columns=["id", "name"],
        values=[[10, "Neuer"]],
        key_columns=["id"],
    )
    assert u.ok, u
    q = call(ctx, action="query", sql="SELECT name FROM mandanten WHERE id = ?", params=[10])
    assert q.output["rows"] == [["Neuer"]]
    d = call(ctx, action="query", sql="DELETE FROM mandanten WHERE id = ?", params=[10])
    assert d.ok, d


def test_read_runs_read_only(connector: Connector, anna: Any) -> None:
    """Even a person's approval cannot turn a read into a write: SELECT runs in a read-only
    transaction (a function call with side effects is refused before that anyway)."""
    from dataclasses import replace

    ctx = replace(ToolContext(principal=Principal.for_user(anna)), approved=True)
    r = call(ctx, action="query", sql="SELECT * FROM zeiten FOR UPDATE")
    assert not (r.ok and connector.kind == "postgres")


def test_other_person_and_other_agent_cannot_use_it(connector: Connector, ben: Any, anna: Any) -> None:
    r = call(ToolContext(principal=Principal.for_user(ben)), action="tables")
    assert not r.ok and r.code == "connector_not_found"
    r = call(ToolContext(principal=Principal.for_user(anna), specialist_id="7"), action="tables")
    assert not r.ok and r.code == "connector_not_found"


def test_bad_input(connector: Connector, anna_ctx: ToolContext) -> None:
    r = call(anna_ctx, action="query", sql="SELECT * FROM zeiten WHERE id = ?", params=[])
    assert not r.ok and r.code == "statement_unparsable"
    r = call(anna_ctx, action="drop")
    assert not r.ok and r.code == "invalid_arguments"


def test_unreachable_names_no_credentials(db: Any, anna: Any, anna_ctx: ToolContext) -> None:
    from guardian.shortcuts import assign_perm

    from tests.connectors.conftest import make_connector

    c = make_connector(
        "postgres", "nope", host="127.0.0.1", port=1, username="geheimuser", password="s3cr3t-pw"
    )
    assign_perm("connectors.use_connector", anna, c)
    r = call(anna_ctx, action="query", sql="SELECT * FROM zeiten")
    assert not r.ok and r.code == "connector_unreachable"
    text = json.dumps(r.as_dict())
    for leaked in ("s3cr3t-pw", "geheimuser", "127.0.0.1", "port=1"):
        assert leaked not in text


def test_password_is_encrypted_at_rest(db: Any) -> None:
    from django.db import connection

    from tests.connectors.conftest import make_connector

    c = make_connector("mysql", "x", password="s3cr3t-pw")
    with connection.cursor() as cur:
        cur.execute("SELECT password FROM connectors_connector WHERE id = %s", [c.pk])
        stored = cur.fetchone()[0]
    assert stored and "s3cr3t-pw" not in stored
    assert Connector.objects.get(pk=c.pk).password == "s3cr3t-pw"


def test_statement_timeout(connector: Connector, anna_ctx: ToolContext) -> None:
    Connector.objects.filter(pk=connector.pk).update(timeout_seconds=1)
    heavy = "SELECT COUNT(*) FROM zeiten a, zeiten b, zeiten c, zeiten d"
    r = call(anna_ctx, action="query", sql=heavy)
    assert not r.ok and r.code == "statement_timeout", r
    assert SECRET not in json.dumps(r.as_dict())
