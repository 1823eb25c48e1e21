"""Live events of learning: learning is office knowledge, so every event is one all-users row;
open review queues refetch (refresh_topic), the highlight carries the spoken notice."""

from __future__ import annotations

from apps.learning.models import LearningObject
from apps.mutations import actions
from apps.mutations.audience import EVERYONE, send

TOPIC = "learning.object.updated"
REVIEW_TOPIC = "learning.review"

# decision → announce key (declared in apps.py)
ANNOUNCE = {
    "activate": "learning.object.activated",
    "stage": "learning.object.staged",
    "approve": "learning.object.approved",
    "edit": "learning.object.approved",
    "reject": "learning.object.rejected",
    "retire": "learning.object.retired",
    "revert": "learning.decision.reverted",
}


def object_changed(obj: LearningObject, decision: str) -> None:
    key = ANNOUNCE.get(decision, "learning.object.staged")
    action = actions.highlight(f"learning-{obj.pk}") | {"announce_key": key}
    send(EVERYONE, TOPIC, [action], refresh_topic=REVIEW_TOPIC)
