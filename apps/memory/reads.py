"""Reading memory for a model or a client: only usable memory (approved, not retracted, valid now)
of the reader's holders. Used by the agent tools, `/api/v1/memory`, the `memory:` context source
and the MCP server; the memory page and the review queue read through `services` instead.

A request for another person's or another specialist's personal memory, or for personal memory
where there is none (a service principal), answers with nothing and a notice, never with data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.db import DatabaseError, connection, transaction
from django.db.models import Count
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.db.narrowing import narrowed
from apps.knowledge import embeddings
from apps.memory import search
from apps.memory.contracts import (
    MemoryFilter,
    MemoryGrep,
    MemoryOut,
    MemoryRevisionOut,
    MemorySearch,
    MemorySourceOut,
)
from apps.memory.errors import InvalidPattern, MemoryNotFound
from apps.memory.models import Kind, Memory
from apps.memory.records import with_relations
from apps.memory.visibility import ALL, PERSONAL, SCOPE_CHOICES, Reader, usable

GREP_TIMEOUT_MS = 2000
CONTEXT_CHARS = 80
# Constructs PostgreSQL's regex engine and Python's read differently, or that cost without
# bound: refused rather than half-supported.
_UNSAFE = re.compile(r"\\[1-9]|\(\?[^:]|\{\d{3,}")


@dataclass
class Scoped:
    """The reader a request resolves to, or why it reads nothing (`notices`)."""

    reader: Reader
    scope: str
    notices: list[str] = field(default_factory=list)
    blocked: bool = False


def scoped(
    principal: Principal,
    scope: str = ALL,
    *,
    specialist: str | None = None,
    user_id: int | None = None,
    specialist_id: str | None = None,
) -> Scoped:
    """`specialist` is the run's own (from the tool context); `user_id` / `specialist_id` are what
    the caller asked for, and must be the reader itself."""
    if scope not in SCOPE_CHOICES:
        raise validation.invalid("scope", _("must be personal, shared or all"))
    reader = Reader.of(principal, specialist)
    result = Scoped(reader, scope)
    own_user = principal.resource_scope.user_id
    if user_id not in (None, "") and (specialist or str(user_id) != str(own_user)):
        result.notices.append(_("Personal memory of another person is never shown; nothing was searched."))
        result.blocked = True
    elif specialist_id not in (None, "") and str(specialist_id) != (specialist or ""):
        result.notices.append(
            _("Personal memory of another specialist is never shown; nothing was searched.")
        )
        result.blocked = True
    elif scope == PERSONAL and reader.personal_holder is None:
        result.notices.append(_("Personal memory is not available here; nothing was searched."))
        result.blocked = True
    elif not reader.holders(scope):
        result.notices.append(_("Memory is not available here."))
        result.blocked = True
    return result


def scored_records(ranked: list[tuple[Memory, float]]) -> list[dict]:
    """Records of ranked memories (`search.memories`), in rank order, with their scores."""
    return [MemoryOut.record(memory) | {"score": round(score, 6)} for memory, score in ranked]


# --- search -----------------------------------------------------------------------------------
def search_memory(principal: Principal, args: MemorySearch, *, specialist: str | None = None) -> dict:
    """{"memories": [record + score], "notices": [...]}: the best usable memories by meaning
    and by words at once. `specialist` is the run's own (the tool context's)."""
    where = scoped(
        principal, args.scope, specialist=specialist, user_id=args.user_id, specialist_id=args.specialist_id
    )
    if where.blocked:
        return {"memories": [], "notices": where.notices}
    filters = search.filters_for(
        where.reader, args.scope, kind=args.kind, subject_client_id=args.subject_client_id
    )
    config = embeddings.load_config()  # once: the query's embedding and the vectors it compares with
    vector = embeddings.embed_query(args.query, config)
    ranked = search.memories(filters, args.query, vector, limit=args.limit, model=config.model_id)
    return {
        "memories": scored_records(ranked),
        "notices": where.notices,
    }


# --- one memory -------------------------------------------------------------------------------
def get_memory(principal: Principal, memory_id: int | str, *, specialist: str | None = None) -> Memory:
    """One usable memory the reader may see (`memory_not_found` otherwise, alike for all)."""
    reader = Reader.of(principal, specialist)
    try:
        return with_relations(usable(reader)).get(pk=int(memory_id))
    except (Memory.DoesNotExist, TypeError, ValueError):
        raise MemoryNotFound(_("There is no memory with id %(id)s.") % {"id": memory_id}) from None


def expand(principal: Principal, memory_id: int | str, *, specialist: str | None = None) -> dict:
    """A memory with its sources (evidence) and its audit trail."""
    memory = get_memory(principal, memory_id, specialist=specialist)
    return MemoryOut.record(memory) | {
        "sources": [MemorySourceOut.record(s) for s in memory.sources.all()[:50]],
        "history": [MemoryRevisionOut.record(r) for r in memory.revisions.all()[:50]],
    }


# --- grep -------------------------------------------------------------------------------------
def _pattern(pattern: str, regex: bool, case_sensitive: bool) -> re.Pattern:
    if not regex:
        return re.compile(re.escape(pattern), 0 if case_sensitive else re.IGNORECASE)
    if _UNSAFE.search(pattern):
        raise InvalidPattern.field(
            "pattern", _("back-references, (?…) groups and huge repeats are not supported")
        )
    try:
        return re.compile(pattern, 0 if case_sensitive else re.IGNORECASE)
    except re.error as exc:
        raise InvalidPattern.field(
            "pattern", _("is no valid regular expression (%(e)s)") % {"e": exc}
        ) from None


def _excerpt(text: str, compiled: re.Pattern) -> dict:
    match = compiled.search(text)
    if match is None:  # PostgreSQL and Python disagree on a rare construct: show the start
        return {"excerpt": text[: 2 * CONTEXT_CHARS], "match": None}
    start, end = max(0, match.start() - CONTEXT_CHARS), min(len(text), match.end() + CONTEXT_CHARS)
    return {"excerpt": text[start:end], "match": [match.start(), match.end()]}


def grep(principal: Principal, args: MemoryGrep, *, specialist: str | None = None) -> dict:
    """Usable memories whose text contains `pattern` (or matches it as a regular expression),
    newest first, at most `limit` (≤ 100) within a bounded statement time."""
    pattern, regex, case_sensitive, limit = args.pattern, args.regex, args.case_sensitive, args.limit
    compiled = _pattern(pattern, regex, case_sensitive)
    where = scoped(principal, args.scope, specialist=specialist)
    if where.blocked:
        return {"memories": [], "total": 0, "truncated": False, "notices": where.notices}
    qs = usable(where.reader, args.scope)
    if args.kind:
        qs = qs.filter(kind=args.kind)
    text = compiled.pattern
    lookup = (
        ("regex" if case_sensitive else "iregex")
        if regex
        else ("contains" if case_sensitive else "icontains")
    )
    value = text if regex else pattern
    try:
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute("SELECT set_config('statement_timeout', %s, true)", [str(GREP_TIMEOUT_MS)])
            rows = list(
                with_relations(qs.filter(**{f"text__{lookup}": value})).order_by("-updated_at", "-id")[
                    : limit + 1
                ]
            )
    except DatabaseError:
        raise InvalidPattern.field("pattern", _("cannot be searched (invalid or too costly)")) from None
    truncated = len(rows) > limit
    records = [MemoryOut.record(m) | _excerpt(m.text, compiled) for m in rows[:limit]]
    return {"memories": records, "total": len(records), "truncated": truncated, "notices": where.notices}


# --- describe ---------------------------------------------------------------------------------
def describe(principal: Principal, *, scope: str = ALL, specialist: str | None = None) -> dict:
    """What is stored and usable: counts by kind, by scope and by subject client (top 20)."""
    where = scoped(principal, scope, specialist=specialist)
    if where.blocked:
        return {"total": 0, "by_kind": {}, "by_scope": {}, "by_subject": [], "notices": where.notices}
    qs = usable(where.reader, scope).order_by()
    by_kind = dict(qs.values_list("kind").annotate(n=Count("id")))
    by_scope = dict(qs.values_list("scope").annotate(n=Count("id")))
    subjects = (
        qs.filter(subject_client__isnull=False)
        .values("subject_client_id", "subject_client__name")
        .annotate(n=Count("id"))
        .order_by("-n", "subject_client__name")[:20]
    )
    return {
        "total": sum(by_kind.values()),
        "by_kind": {k: by_kind.get(k, 0) for k in Kind.values},
        "by_scope": {"shared": by_scope.get("shared", 0), "personal": by_scope.get("personal", 0)},
        "by_subject": [
            {
                "client": {"id": row["subject_client_id"], "name": row["subject_client__name"]},
                "count": row["n"],
            }
            for row in subjects
        ],
        "notices": where.notices,
    }


# --- list (REST) ------------------------------------------------------------------------------
def list_memory(
    principal: Principal, filters: MemoryFilter, *, specialist: str | None = None
) -> tuple[list[Memory], int, list[str]]:
    """A page of usable memory, newest first (words in `query` narrow it), its total and notices."""
    f = filters
    where = scoped(principal, f.scope, specialist=specialist, user_id=f.user_id)
    if where.blocked:
        return [], 0, where.notices
    qs = usable(where.reader, f.scope)
    qs = narrowed(qs, kind=f.kind, subject_client_id=f.subject_client_id, text__icontains=f.query)
    rows = list(with_relations(qs).order_by("-updated_at", "-id")[f.offset : f.offset + f.limit])
    return rows, qs.count(), where.notices
