"""The queues of the review page, in the order of its tabs."""

from __future__ import annotations

from apps.review.kinds.base import Outcome, QueueKind
from apps.review.kinds.learning import CuratorDecisions, LearningObjects
from apps.review.kinds.memory import MemoryConflicts, PendingMemories
from apps.review.kinds.wiki import WikiProposals

KINDS: tuple[QueueKind, ...] = (
    PendingMemories(),
    MemoryConflicts(),
    LearningObjects(),
    CuratorDecisions(),
    WikiProposals(),
)
BY_KEY = {kind.key: kind for kind in KINDS}

__all__ = ["BY_KEY", "KINDS", "Outcome", "QueueKind"]
