"""The review queue's two operations, shared by the staff page and the admin: which items to
show (`QueueFilter`) and what was decided about which of them (`Decide`). The filter is `apps.core.review_queues`'s,
which the domains declaring queues read too."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from apps.core.contracts import Input
from apps.core.review_queues import QueueFilter

NOTE_MAX = 1000
TEXT_MAX = 2000
BULK_MAX = 100

__all__ = ["Decide", "DecidePosted", "QueueFilter"]

Decision = Literal["approve", "reject", "edit", "revert"]


class Decide(Input):
    kind: str = Field(max_length=20)
    ids: list[int] = Field(min_length=1, max_length=BULK_MAX)
    decision: Decision
    # edit-then-approve: the corrected text; a rejection's reason or any decision's note.
    text: str | None = Field(None, max_length=TEXT_MAX)
    note: str = Field("", max_length=NOTE_MAX)


class DecidePosted(Decide):
    """The decision form of the staff page and the admin: a form without the queue's kind sends
    "" (the service refuses it), and the text counts only for edit-then-approve."""

    kind: str = Field("", max_length=20)

    @model_validator(mode="before")
    @classmethod
    def _text_only_for_edit(cls, values: Any) -> Any:
        if isinstance(values, dict) and values.get("decision") != "edit":
            return {**values, "text": None}
        return values
