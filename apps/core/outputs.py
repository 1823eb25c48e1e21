"""Output models that build themselves from rows: the one declaration of a record's shape.

    class TaskOut(RowOutput):
        id: int
        title: str
        board: BoardRef            # a nested RowOutput, read from `task.board`
        url: str                   # an attribute or property of the row

    TaskOut.of(task)        # the validated output model (REST handlers may return it)
    TaskOut.record(task)    # the wire dict tools, pages and live events send

Each field is read from the row's attribute of the same name (pydantic's `from_attributes`); a
field whose value the row holds in another form converts it in a `mode="before"` validator
(a user → `PersonRef`, a related row → its name). `record` gives dates and times as
`isoformat()` text, as the hand-written `records.py` builders did, so a wire shape stays byte for
byte what clients already receive; REST answers through `apps.core.surfaces.api.dump` as before.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, Self

from pydantic import ConfigDict, model_validator

from apps.core.contracts import Output


class RowOutput(Output):
    model_config = ConfigDict(extra="forbid", from_attributes=True)

    @classmethod
    def of(cls, row: Any) -> Self:
        """The output of one row (or of a dict in the output's shape)."""
        return cls.model_validate(row)

    @classmethod
    def record(cls, row: Any) -> dict[str, Any]:
        """The wire record of one row: JSON-ready, dates as ISO 8601 text."""
        return wire(cls.of(row))


def read_through(model: type, view: Callable[[Any], Any]) -> Any:
    """A RowOutput's `mode="before"` validator that reads a row of `model` through `view` (an
    object giving the row's values under the output's names, e.g. its ref as `id`); anything
    else (a dict in the output's shape) is validated as it is.

        _row = read_through(Memory, _MemoryRow)
    """

    def _through(cls: type, value: Any) -> Any:
        return view(value) if isinstance(value, model) else value

    return model_validator(mode="before")(classmethod(_through))  # type: ignore[arg-type]


def wire(model: Output) -> dict[str, Any]:
    """An output model as the dict the records always were: dates and times as `isoformat()`."""
    plain = _plain(model.model_dump())
    assert isinstance(plain, dict)
    return plain


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dt.date):  # datetime too
        return value.isoformat()
    return value
