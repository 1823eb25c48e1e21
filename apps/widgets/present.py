"""What a widget card shows: the definition applied to the latest data, as plain values for the
templates (which escape everything). Data that does not fit the definition degrades to what can
be shown, never to an error on the dashboard."""

from __future__ import annotations

from typing import Any

from apps.widgets.definitions import MAX_COLUMNS, MAX_STATS
from apps.widgets.models import Widget

TEXT_KEYS = ("text", "title", "label", "name")


def _text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "✓" if value else "✗"
    if isinstance(value, dict):
        for key in TEXT_KEYS:
            if isinstance(value.get(key), str | int | float):
                return str(value[key])
        return ", ".join(f"{k}: {_text(v)}" for k, v in list(value.items())[:4])
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value[:5])
    return str(value)


def _stats(definition: dict, data: Any, title: str) -> dict:
    items = definition.get("items") or []
    if isinstance(data, list):  # [{"label": …, "value": …}, …]
        data = {str(_text(row.get("label"))): row.get("value") for row in data if isinstance(row, dict)}
    if not items and isinstance(data, dict):
        items = [{"label": str(k), "key": str(k)} for k in list(data)[:MAX_STATS]]
    shown = []
    for item in items:
        lookup = item.get("key") or item["label"]
        value = data.get(lookup) if isinstance(data, dict) else data
        shown.append(
            {
                "label": item["label"],
                "value": _text(value),
                "unit": item.get("unit", ""),
                "tone": item.get("tone", "neutral"),
            }
        )
    return {"items": shown, "title": title}


def _list(definition: dict, data: Any) -> dict:
    rows = data if isinstance(data, list) else ([] if data is None else [data])
    limit = definition.get("max_items") or 10
    return {
        "items": [_text(v) for v in rows[:limit]],
        "more": max(0, len(rows) - limit),
        "empty_text": definition.get("empty_text", ""),
    }


def _table(definition: dict, data: Any) -> dict:
    rows = [r for r in data if isinstance(r, dict)] if isinstance(data, list) else []
    columns = definition.get("columns") or []
    if not columns:
        keys: list[str] = []
        for row in rows:
            keys.extend(k for k in row if k not in keys)
        columns = [{"key": k} for k in keys[:MAX_COLUMNS]]
    limit = definition.get("max_rows") or definition.get("max_items") or 10
    return {
        "columns": [c.get("label") or c["key"] for c in columns],
        "rows": [
            [_text(row.get(c["key"])) if c["key"] in row else "" for c in columns] for row in rows[:limit]
        ],
        "more": max(0, len(rows) - limit),
        "empty_text": definition.get("empty_text", ""),
    }


def _notice(definition: dict, data: Any) -> dict:
    tone = definition.get("tone") or "info"
    if isinstance(data, dict):
        tone = data.get("tone") if data.get("tone") in ("info", "success", "warning", "critical") else tone
        data = data.get("text")
    text = (
        data if isinstance(data, str) else (definition.get("text") or ("" if data is None else _text(data)))
    )
    return {"text": text, "tone": tone}


def block(definition: dict, data: Any, title: str = "") -> dict:
    kind = definition.get("type")
    if kind == "stats":
        return {"type": kind, **_stats(definition, data, title)}
    if kind == "list":
        return {"type": kind, **_list(definition, data)}
    if kind == "table":
        return {"type": kind, **_table(definition, data)}
    if kind == "notice":
        return {"type": kind, **_notice(definition, data)}
    if kind == "sections":
        source = data if isinstance(data, dict) else {}
        parts = [
            {
                "title": s.get("title") or s["key"],
                **block(s, source.get(s["key"]), s.get("title") or s["key"]),
            }
            for s in definition.get("sections", [])
        ]
        return {"type": kind, "sections": parts}
    return {"type": "notice", "text": "", "tone": "info"}


def present(widget: Widget) -> dict:
    return {"widget": widget, "block": block(widget.definition, widget.data, widget.title)}
