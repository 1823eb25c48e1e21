"""The Database tool's preflight: every statement is read by a real SQL parser (sqlglot) before
it reaches a database, and what runs is the statement *as the parser understood it*.

Refused: anything but exactly one SELECT (set operations included), INSERT, UPDATE or DELETE; a
table outside the allowed list (joins, subqueries, CTEs, set operations, schema-qualified and
quoted names, each compared after the dialect's own case folding); table functions; functions
the parser does not know (pg_read_file, load_file, query_to_xml, dblink …) and the file, XML
and URL readers it does know; a write hidden in a CTE; `SELECT … INTO`; MySQL `/*! */`
version comments; string literals with backslashes (MySQL reads them differently: pass values as
parameters). The SQL sent to the driver is regenerated from the tree without comments, so
nothing the parser skipped can run. Values travel as parameters (`?` placeholders).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from functools import lru_cache

import sqlglot
from django.utils.translation import gettext as _
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from apps.connectors.errors import StatementNotAllowed, StatementUnparsable, TableNotAllowed

DIALECTS = {"postgres": "postgres", "mysql": "mysql", "sqlite": "sqlite"}
SELECT, INSERT, UPSERT, UPDATE, DELETE = "select", "insert", "upsert", "update", "delete"
OPERATIONS = (SELECT, INSERT, UPSERT, UPDATE, DELETE)
MAX_SQL_CHARS = 20_000

_WRITES = (exp.Insert, exp.Update, exp.Delete, exp.Merge)
_NEVER = (
    exp.Command,
    exp.Pragma,
    exp.Copy,
    exp.Into,
    exp.Set,
    exp.Use,
    exp.Describe,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.TruncateTable,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.LoadData,
    exp.Parameter,
    exp.SessionParameter,
    exp.PropertyEQ,
)
# Typed functions that read files, URLs or run text as SQL/XML, whatever the dialect.
_FORBIDDEN_FUNC = re.compile(
    r"(file|read|load|xml|exec|sleep|benchmark|setting|system|query|url|http|import|export|"
    r"dblink|lo_|pg_|sys_|shell|copy|attach|extension|user|session|password|schema|database|version|"
    r"catalog|connection|host|role|privilege|lock)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Checked:
    verb: str
    tables: tuple[str, ...]
    sql: str  # regenerated from the tree, comments dropped, `?` placeholders in place
    placeholders: int


def dialect_of(kind: str) -> str:
    return DIALECTS[kind]


def parse_one(sql: str, dialect: str) -> exp.Expr:
    if not sql or not sql.strip():
        raise StatementUnparsable("The statement is empty.")
    if len(sql) > MAX_SQL_CHARS:
        raise StatementUnparsable(f"The statement is longer than {MAX_SQL_CHARS} characters.")
    if "\x00" in sql:
        raise StatementNotAllowed("The statement contains a NUL character.")
    if "\\" in sql:
        raise StatementNotAllowed("Pass text with backslashes as a parameter (?), not inside the statement.")
    if "@" in sql:
        raise StatementNotAllowed("Pass values with @ as parameters (?); session variables are not allowed.")
    if "/*!" in sql or "/*+" in sql or "/*M!" in sql.upper():
        raise StatementNotAllowed("Version and optimizer comments (/*! … */) are not allowed.")
    try:
        statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
    except SqlglotError as exc:
        raise StatementUnparsable(
            _("The SQL parser cannot read this statement; write plain SQL with ? placeholders.")
        ) from exc
    except Exception as exc:  # a parser bug is still a statement nobody can vouch for
        raise StatementUnparsable("The SQL parser cannot read this statement.") from exc
    if not statements:
        raise StatementUnparsable("The statement is empty.")
    if len(statements) > 1:
        raise StatementNotAllowed(_("Send exactly one statement per call (no ';' between statements)."))
    return statements[0]


def verb_of(tree: exp.Expr) -> str:
    if isinstance(tree, (exp.Select, exp.SetOperation)):
        if any(isinstance(n, _WRITES) for n in tree.walk()):
            raise StatementNotAllowed("A write inside a read statement (e.g. in a CTE) is not allowed.")
        return SELECT
    if isinstance(tree, exp.Insert):
        return UPSERT if tree.args.get("conflict") is not None else INSERT
    if isinstance(tree, exp.Update):
        return UPDATE
    if isinstance(tree, exp.Delete):
        return DELETE
    raise StatementNotAllowed(
        _("Only SELECT, INSERT, UPDATE and DELETE statements are allowed (%(kind)s is not).")
        % {"kind": _kind(tree)}
    )


def operation_of_sql(sql: str) -> str:
    """The approval operation from the statement itself, read without the connection's dialect
    (the preflight reads it again in the dialect and refuses the call when the two disagree)."""
    try:
        tree = parse_one(sql, "")
        return verb_of(tree)
    except Exception:
        return UPDATE  # unreadable: never an operation that runs without asking


def _kind(tree: exp.Expr) -> str:
    return type(tree).__name__.upper()


def _cte_visible(table: exp.Table, name: str) -> bool:
    """Is this unqualified table reference a CTE defined around it (lexical scoping, a CTE's own
    body sees itself only in WITH RECURSIVE and only earlier siblings otherwise)?"""
    child: exp.Expr = table
    node = table.parent
    while node is not None:
        with_ = node.args.get("with_") or node.args.get("with")
        if isinstance(with_, exp.With):
            ctes = list(with_.expressions)
            inside = next((c for c in ctes if _is_ancestor(c, child)), None)
            if inside is None:
                visible = ctes if child is not with_ else []
            else:
                idx = ctes.index(inside)
                visible = ctes[: idx + 1] if with_.args.get("recursive") else ctes[:idx]
            if any(c.alias == name for c in visible):
                return True
        child = node
        node = node.parent
    return False


def _is_ancestor(candidate: exp.Expr, node: exp.Expr) -> bool:
    current: exp.Expr | None = node
    while current is not None:
        if current is candidate:
            return True
        current = current.parent
    return False


def _mysql_upsert_value(node: exp.Anonymous, dialect: str) -> bool:
    """`VALUES(col)` in MySQL's ON DUPLICATE KEY UPDATE: the new row's value of one column."""
    args = node.expressions
    return (
        dialect == "mysql"
        and str(node.this).upper() == "VALUES"
        and len(args) == 1
        and isinstance(args[0], (exp.Identifier, exp.Column))
        and isinstance(node.parent, exp.EQ)
        and isinstance(node.parent.parent, exp.OnConflict)
    )


def normalized_name(name: str, dialect: str) -> str:
    """An allowed-table entry as the dialect folds an unquoted identifier."""
    ident = exp.to_identifier(name)
    folded = normalize_identifiers(ident, dialect=dialect)
    return folded.name


def check(sql: str, dialect: str, allowed: tuple[str, ...] | list[str], database: str = "") -> Checked:
    """The checked statement; the same text for the same configuration is parsed once (the
    preflight and the handler of one call, and a model repeating a query, hit the cache)."""
    return _checked(sql, dialect, tuple(sorted(allowed)), database)


@lru_cache(maxsize=512)
def _checked(sql: str, dialect: str, allowed: tuple[str, ...], database: str) -> Checked:
    tree = parse_one(sql, dialect)
    verb = verb_of(tree)
    tree = normalize_identifiers(tree, dialect=dialect)
    allowed_set = {normalized_name(a, dialect) for a in allowed if a}
    touched: list[str] = []
    for node in tree.walk():
        if isinstance(node, _NEVER):
            raise StatementNotAllowed(_("%(kind)s is not allowed in a statement.") % {"kind": _kind(node)})
        if isinstance(node, _WRITES) and node is not tree:
            raise StatementNotAllowed("A write nested inside another statement is not allowed.")
        if isinstance(node, exp.Anonymous) and not _mysql_upsert_value(node, dialect):
            raise StatementNotAllowed(_("The function %(f)s is not allowed.") % {"f": str(node.name)[:60]})
        if isinstance(node, exp.Func) and _FORBIDDEN_FUNC.search(node.sql_name() or type(node).__name__):
            raise StatementNotAllowed(
                _("The function %(f)s is not allowed.") % {"f": str(node.sql_name())[:60]}
            )
        if isinstance(node, exp.Literal) and node.is_string and "\\" in node.this:
            raise StatementNotAllowed("Pass text with backslashes as a parameter (?), not as a literal.")
        if isinstance(node, exp.Identifier) and str(node.this)[:1] in ("$", "@"):
            raise StatementUnparsable("Use ? placeholders for values (not $1 or @variables).")
        if isinstance(node, exp.Placeholder) and node.this:
            raise StatementUnparsable("Use ? placeholders for values (not named ones).")
        if isinstance(node, exp.Table):
            touched.append(_table_name(node, dialect, allowed_set, database))
    if verb != SELECT and not touched:
        raise StatementNotAllowed("A write must name its table.")
    return _render(tree, dialect, verb, tuple(dict.fromkeys(t for t in touched if t)))


def _table_name(node: exp.Table, dialect: str, allowed: set[str], database: str) -> str:
    if not isinstance(node.this, exp.Identifier):
        raise StatementNotAllowed("Table functions are not allowed in FROM.")
    name = node.name
    catalog, db = node.catalog, node.db
    if catalog:
        raise TableNotAllowed(
            _("The table %(t)s is not in the allowed tables: %(a)s.")
            % {"t": f"{catalog}.{db}.{name}", "a": ", ".join(sorted(allowed)) or "-"}
        )
    if not db and _cte_visible(node, name):
        return ""
    if db:
        qualified = f"{db}.{name}"
        same_db = dialect == "mysql" and database and db == normalized_name(database, dialect)
        if qualified in allowed or (same_db and name in allowed):
            return name
        raise TableNotAllowed(
            _("The table %(t)s is not in the allowed tables: %(a)s.")
            % {"t": qualified, "a": ", ".join(sorted(allowed)) or "-"},
            details={"allowed_tables": sorted(allowed)},
        )
    if name in allowed:
        return name
    raise TableNotAllowed(
        _("The table %(t)s is not in the allowed tables: %(a)s.")
        % {"t": name, "a": ", ".join(sorted(allowed)) or "-"},
        details={"allowed_tables": sorted(allowed)},
    )


def _render(tree: exp.Expr, dialect: str, verb: str, tables: tuple[str, ...]) -> Checked:
    marker = f"clpparam{secrets.token_hex(8)}"
    count = 0

    def swap(node: exp.Expr) -> exp.Expr:
        nonlocal count
        if isinstance(node, exp.Placeholder):
            count += 1
            return exp.Var(this=marker)
        return node

    tree = tree.transform(swap, copy=False)  # our own parse tree, not shared
    try:
        sql = tree.sql(dialect=dialect, comments=False)
    except SqlglotError as exc:
        raise StatementUnparsable("The statement cannot be written back for this database.") from exc
    if sql.count(marker) != count:
        raise StatementUnparsable("The statement's placeholders could not be matched.")
    placeholder = "?" if dialect == "sqlite" else "%s"
    if placeholder == "%s":
        sql = sql.replace("%", "%%")
    sql = sql.replace(marker, placeholder)
    return Checked(verb=verb, tables=tables, sql=sql, placeholders=count)
