"""Links to the records a run's tools created or changed, taken from their UI actions.

A tool's direct result leaves out the actions an all-user fan-out delivers (the seed's
duplicate suppression), so the actions of a run's mutation events that its user may see are read
too: one query per tool batch that recorded events, above a cursor taken before the run's first
tool batch (one index lookup)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Max

from apps.mutations.models import MutationEvent
from apps.mutations.services import visible_to
from apps.tools.results import ToolResult

LINKS_MAX = 10  # per tool call
TITLE_CHARS = 120


def event_cursor() -> int:
    return MutationEvent.objects.aggregate(m=Max("id"))["m"] or 0


def links_from(actions: Iterable[Any]) -> list[dict]:
    """`{url, title}` of every upserted record with a same-origin page, in order, once each."""
    links: list[dict] = []
    seen: set[str] = set()
    for action in actions:
        if not isinstance(action, dict) or action.get("type") != "upsert":
            continue
        record = action.get("record")
        if not isinstance(record, dict):
            continue
        url = record.get("url")
        if not _same_origin(url) or url in seen:
            continue
        seen.add(url)
        title = record.get("title") or record.get("name") or record.get("filename") or ""
        links.append({"url": url, "title": str(title)[:TITLE_CHARS], "list": str(action.get("list") or "")})
        if len(links) >= LINKS_MAX:
            break
    return links


def batch_links(
    run_id: int, user_id: int | None, names: list[str], results: list[ToolResult], after: int
) -> list[list[dict]]:
    """The links of each call of a batch: its direct actions, then those of the run's events
    (above `after`) recorded by a tool of that name up to the call's last event."""
    events: list[MutationEvent] = []
    last_ids = [r.mutation_event_id for r in results if r.ok and r.mutation_event_id]
    if last_ids and user_id is not None:
        events = list(
            MutationEvent.objects.filter(visible_to(user_id), pk__gt=after, pk__lte=max(last_ids))
            .filter(origin_run=str(run_id))
            .only("id", "origin_tool", "ui_actions")
            .order_by("id")
        )
    out = []
    for name, result in zip(names, results, strict=True):
        if not result.ok:
            out.append([])
            continue
        actions = list(result.ui_actions or [])
        if result.mutation_event_id:
            for event in events:
                if event.origin_tool == name and event.pk <= result.mutation_event_id:
                    actions.extend(event.ui_actions or [])
        out.append(links_from(actions))
    return out


def _same_origin(url: Any) -> bool:
    return isinstance(url, str) and url.startswith("/") and not url.startswith("//") and "\\" not in url
