"""What a review queue is: a kind of item people decide on, read and decided through its own
domain's services. Domains declare their queues (`extends = {"review.queues": [...]}`, dotted
paths of `QueueKind` instances); `apps.review` only hosts them (page, admin, badge). The base
lives here, below every domain, so that a domain can declare a queue without importing the
review app above it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from django.utils import timezone
from pydantic import Field

from apps.core.contracts import Input
from apps.core.errors import DomainError

# An `apps.accounts.principal.Principal` (core imports no app).
Principal = Any

# The extension point `apps.review` owns; a contribution is a `QueueKind` instance.
POINT = "review.queues"

Age = Literal["", "1", "7", "30", "older"]


class QueueFilter(Input):
    """Which items of a queue to show; each queue honours the fields it names in `filters`."""

    kind: str = Field("", max_length=20, description="The queue: memory, conflict, learning, curator, wiki.")
    state: Literal["open", "decided"] = "open"
    scope: Literal["", "shared", "personal"] = ""
    subject: Literal["", "client", "case", "person", "none"] = ""
    source: str = Field("", max_length=20, description="Where the item came from (chat_run, document, …).")
    age: Age = ""
    q: str = Field("", max_length=200)

    def created_window(self, now: datetime | None = None) -> tuple[datetime | None, datetime | None]:
        """(created_after, created_before) for the age filter: the last day/week/month, or older."""
        now = now or timezone.now()
        if self.age == "older":
            return None, now - timedelta(days=30)
        if self.age:
            return now - timedelta(days=int(self.age)), None
        return None, None


@dataclass
class Outcome:
    """What a (bulk) decision did: the ids decided and, per refused id, the domain's message."""

    decided: list[int] = field(default_factory=list)
    refused: list[tuple[int, str]] = field(default_factory=list)


class QueueKind(ABC):
    key: str  # unique across the queues; the page's `kind` parameter
    label: Any  # lazy translation
    # Tabs are sorted by it (lower first), whatever the order of INSTALLED_APPS.
    order: int = 100
    # Refresh topic (prefix) of the domain's live events: open queues and the badge refetch on it.
    topic: str
    decisions: tuple[str, ...] = ("approve", "reject")
    # Which of QueueFilter's fields this queue honours (the page shows only those).
    filters: tuple[str, ...] = ()
    # The choices of `source` in this queue, (value, label).
    sources: tuple[tuple[str, Any], ...] = ()
    template: str  # one open item
    log_template: str  # one decided item (the audit: who, when, before → after)
    # Counted in the navigation badge (a curator's decisions stand, nothing waits on them).
    waiting: bool = True
    # Shown to everyone who may review any other queue, without a permission of its own (wiki
    # proposals: the reviewers of memory and learning decide on them too).
    open_to_reviewers: bool = False

    def allowed(self, principal: Principal) -> bool:
        """Whether the principal may see and decide this queue by a right of its own."""
        return False

    @abstractmethod
    def pending(
        self, principal: Principal, f: QueueFilter, *, limit: int, offset: int
    ) -> tuple[list[Any], int]:
        """The open items (template context dicts or rows) and their total."""

    @abstractmethod
    def decided(
        self, principal: Principal, f: QueueFilter, *, limit: int, offset: int
    ) -> tuple[list[Any], int]:
        """The decided items (the domain's audit records) and their total."""

    def count(self, principal: Principal) -> int:
        return self.pending(principal, QueueFilter(kind=self.key), limit=1, offset=0)[1]

    @abstractmethod
    def decide_one(
        self, principal: Principal, item_id: int, decision: str, text: str | None, note: str
    ) -> None:
        """Decide one item through its domain's service (a DomainError refuses it)."""

    def decide(
        self, principal: Principal, ids: list[int], decision: str, *, text: str | None, note: str
    ) -> Outcome:
        """Each item on its own: one refused (decided meanwhile, moved on) does not undo the others."""
        outcome = Outcome()
        for item_id in dict.fromkeys(ids):
            try:
                self.decide_one(principal, item_id, decision, text, note)
            except DomainError as exc:
                outcome.refused.append((item_id, exc.message))
            else:
                outcome.decided.append(item_id)
        return outcome
