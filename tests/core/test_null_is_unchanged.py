"""`apps.core.contracts.NullIsUnchanged`: a tool's change form (its strict schema sends every
field) treats null as "unchanged", so only the fields really sent count as set."""

from __future__ import annotations

from apps.core.contracts import Input, NullIsUnchanged


class Change(Input):
    name: str | None = None
    size: int | None = None


class ChangeById(NullIsUnchanged, Change):
    item_id: int


def test_nulls_leave_the_fields_set():
    change = ChangeById.model_validate({"item_id": 1, "name": None, "size": 3})
    assert change.model_fields_set == {"item_id", "size"}


def test_the_plain_form_keeps_an_explicit_null():
    assert Change.model_validate({"name": None}).model_fields_set == {"name"}
