"""Durable memory as a `context_search` source: usable memory of the reader's holders, ranked by
the same hybrid search as `memory_search` with the query vector `context_search` embedded once
for every source, read back with `context_get("memory:<id>")`."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.knowledge.context import ContextHit, ContextQuery, ContextSource, snippet
from apps.knowledge.errors import KnowledgeNotFound
from apps.memory import reads, search
from apps.memory.errors import MemoryNotFound


def _search(q: ContextQuery) -> list[ContextHit]:
    where = reads.scoped(q.principal, q.scope, specialist=q.specialist)
    if where.blocked:
        return []
    filters = search.filters_for(where.reader, q.scope)
    found = reads.scored_records(
        search.memories(filters, q.text, q.vector(), limit=q.limit, model=q.config().model_id)
    )
    return [
        ContextHit(
            ref=record["ref"],
            source="memory",
            title=record["text"][:80],
            snippet=snippet(record["text"]),
            meta={
                "kind": record["kind"],
                "scope": record["scope"],
                "assertion": record["assertion"],
                "subject": record["subject"],
            },
        )
        for record in found
    ]


def _get(principal: Principal, source_id: str, options: dict) -> dict:
    try:
        memory = reads.expand(principal, source_id, specialist=options.get("specialist"))
    except MemoryNotFound as exc:
        raise KnowledgeNotFound(exc.message) from None
    return memory | {
        "id": memory["ref"],
        "memory_id": memory["id"],
        "source": "memory",
        "title": memory["text"][:80],
    }


# Declared for `knowledge.sources` in apps.py.
source = ContextSource(
    "memory",
    search=_search,
    get=_get,
    description="Durable memory (approved facts and ways)",
    uses_vector=True,
)
