"""OpenAI strict-mode JSON schemas derived from pydantic argument models.

Strict mode needs: every object closed (`additionalProperties: false`), every property listed in
`required` (optional ones become nullable), no `$ref` to `$defs` outside the root, and none of the
keywords it rejects. Length limits and defaults stay enforced by pydantic on our side.
"""

from __future__ import annotations

import copy

from pydantic import BaseModel

UNSUPPORTED_KEYWORDS = frozenset(
    {
        "default",
        "title",
        "minLength",
        "maxLength",
        "examples",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "patternProperties",
        "discriminator",
        "propertyNames",
        "contentEncoding",
        "contentMediaType",
    }
)


def strict_schema(model: type[BaseModel]) -> dict:
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    schema = _inline(raw, defs)
    return _strictify(schema)


def _inline(node, defs: dict):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if ref and ref.startswith("#/$defs/"):
            target = copy.deepcopy(defs[ref.split("/")[-1]])
            merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
            return _inline(merged, defs)
        return {k: _inline(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def _nullable(prop: dict) -> dict:
    if "anyOf" in prop:
        if not any(p.get("type") == "null" for p in prop["anyOf"]):
            prop["anyOf"].append({"type": "null"})
        return prop
    if "enum" in prop and "type" not in prop:
        return {"anyOf": [prop, {"type": "null"}]}
    kind = prop.get("type")
    if isinstance(kind, list):
        if "null" not in kind:
            prop["type"] = [*kind, "null"]
    elif kind is not None:
        prop["type"] = [kind, "null"]
        if "enum" in prop and None not in prop["enum"]:
            prop["enum"] = [*prop["enum"], None]
    else:
        return {"anyOf": [prop, {"type": "null"}]}
    return prop


def _strictify(node):
    if isinstance(node, list):
        return [_strictify(v) for v in node]
    if not isinstance(node, dict):
        return node
    # `properties` maps field names (which may be "title" or "default") to schemas: never filter it.
    node = {
        k: ({n: _strictify(p) for n, p in v.items()} if k == "properties" else _strictify(v))
        for k, v in node.items()
        if k == "properties" or k not in UNSUPPORTED_KEYWORDS
    }
    if node.get("type") == "object" or "properties" in node:
        props = node.get("properties", {})
        required = set(node.get("required", []))
        node["properties"] = {
            name: (prop if name in required else _nullable(prop)) for name, prop in props.items()
        }
        node["required"] = list(props)
        node["additionalProperties"] = False
        node["type"] = "object"
    return node


def strict_violations(schema: dict, path: str = "$") -> list[str]:
    """Why a schema would be rejected in strict mode (empty when it is fine)."""
    problems: list[str] = []
    if isinstance(schema, dict):
        for key in schema:
            if key in UNSUPPORTED_KEYWORDS:
                problems.append(f"{path}: unsupported keyword {key!r}")
        if "$ref" in schema or "$defs" in schema:
            problems.append(f"{path}: unresolved reference")
        if schema.get("type") == "object":
            if schema.get("additionalProperties") is not False:
                problems.append(f"{path}: object must set additionalProperties: false")
            if set(schema.get("required", [])) != set(schema.get("properties", {})):
                problems.append(f"{path}: every property must be required")
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    problems += strict_violations(sub, f"{path}.{name}")
            elif isinstance(value, dict | list):
                problems += strict_violations(value, f"{path}.{key}")
    elif isinstance(schema, list):
        for i, item in enumerate(schema):
            problems += strict_violations(item, f"{path}[{i}]")
    return problems
