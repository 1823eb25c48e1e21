"""Widget definitions: one pydantic model per type validates what callers send, and
`infer_definition` derives a layout from the data when no definition is given:

* text → notice;  a number → stats;  {name: number|text} → stats
* [text, …] → list;  [{…}, …] → table (columns from the keys)
* {name: [...] | {...}} → sections, each section inferred the same way
"""

from __future__ import annotations

import json
from typing import Any, Literal

from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from apps.widgets.errors import InvalidWidgetData, InvalidWidgetDefinition, InvalidWidgetType

TYPES = ("stats", "list", "table", "notice", "sections")
SECTION_TYPES = ("stats", "list", "table", "notice")
DATA_MAX_BYTES = 64 * 1024
MAX_COLUMNS = 12
MAX_STATS = 24
MAX_SECTIONS = 12
Tone = Literal["neutral", "info", "success", "warning", "critical"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class StatItem(_Strict):
    label: str = Field(min_length=1, max_length=80)
    key: str | None = Field(default=None, max_length=120)
    unit: str | None = Field(default=None, max_length=20)
    tone: Tone = "neutral"


class Column(_Strict):
    key: str = Field(min_length=1, max_length=120)
    label: str | None = Field(default=None, max_length=80)


class StatsDefinition(_Strict):
    type: Literal["stats"]
    items: list[StatItem] = Field(default_factory=list, max_length=MAX_STATS)


class ListDefinition(_Strict):
    type: Literal["list"]
    max_items: int = Field(default=10, ge=1, le=100)
    empty_text: str | None = Field(default=None, max_length=200)


class TableDefinition(_Strict):
    type: Literal["table"]
    columns: list[Column] = Field(default_factory=list, max_length=MAX_COLUMNS)
    max_rows: int = Field(default=10, ge=1, le=100)
    empty_text: str | None = Field(default=None, max_length=200)


class NoticeDefinition(_Strict):
    type: Literal["notice"]
    tone: Tone = "info"
    text: str | None = Field(default=None, max_length=2000)


class Section(_Strict):
    key: str = Field(min_length=1, max_length=120, description="Key of this section's data.")
    title: str | None = Field(default=None, max_length=80)
    type: Literal["stats", "list", "table", "notice"]
    items: list[StatItem] | None = Field(default=None, max_length=MAX_STATS)
    columns: list[Column] | None = Field(default=None, max_length=MAX_COLUMNS)
    max_items: int | None = Field(default=None, ge=1, le=100)
    tone: Tone | None = None


class SectionsDefinition(_Strict):
    type: Literal["sections"]
    sections: list[Section] = Field(min_length=1, max_length=MAX_SECTIONS)


MODELS: dict[str, type[BaseModel]] = {
    "stats": StatsDefinition,
    "list": ListDefinition,
    "table": TableDefinition,
    "notice": NoticeDefinition,
    "sections": SectionsDefinition,
}

FIELD = "widget_definition"


def validate_definition(raw: Any) -> dict:
    """A clean definition dict, or a clear error: `invalid_widget_type` for an unknown type,
    `invalid_widget_definition` with field messages for anything else."""
    if not isinstance(raw, dict):
        raise _definition_error(FIELD, _("must be an object with a type"))
    kind = raw.get("type")
    if kind not in TYPES:
        message = _("unknown widget type “%(type)s”; use one of: %(types)s") % {
            "type": str(kind)[:40],
            "types": ", ".join(TYPES),
        }
        raise InvalidWidgetType(
            f"{FIELD}.type: {message}", details={"field_errors": {f"{FIELD}.type": message}}
        )
    try:
        model = MODELS[kind].model_validate(raw)
    except ValidationError as exc:
        errors = {
            ".".join([FIELD, *(str(p) for p in e["loc"])]): e["msg"]
            for e in exc.errors(include_url=False, include_input=False)
        }
        summary = "; ".join(f"{k}: {v}" for k, v in list(errors.items())[:5])
        raise InvalidWidgetDefinition(summary, details={"field_errors": errors}) from None
    return model.model_dump(exclude_none=True)


def _definition_error(field: str, message: str) -> InvalidWidgetDefinition:
    return InvalidWidgetDefinition(f"{field}: {message}", details={"field_errors": {field: message}})


def check_data(data: Any) -> Any:
    """Data must be plain JSON and small enough for a dashboard card."""
    try:
        encoded = json.dumps(data, allow_nan=False)
    except (TypeError, ValueError):
        raise _data_error(_("must be plain JSON (text, numbers, lists, objects)")) from None
    if len(encoded.encode()) > DATA_MAX_BYTES:
        raise _data_error(_("is too large for a widget (at most %(n)d KB)") % {"n": DATA_MAX_BYTES // 1024})
    return json.loads(encoded)


def _data_error(message: str) -> InvalidWidgetData:
    return InvalidWidgetData(f"latest_data: {message}", details={"field_errors": {"latest_data": message}})


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _columns(rows: list[dict]) -> list[dict]:
    keys: list[str] = []
    for row in rows:
        for key in row:
            if key not in keys:
                keys.append(str(key))
    return [{"key": k, "label": k} for k in keys[:MAX_COLUMNS]]


def _infer(data: Any, label: str) -> dict | None:
    """The definition for one value, or None when no type fits."""
    if isinstance(data, str):
        return {"type": "notice", "tone": "info"}
    if isinstance(data, int | float) and not isinstance(data, bool):
        return {"type": "stats", "items": [{"label": label[:80] or "–", "tone": "neutral"}]}
    if isinstance(data, list):
        if data and all(isinstance(row, dict) for row in data):
            return {"type": "table", "columns": _columns(data), "max_rows": 10}
        if all(_scalar(item) for item in data):
            return {"type": "list", "max_items": 10}
        return None
    if isinstance(data, dict):
        if set(data) <= {"text", "tone", "title"} and isinstance(data.get("text"), str):
            tone = (
                data.get("tone") if data.get("tone") in ("info", "success", "warning", "critical") else "info"
            )
            return {"type": "notice", "tone": tone}
        if all(_scalar(v) for v in data.values()):
            items = [{"label": str(k)[:80], "key": str(k), "tone": "neutral"} for k in list(data)[:MAX_STATS]]
            return {"type": "stats", "items": items}
        return None
    return None


def infer_definition(data: Any, title: str = "") -> dict:
    definition = _infer(data, title)
    if definition is None and isinstance(data, dict) and 0 < len(data) <= MAX_SECTIONS:
        sections = []
        for key, value in data.items():
            sub = _infer(value, str(key))
            if sub is None or sub["type"] == "sections":
                break
            shape = {k: v for k, v in sub.items() if k in Section.model_fields}
            sections.append({**shape, "key": str(key)[:120], "title": str(key)[:80]})
        else:
            definition = {"type": "sections", "sections": sections}
    if definition is None:
        raise _data_error(
            _("no widget type fits this data; send a widget_definition (types: %(types)s)")
            % {"types": ", ".join(TYPES)}
        )
    return validate_definition(definition)
