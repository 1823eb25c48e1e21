"""Learning as a `context_search` source: active learning objects, ranked by full-text search,
read back with `context_get("learning:<id>")`. Declared for `knowledge.sources` in apps.py."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.knowledge.context import ContextHit, ContextQuery, ContextSource, snippet
from apps.knowledge.visibility import PERSONAL
from apps.learning import services
from apps.learning.contracts import EvidenceOut


def _search(q: ContextQuery) -> list[ContextHit]:
    if q.scope == PERSONAL:
        return []  # learning is office-wide knowledge
    found, _total = services.search_objects(q.principal, q.text, limit=min(q.limit, 50))
    return [
        ContextHit(
            ref=o.ref,
            source="learning",
            title=o.subject or o.get_kind_display(),
            snippet=snippet(o.text),
            meta={"object_type": o.kind, "scope": "shared", "confirmations": o.confirmations},
        )
        for o in found
    ]


def _get(principal: Principal, source_id: str, options: dict) -> dict:
    obj, evidence = services.get_object(principal, source_id)
    return {
        "id": obj.ref,
        "source": "learning",
        "title": obj.subject or obj.get_kind_display(),
        "object_type": obj.kind,
        "scope": "shared",
        "text": obj.text,
        "status": obj.status,
        "confirmations": obj.confirmations,
        "updated_at": obj.updated_at.isoformat(),
        "evidence": [EvidenceOut.record(e) for e in evidence],
        "offset": 0,
        "total_chars": len(obj.text),
        "next_offset": None,
    }


source = ContextSource(
    "learning", search=_search, get=_get, description="Approved office knowledge learned from chats"
)
