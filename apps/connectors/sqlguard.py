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
    ddl = _ddl_word(tree)
    if ddl:
        raise StatementNotAllowed(
            _(
                "%(kind)s changes the structure or the permissions of the database and is never "
                "allowed here; only SELECT, INSERT, UPDATE and DELETE run."
            )
            % {"kind": ddl},
            details={"verb": ddl.lower()},
        )
    raise StatementNotAllowed(
        _("Only SELECT, INSERT, UPDATE and DELETE statements are allowed (%(kind)s is not).")
        % {"kind": _kind(tree)}
    )


@lru_cache(maxsize=1024)
def operation_of_sql(sql: str) -> str:
    """The approval operation from the statement itself, read without the connection's dialect
    (the preflight reads it again in the dialect and refuses the call when the two disagree)."""
    try:
        tree = parse_one(sql, "")
        return verb_of(tree)
    except Exception:
        return UPDATE  # unreadable: never an operation that runs without asking


_DDL = {
    exp.Create: "CREATE",
    exp.Drop: "DROP",
    exp.Alter: "ALTER",
    exp.TruncateTable: "TRUNCATE",
    exp.Grant: "GRANT",
    exp.Revoke: "REVOKE",
    exp.Comment: "COMMENT",
}
_DDL_WORDS = {*_DDL.values(), "RENAME", "REINDEX", "VACUUM", "ANALYZE", "CLUSTER", "OPTIMIZE"}


def _ddl_word(tree: exp.Expr) -> str:
    """CREATE, DROP, ALTER, TRUNCATE, GRANT … : schema and permission changes, however parsed."""
    for cls, word in _DDL.items():
        if isinstance(tree, cls):
            return word
    if isinstance(tree, exp.Command):
        word = str(tree.this).split(maxsplit=1)[0].upper() if str(tree.this).strip() else ""
        return word if word in _DDL_WORDS else ""
    return ""


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
    return _normalized_name(name, dialect)


@lru_cache(maxsize=4096)
def _normalized_name(name: str, dialect: str) -> str:
    ident = exp.to_identifier(name)
    folded = normalize_identifiers(ident, dialect=dialect)
    return folded.name


@dataclass(frozen=True)
class Parsed:
    """What a statement is, whatever configuration it is sent to: cached per dialect and text."""

    verb: str
    refs: tuple[tuple[str, str, str], ...]  # (catalog, schema, table) after case folding, CTEs left out
    sql: str
    placeholders: int


def check(sql: str, dialect: str, allowed: tuple[str, ...] | list[str], database: str = "") -> Checked:
    """The checked statement. Parsing is cached (the preflight and the handler of one call, and a
    model repeating a query, parse once); the allowed tables are checked on every call against
    the configuration as it is now."""
    parsed = parse_checked(sql, dialect)
    allowed_set = {normalized_name(a, dialect) for a in allowed if a}
    tables = tuple(dict.fromkeys(_table_name(ref, dialect, allowed_set, database) for ref in parsed.refs))
    return Checked(verb=parsed.verb, tables=tables, sql=parsed.sql, placeholders=parsed.placeholders)


@lru_cache(maxsize=1024)
def parse_checked(sql: str, dialect: str) -> Parsed:
    """Parse, refuse what may never run, and regenerate the SQL. Refusals raise (and are not
    cached: their messages are in the caller's language)."""
    tree = parse_one(sql, dialect)
    verb = verb_of(tree)
    tree = normalize_identifiers(tree, dialect=dialect)
    refs: list[tuple[str, str, str]] = []
    tables = 0
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
            tables += 1
            if not isinstance(node.this, exp.Identifier):
                raise StatementNotAllowed("Table functions are not allowed in FROM.")
            if node.catalog or node.db or not _cte_visible(node, node.name):
                refs.append((node.catalog, node.db, node.name))
    if verb != SELECT and not tables:
        raise StatementNotAllowed("A write must name its table.")
    return _render(tree, dialect, verb, tuple(dict.fromkeys(refs)))


def _table_name(ref: tuple[str, str, str], dialect: str, allowed: set[str], database: str) -> str:
    catalog, db, name = ref
    if catalog:
        raise TableNotAllowed(
            _("The table %(t)s is not in the allowed tables: %(a)s.")
            % {"t": f"{catalog}.{db}.{name}", "a": ", ".join(sorted(allowed)) or "-"}
        )
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


def _render(tree: exp.Expr, dialect: str, verb: str, refs: tuple[tuple[str, str, str], ...]) -> Parsed:
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
        sql = tree.sql(dialect=dialect, comments=False, copy=False)  # our own tree: no copy
    except SqlglotError as exc:
        raise StatementUnparsable("The statement cannot be written back for this database.") from exc
    if sql.count(marker) != count:
        raise StatementUnparsable("The statement's placeholders could not be matched.")
    placeholder = "?" if dialect == "sqlite" else "%s"
    if placeholder == "%s":
        sql = sql.replace("%", "%%")
    sql = sql.replace(marker, placeholder)
    return Parsed(verb=verb, refs=refs, sql=sql, placeholders=count)
