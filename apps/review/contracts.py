"""The review queue's two operations, shared by the staff page and the admin: which items to
show (`QueueFilter`) and what was decided about which of them (`Decide`)."""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

from django.utils import timezone
from pydantic import Field

from apps.core.contracts import Input

NOTE_MAX = 1000
TEXT_MAX = 2000
BULK_MAX = 100

Age = Literal["", "1", "7", "30", "older"]
Decision = Literal["approve", "reject", "edit", "revert"]


class QueueFilter(Input):
    kind: str = Field("", max_length=20, description="The queue: memory, conflict, learning, curator, wiki.")
    state: Literal["open", "decided"] = "open"
    scope: Literal["", "shared", "personal"] = ""
    subject: Literal["", "client", "case", "person", "none"] = ""
    source: str = Field("", max_length=20, description="Where the item came from (chat_run, document, …).")
    age: Age = ""
    q: str = Field("", max_length=200)

    def created_window(self, now=None):
        """(created_after, created_before) for the age filter: the last day/week/month, or older."""
        now = now or timezone.now()
        if self.age == "older":
            return None, now - timedelta(days=30)
        if self.age:
            return now - timedelta(days=int(self.age)), None
        return None, None


class Decide(Input):
    kind: str = Field(max_length=20)
    ids: list[int] = Field(min_length=1, max_length=BULK_MAX)
    decision: Decision
    # edit-then-approve: the corrected text; a rejection's reason or any decision's note.
    text: str | None = Field(None, max_length=TEXT_MAX)
    note: str = Field("", max_length=NOTE_MAX)
