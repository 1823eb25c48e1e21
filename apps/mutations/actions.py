"""Builders for the generic UI actions that `static/js/mutations.js` applies to open pages.

Tools and services return these dicts in `ui_actions`; building them here keeps the wire shape in
one place. Pages may register handlers for richer rendering; these are the fallbacks every page
understands.
"""

from __future__ import annotations

from typing import Any

UIAction = dict[str, Any]


def highlight(record_id: str) -> UIAction:
    """Flash the element with `data-record-id=<record_id>` (the user sees what changed)."""
    return {"type": "highlight", "record_id": str(record_id)}


def upsert(list_name: str, record_id: str, record: dict[str, Any] | None = None) -> UIAction:
    """A record was created or changed in the list `data-list=<list_name>`; page handlers render it."""
    action: UIAction = {"type": "upsert", "list": list_name, "record_id": str(record_id)}
    if record is not None:
        action["record"] = record
    return action


def remove(list_name: str, record_id: str) -> UIAction:
    """A record left the list (deleted, or no longer visible to the receiver): an explicit delete."""
    return {"type": "remove", "list": list_name, "record_id": str(record_id)}


def focus(record_id: str) -> UIAction:
    """Scroll to and focus the element of the record."""
    return {"type": "focus", "record_id": str(record_id)}


def navigate(url: str) -> UIAction:
    """Open a page of this instance. Only same-origin paths: an event must never send users away."""
    if not url.startswith("/") or url.startswith("//") or "\\" in url:
        raise ValueError("navigate() takes a same-origin path starting with a single '/'.")
    return {"type": "navigate", "url": url}


def reload_topic(topic: str) -> UIAction:
    """Ask views showing `topic` to refetch themselves (DOM event `clapilot:refresh`)."""
    return {"type": "reload_topic", "topic": topic}
