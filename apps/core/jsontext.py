"""Untrusted JSON and text, refused with a stable code before anything stores it.

`loads(data)` is how every request body (the REST parser, the tool execute endpoint, the page
fetch endpoints) and every model-written tool-argument string is parsed. Besides syntax errors
(`json.JSONDecodeError`, a `ValueError`, as `json.loads` raises them) it refuses, each with its
own `InvalidInput` subclass from `apps.core.errors`:

* nesting deeper than `MAX_DEPTH` (Python's decoder would hit its recursion limit at ~1,000 and
  later code at far less): `json_too_deep`;
* a number of more than 4,300 digits (Python refuses to convert it), or one that is not finite
  (`1e999`, `NaN`, `Infinity`: no JSON encoder or PostgreSQL can write it back): `json_number_invalid`;
* a NUL character (`\\u0000`) in any string or key, which PostgreSQL text and jsonb cannot hold:
  `nul_character`, with the path of the first one as the field.

`problem(value)` applies the same depth and NUL checks, plus PostgreSQL's bigint range for
integers, to values that did not come through `loads` (pydantic's `Input` uses it on every field).
"""

from __future__ import annotations

import json
import math
from typing import Any

from django.utils.translation import gettext as _
from pydantic import BaseModel
from pydantic_core import PydanticCustomError

from apps.core.errors import JsonNumberInvalid, JsonTooDeep, NulCharacter

MAX_DEPTH = 64
# PostgreSQL bigint (ids, offsets): a larger value is refused before it reaches a query.
BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1
NUL = "\x00"


def nul_message() -> str:
    return _("Text must not contain NUL characters (\\0).")


def _number_error() -> JsonNumberInvalid:
    return JsonNumberInvalid(_("The JSON data contains a number that is too long or not finite."))


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _number_error()
    return value


def _constant(text: str) -> Any:
    raise _number_error()  # NaN, Infinity, -Infinity: not JSON


def loads(data: bytes | str, *, allow_nul: bool = False) -> Any:
    """Parse untrusted JSON (see the module docstring). `allow_nul=True` leaves NUL characters to
    the caller (the tool endpoint records an unknown tool name with its NUL replaced)."""
    if isinstance(data, bytes | bytearray):
        data = data.decode("utf-8")  # UnicodeDecodeError is a ValueError, as json's own errors
    try:
        value = json.loads(data, parse_float=_finite, parse_constant=_constant)
    except RecursionError:
        raise too_deep() from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise _number_error() from exc
    found = problem(value, nul=not allow_nul, bigint=False)
    if found is not None:
        raise as_error(*found)
    return value


def too_deep() -> JsonTooDeep:
    return JsonTooDeep(
        _("The JSON data is nested too deeply (at most %(n)d levels).") % {"n": MAX_DEPTH},
        details={"max_depth": MAX_DEPTH},
    )


def as_error(kind: str, path: str) -> Exception:
    if kind == "depth":
        return too_deep()
    if kind == "nul":
        return NulCharacter.field(path or "non_field_errors", nul_message())
    return _number_error()


def problem(value: Any, *, nul: bool = True, bigint: bool = True) -> tuple[str, str] | None:
    """The first reason `value` cannot be stored, as (kind, path): kind "depth" (nested deeper
    than MAX_DEPTH), "nul" (a NUL in a string or key), "int_high" / "int_low" (an int outside
    PostgreSQL's bigint) or "float" (not finite); None when it is fine. Iterative: no recursion limit."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            if nul and NUL in item:
                return "nul", path
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if bigint and item > BIGINT_MAX:
                return "int_high", path
            if bigint and item < BIGINT_MIN:
                return "int_low", path
        elif isinstance(item, float):
            if bigint and not math.isfinite(item):
                return "float", path
        elif isinstance(item, dict | BaseModel):
            if depth >= MAX_DEPTH:
                return "depth", path
            for key, sub in item.items() if isinstance(item, dict) else item:
                key_text = str(key)
                if nul and NUL in key_text:
                    return "nul", _join(path, key_text.replace(NUL, "\\0"))
                stack.append((sub, _join(path, key_text), depth + 1))
        elif isinstance(item, list | tuple | set | frozenset):
            if depth >= MAX_DEPTH:
                return "depth", path
            stack.extend((sub, _join(path, str(i)), depth + 1) for i, sub in enumerate(item))
    return None


def _join(path: str, part: str) -> str:
    return f"{path}.{part}" if path else part


def without_nul(text: Any) -> str:
    """`str(text)` with each NUL shown as the replacement character, for logs and audit rows."""
    return str(text).replace(NUL, "\ufffd")


def storable(value: Any) -> None:
    """`problem()` as a pydantic error of the field being validated (`Input` calls it on every
    field), with the error types `apps.core.messages` translates."""
    simple = type(value)  # the common cases first: this runs for every field of every input
    if value is None or simple is bool or (simple is str and NUL not in value):
        return
    if simple is int and BIGINT_MIN <= value <= BIGINT_MAX:
        return
    found = problem(value)
    if found is None:
        return
    kind = found[0]
    if kind == "nul":
        raise PydanticCustomError("string_nul", "Text must not contain NUL characters (\\0)")
    if kind == "depth":
        raise PydanticCustomError("too_deep", "Nested too deeply (at most {n} levels)", {"n": MAX_DEPTH})
    if kind == "float":
        raise PydanticCustomError("finite_number", "Input should be a finite number")
    if kind == "int_low":
        raise PydanticCustomError(
            "greater_than_equal", "Input should be greater than or equal to {ge}", {"ge": BIGINT_MIN}
        )
    raise PydanticCustomError(
        "less_than_equal", "Input should be less than or equal to {le}", {"le": BIGINT_MAX}
    )
