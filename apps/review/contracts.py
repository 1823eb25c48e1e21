"""The review queue's two operations, shared by the staff page and the admin: which items to
show (`QueueFilter`) and what was decided about which of them (`Decide`). The filter is `apps.core.review_queues`'s,
which the domains declaring queues read too."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from apps.core.contracts import Input
from apps.core.review_queues import QueueFilter

NOTE_MAX = 1000
TEXT_MAX = 2000
BULK_MAX = 100

__all__ = ["Decide", "QueueFilter"]

Decision = Literal["approve", "reject", "edit", "revert"]


class Decide(Input):
    kind: str = Field(max_length=20)
    ids: list[int] = Field(min_length=1, max_length=BULK_MAX)
    decision: Decision
    # edit-then-approve: the corrected text; a rejection's reason or any decision's note.
    text: str | None = Field(None, max_length=TEXT_MAX)
    note: str = Field("", max_length=NOTE_MAX)
