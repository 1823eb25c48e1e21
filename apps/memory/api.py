"""REST API `/api/v1/memory` for external agents and MCP clients with creator-bound API keys:
`GET` needs `memory:read` and returns only approved, visible, valid memory; `POST` needs
`memory:write` and goes through the same service path as the `memory_store` tool (dedup,
assertion status, review). A key acts as its creator; the API-key rate limit applies (429 with
`Retry-After`)."""

from __future__ import annotations

from rest_framework.response import Response

from apps.core.origin import Origin
from apps.core.surfaces.api import ApiView, dump, endpoint, listed
from apps.memory import contracts as c
from apps.memory import reads, services

TAGS = ["memory"]


class MemoryView(ApiView):
    @property
    def required_scopes(self) -> list[str]:
        request = getattr(self, "request", None)
        return ["memory:write"] if request is not None and request.method == "POST" else ["memory:read"]

    @endpoint(query=c.MemoryFilter, output=c.MemoryListOut, operation_id="memory_list", tags=TAGS)
    def get(self, request, query: c.MemoryFilter):
        """Approved memory you may see

        Newest first; `scope=personal` is your own memory only (another person's `user_id` gives an
        empty page with a notice)."""
        rows, total, notices = reads.list_memory(request.principal, query)
        return listed("memories", c.MemoryOut.of, (rows, total), query) | {"notices": notices}

    @endpoint(
        body=c.MemoryStore,
        output=c.MemoryStoredOut,
        status=201,
        operation_id="memory_store",
        tags=TAGS,
        extra_responses={200: c.MemoryStoredOut},
    )
    def post(self, request, body: c.MemoryStore):
        """Remember something

        201 with `outcome: created` for a new memory; 200 with `outcome: confirmed` when the same
        fact was already remembered (nothing new is created). Contradictions of approved memory are
        staged for review, office memory waits for review; text at most 2,000 characters
        (`memory_too_large`)."""
        stored = services.store(request.principal, body, origin=Origin.of_request(request))
        answer = {
            "memory": c.MemoryOut.of(stored.memory),
            "outcome": stored.outcome,
            "notices": stored.notices,
        }
        return Response(dump(c.MemoryStoredOut, answer), status=201 if stored.outcome == "created" else 200)
