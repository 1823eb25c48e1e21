"""What every queue of the review page is: a kind of item people decide on, read and decided
through its own domain's services. The page, the admin and the badge only talk to this."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from apps.accounts.principal import Principal
from apps.core.errors import DomainError
from apps.review.contracts import QueueFilter


@dataclass
class Outcome:
    """What a (bulk) decision did: the ids decided and, per refused id, the domain's message."""

    decided: list[int] = field(default_factory=list)
    refused: list[tuple[int, str]] = field(default_factory=list)


class QueueKind(ABC):
    key: str
    label: Any  # lazy translation
    # Refresh topic (prefix) of the domain's live events: open queues refetch on it.
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

    @abstractmethod
    def allowed(self, principal: Principal) -> bool:
        """Whether the principal may see and decide this queue."""

    @abstractmethod
    def pending(self, principal: Principal, f: QueueFilter, *, limit: int, offset: int) -> tuple[list, int]:
        """The open items (template context dicts or rows) and their total."""

    @abstractmethod
    def decided(self, principal: Principal, f: QueueFilter, *, limit: int, offset: int) -> tuple[list, int]:
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
