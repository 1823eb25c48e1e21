"""The Database tool (and, beside it, FileRW): one registry entry each.

The approval operation of a Database call is the SQL verb read from its content (`select`
runs, every write is staged by default); the preflight refuses what may never run before anyone
is asked to approve it. Rows from the office's databases are foreign content.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import BaseModel, Field

from apps.connectors import access, database, files, sqlguard
from apps.connectors.errors import (
    ExtensionNotAllowed,
    FileNotFoundInRoot,
    PathOutsideRoot,
    StatementNotAllowed,
    StatementUnparsable,
    TableNotAllowed,
)
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


@tool(
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


# --- FileRW ------------------------------------------------------------------------------------
READ_MANY_FILES = 50
READ_MANY_CHARS = 200_000
READ_CHARS = 200_000


class FileArgs(BaseModel):
    connector: str = Field(
        max_length=80, description="The name of the file configuration, e.g. Mandantenablage."
    )
    action: Literal["read", "read_many", "write", "append", "list", "delete", "copy"]
    path: str | None = Field(
        default=None,
        max_length=4000,
        description="A path relative to the root (a folder for list/read_many).",
    )
    paths: list[str] | None = Field(
        default=None, max_length=READ_MANY_FILES, description="read_many: the files to read."
    )
    pattern: str | None = Field(
        default=None,
        max_length=200,
        description="list/read_many: a file name with wildcards (*.pdf), never a path.",
    )
    content: str | None = Field(default=None, max_length=2_000_000, description="write/append: the text.")
    target: str | None = Field(default=None, max_length=4000, description="copy: the new path.")
    sort: Literal["modified", "name"] | None = None
    order: Literal["desc", "asc"] | None = None
    limit: int | None = Field(default=None, ge=1, le=500)


FILE_READS = frozenset({"read", "read_many", "list"})


def file_operation_of(args: BaseModel) -> str:
    assert isinstance(args, FileArgs)
    if args.action in FILE_READS:
        return "read"
    return "delete" if args.action == "delete" else "write"


def _jail(ctx: Any, name: str) -> files.Jail:
    connector = access.resolve(ctx, Connector.Tool.FILERW, name)
    return files.Jail.of(connector, list(access.usable(ctx, Connector.Tool.FILERW)))


def file_preflight(args: BaseModel, ctx: Any) -> None:
    assert isinstance(args, FileArgs)
    jail = _jail(ctx, args.connector)
    files.check_pattern(args.pattern)
    if args.action in ("write", "append", "delete", "copy"):
        jail.check_write()
    if args.action in ("read", "delete"):
        jail.file(args.path)
    elif args.action in ("write", "append"):
        jail.file(args.path, must_exist=False)
    elif args.action == "copy":
        jail.file(args.path)
        jail.file(args.target, must_exist=False)
    elif args.action == "read_many":
        for p in args.paths or ():
            jail.file(p)
        if not args.paths:
            jail.resolve(args.path)
    else:
        jail.resolve(args.path)


def _file_preview(args: BaseModel, ctx: Any) -> str:
    assert isinstance(args, FileArgs)
    what = {"write": _("Write"), "append": _("Append to"), "delete": _("Delete"), "copy": _("Copy")}.get(
        args.action, args.action
    )
    extra = f" → {args.target}" if args.target else ""
    size = f" ({len(args.content or '')} {_('characters')})" if args.content is not None else ""
    return f"{what} “{args.path}”{extra}{size} — {args.connector}"


class FileOutput(BaseModel):
    connector: str
    action: str
    path: str | None = None
    text: str | None = None
    header: str | None = None
    entries: list[dict[str, Any]] | None = None
    total: int | None = None
    files: list[dict[str, Any]] | None = None
    omitted: list[str] | None = None
    truncated: bool | None = None
    notice: dict[str, Any] | None = None
    written: int | None = None


def _truncated_notice(message: str) -> dict[str, Any]:
    return {"code": "result_truncated", "message": message}


@tool(
    name="filerw",
    read_only=False,
    label=gettext_lazy("Files"),
    operations=("read", "write", "delete"),
    operation_key=file_operation_of,
    default={"read": RUN, "write": STAGE, "delete": STAGE},
    preflight=file_preflight,
    preview=_file_preview,
    reads_foreign_content=True,
    output=FileOutput,
)
def filerw_tool(ctx: ToolContext, args: FileArgs) -> dict[str, Any]:
    """Read and write files in the office's file shares (configured per agent, jailed to a root
    folder, only allowed extensions).

    Actions: `list` (a folder's 50 newest entries by default; `pattern` like *.pdf, `sort`
    modified/name, `order`, `limit` ≤ 500; the header states the total), `read` (one file; PDF and
    DOCX as text), `read_many` (`paths`, or a folder `path` + `pattern`; at most 50 files and
    200,000 characters, the files that did not fit are named in `omitted`), `write`, `append`,
    `delete`, `copy` (to `target`). Paths are relative to the root."""
    jail = _jail(ctx, args.connector)
    out: dict[str, Any] = {"connector": jail.connector.name, "action": args.action}
    if args.action == "list":
        found = jail.entries(args.path, args.pattern)
        key = "name" if args.sort == "name" else "modified"
        descending = (args.order or ("asc" if key == "name" else "desc")) == "desc"
        found.sort(key=lambda e: e[key], reverse=descending)
        limit = args.limit or 50
        shown = found[:limit]
        out["total"] = len(found)
        out["header"] = _("%(shown)d of %(total)d entries in “%(path)s”, by %(key)s %(order)s.") % {
            "shown": len(shown),
            "total": len(found),
            "path": args.path or ".",
            "key": key,
            "order": "desc" if descending else "asc",
        }
        from datetime import UTC, datetime

        out["entries"] = [
            {**e, "modified": datetime.fromtimestamp(e["modified"], UTC).isoformat(timespec="seconds")}
            for e in shown
        ]
        out["path"] = args.path or "."
        if len(found) > limit:
            out["truncated"] = True
            out["notice"] = _truncated_notice(
                _("Only %(n)d of %(t)d entries are shown.") % {"n": limit, "t": len(found)}
            )
        return out
    if args.action == "read":
        real = jail.file(args.path)
        text = jail.text_of(real)
        out["path"] = jail.relative(real)
        out["text"] = text[:READ_CHARS]
        if len(text) > READ_CHARS:
            out["truncated"] = True
            out["notice"] = _truncated_notice(
                _("The text was cut after %(n)d characters.") % {"n": READ_CHARS}
            )
        return out
    if args.action == "read_many":
        if args.paths:
            wanted = list(args.paths)
        else:
            listed = jail.entries(args.path, args.pattern or "*")
            wanted = sorted(e["path"] for e in listed if e["kind"] == "file")
        read: list[dict[str, Any]] = []
        omitted: list[str] = []
        used = 0
        for p in wanted:
            if len(read) >= READ_MANY_FILES:
                omitted.append(p)
                continue
            try:
                real = jail.file(p)
                text = jail.text_of(real)
            except (ExtensionNotAllowed, PathOutsideRoot, FileNotFoundInRoot) as exc:
                read.append({"path": p, "error": exc.code})
                continue
            if used + len(text) > READ_MANY_CHARS:
                omitted.append(p)
                continue
            used += len(text)
            read.append({"path": jail.relative(real), "text": text})
        out["files"] = read
        out["omitted"] = omitted
        if omitted:
            out["truncated"] = True
            out["notice"] = _truncated_notice(
                _("%(n)d files did not fit (at most %(f)d files and %(c)d characters): %(names)s.")
                % {
                    "n": len(omitted),
                    "f": READ_MANY_FILES,
                    "c": READ_MANY_CHARS,
                    "names": ", ".join(omitted[:100]),
                }
            )
        return out
    if args.action in ("write", "append"):
        real = jail.file(args.path, for_write=True, must_exist=False)
        data = (args.content or "").encode()
        jail.open_write(real, data, append=args.action == "append")
        out.update(path=jail.relative(real), written=len(data))
        return out
    if args.action == "delete":
        real = jail.file(args.path, for_write=True)
        os.unlink(real)
        out["path"] = jail.relative(real)
        return out
    source = jail.file(args.path, for_write=True)
    target = jail.file(args.target, for_write=True, must_exist=False)
    data = jail.open_read(source)
    jail.open_write(target, data, append=False)
    out.update(path=jail.relative(target), written=len(data))
    return out
