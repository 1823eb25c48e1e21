"""The Database tool (and, beside it, FileRW): one registry entry each.

The approval operation of a Database call is the SQL verb read from its content (`select`
runs, every write is staged by default); the preflight refuses what may never run before anyone
is asked to approve it. Rows from the office's databases are foreign content.
"""

from __future__ import annotations

from typing import Any, Literal

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import BaseModel, Field

from apps.connectors import access, database, sqlguard
from apps.connectors.errors import StatementNotAllowed, StatementUnparsable, TableNotAllowed
from apps.connectors.models import Connector
from apps.tools.context import ToolContext
from apps.tools.registry import RUN, STAGE, tool

Scalar = str | int | float | bool | None


class DatabaseArgs(BaseModel):
    connector: str = Field(
        max_length=80, description="The name of the database configuration, e.g. Zeiterfassung."
    )
    action: Literal["query", "insert", "upsert", "describe", "tables"]
    sql: str | None = Field(
        default=None,
        max_length=sqlguard.MAX_SQL_CHARS,
        description="query: one SQL statement with ? placeholders for every value.",
    )
    params: list[Scalar] | None = Field(
        default=None, max_length=1000, description="Values for the ? placeholders."
    )
    table: str | None = Field(
        default=None, max_length=200, description="describe, insert, upsert: the table."
    )
    columns: list[str] | None = Field(
        default=None, max_length=200, description="insert, upsert: column names."
    )
    values: list[list[Scalar]] | None = Field(
        default=None,
        max_length=500,
        description="insert, upsert: one list of values per row, in column order.",
    )
    key_columns: list[str] | None = Field(
        default=None,
        max_length=20,
        description="upsert: the columns of the unique key that decides update vs insert.",
    )


def operation_of(args: BaseModel) -> str:
    assert isinstance(args, DatabaseArgs)
    if args.action == "query":
        return sqlguard.operation_of_sql(args.sql or "")
    if args.action in ("insert", "upsert"):
        return args.action
    return sqlguard.SELECT


def _dialect(connector: Connector) -> str:
    return sqlguard.dialect_of(connector.kind)


def _quoted(name: str, dialect: str) -> str:
    from sqlglot import exp

    if not name or "\x00" in name:
        raise StatementUnparsable(_("Give a column or table name."))
    parts = name.split(".")
    if len(parts) > 2:
        raise StatementUnparsable(_("A table name has at most one schema qualifier."))
    return ".".join(exp.to_identifier(p, quoted=True).sql(dialect=dialect) for p in parts)


def write_sql(args: DatabaseArgs, dialect: str) -> tuple[str, list[Scalar]]:
    """INSERT or upsert SQL for structured rows: identifiers quoted, values as parameters."""
    columns = list(args.columns or ())
    rows = list(args.values or ())
    if not args.table or not columns or not rows:
        raise StatementUnparsable(_("insert and upsert need table, columns and values."))
    if any(len(r) != len(columns) for r in rows):
        raise StatementUnparsable(_("Every row needs exactly one value per column."))
    cols = ", ".join(_quoted(c, dialect) for c in columns)
    one = "(" + ", ".join("?" for _c in columns) + ")"
    # Quoted identifiers and ? placeholders only; the text then passes the same preflight.
    table = _quoted(args.table, dialect)
    sql = f"INSERT INTO {table} ({cols}) VALUES " + ", ".join(one for _r in rows)  # noqa: S608
    if args.action == "upsert":
        keys = list(args.key_columns or ())
        if not keys or not set(keys) <= set(columns):
            raise StatementUnparsable(_("upsert needs key_columns, a subset of columns."))
        rest = [c for c in columns if c not in keys] or keys[:1]
        if dialect == "mysql":
            sets = ", ".join(f"{_quoted(c, dialect)} = VALUES({_quoted(c, dialect)})" for c in rest)
            sql += f" ON DUPLICATE KEY UPDATE {sets}"
        else:
            key_list = ", ".join(_quoted(c, dialect) for c in keys)
            sets = ", ".join(f"{_quoted(c, dialect)} = excluded.{_quoted(c, dialect)}" for c in rest)
            sql += f" ON CONFLICT ({key_list}) DO UPDATE SET {sets}"
    return sql, [v for r in rows for v in r]


def checked_call(args: DatabaseArgs, connector: Connector) -> tuple[sqlguard.Checked, list[Scalar]]:
    dialect = _dialect(connector)
    allowed = database.allowed_tables(connector)
    if args.action == "query":
        sql, params = args.sql or "", list(args.params or ())
    else:
        sql, params = write_sql(args, dialect)
    checked = sqlguard.check(sql, dialect, allowed, connector.database)
    if checked.verb != operation_of(args):
        raise StatementNotAllowed(_("The statement reads differently for this database; write it plainly."))
    if checked.placeholders != len(params):
        raise StatementUnparsable(
            _("The statement has %(n)d ? placeholders but %(m)d params.")
            % {"n": checked.placeholders, "m": len(params)}
        )
    return checked, params


def _table_allowed(args: DatabaseArgs, connector: Connector) -> str:
    allowed = database.allowed_tables(connector)
    name = sqlguard.normalized_name(args.table or "", _dialect(connector)) if args.table else ""
    if name not in allowed:
        raise TableNotAllowed(
            _("The table %(t)s is not in the allowed tables: %(a)s.")
            % {"t": (args.table or "")[:100], "a": ", ".join(allowed)},
            details={"allowed_tables": allowed},
        )
    return name


def database_preflight(args: BaseModel, ctx: Any) -> None:
    assert isinstance(args, DatabaseArgs)
    connector = access.resolve(ctx, Connector.Tool.DATABASE, args.connector)
    if args.action in ("query", "insert", "upsert"):
        checked_call(args, connector)
    elif args.action == "describe":
        _table_allowed(args, connector)


def _preview(args: BaseModel, ctx: Any) -> str:
    assert isinstance(args, DatabaseArgs)
    connector = access.resolve(ctx, Connector.Tool.DATABASE, args.connector)
    checked, params = checked_call(args, connector)
    return _("%(verb)s on “%(name)s” (%(tables)s): %(sql)s — values: %(params)s") % {
        "verb": checked.verb.upper(),
        "name": connector.name,
        "tables": ", ".join(checked.tables),
        "sql": (args.sql or checked.sql)[:500],
        "params": ", ".join(repr(p) for p in params[:20])[:500],
    }


class DatabaseOutput(BaseModel):
    connector: str
    action: str
    columns: list[str] | None = None
    rows: list[list[Any]] | None = None
    row_count: int | None = None
    truncated: bool | None = None
    notice: dict[str, Any] | None = None
    tables: list[dict[str, Any]] | None = None
    table: str | None = None


@tool(  # type: ignore[untyped-decorator]  # apps.tools.registry.tool is not typed yet
    name="database",
    read_only=False,
    label=gettext_lazy("Database"),
    operations=sqlguard.OPERATIONS,
    operation_key=operation_of,
    default={sqlguard.SELECT: RUN, **{op: STAGE for op in sqlguard.OPERATIONS if op != sqlguard.SELECT}},
    preflight=database_preflight,
    preview=_preview,
    reads_foreign_content=True,
    output=DatabaseOutput,
)
def database_tool(ctx: ToolContext, args: DatabaseArgs) -> dict[str, Any]:
    """Read and write the office's own databases (configured per agent, only their allowed tables).

    Actions: `tables` lists the allowed tables and whether each exists; `describe` names the
    columns of one table; `query` runs ONE SQL statement (SELECT, or INSERT/UPDATE/DELETE, which
    wait for a person's approval) with ? placeholders and `params` for every value; `insert` and
    `upsert` write `values` rows into `columns` of `table` (upsert: `key_columns`). Results are
    capped; `notice.code = result_truncated` says the result was cut."""
    connector = access.resolve(ctx, Connector.Tool.DATABASE, args.connector)
    out: dict[str, Any] = {"connector": connector.name, "action": args.action}
    if args.action == "tables":
        listed = []
        for name in database.allowed_tables(connector):
            cols = database.columns_of(connector, name)
            listed.append({"name": name, "exists": bool(cols), "columns": len(cols)})
        out["tables"] = listed
        return out
    if args.action == "describe":
        name = _table_allowed(args, connector)
        out["table"] = name
        described = database.columns_of(connector, name)
        out["columns"] = [c["name"] for c in described]
        out["tables"] = [{"name": name, "exists": bool(described), "columns": described}]
        return out
    checked, params = checked_call(args, connector)
    result = database.execute(connector, checked, params)
    out.update(
        columns=result.columns, rows=result.rows, row_count=result.row_count, truncated=result.truncated
    )
    if result.notice:
        out["notice"] = result.notice
    return out
