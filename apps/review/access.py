"""Who reviews: admins always, and staff with a review permission of memory or learning. The
domains decide item by item; this only decides who sees the queues at all."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.learning import services as learning
from apps.memory import visibility as memory_visibility


def is_reviewer(principal: Principal) -> bool:
    return memory_visibility.can_review_shared(principal) or learning.can_review(principal)
