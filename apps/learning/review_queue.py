"""Learning's review queues, hosted by `apps.review` (declared in `apps.py` under
`review.queues`): staged facts and procedures (corrections and conflicts beside the active fact
they would replace), and the curator's decisions, which a person may revert."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.core.inputs import build
from apps.core.review_queues import QueueFilter, QueueKind
from apps.learning import services as learning
from apps.learning.contracts import LearningQueue, LearningReview
from apps.learning.models import LearningDecision, LearningObject


class LearningObjects(QueueKind):
    key = "learning"
    label = gettext_lazy("Learning")
    order = 30
    topic = "learning.review"
    decisions = ("approve", "reject", "edit")
    filters = ("q", "source", "age")
    sources = tuple(LearningObject.Kind.choices)
    template = "review/kinds/learning.html"
    log_template = "review/kinds/learning_log.html"

    def allowed(self, principal: Principal) -> bool:
        return learning.can_review(principal)

    def pending(self, principal, f: QueueFilter, *, limit, offset):
        after, before = f.created_window()
        queue = build(
            LearningQueue,
            kind=f.source or None,
            query=f.q or None,
            created_after=after,
            created_before=before,
            limit=limit,
            offset=offset,
        )
        return learning.reviewable(principal, queue)

    def decided(self, principal, f: QueueFilter, *, limit, offset):
        return learning.decisions(principal, actor=LearningDecision.Actor.PERSON, limit=limit, offset=offset)

    def count(self, principal) -> int:
        return learning.pending_count()

    def decide_one(self, principal, item_id, decision, text, note):
        text = text if decision == "edit" else None
        learning.review(
            principal, build(LearningReview, object_id=item_id, decision=decision, text=text, note=note)
        )


class CuratorDecisions(QueueKind):
    """What the curator decided on its own: stands unless a person reverts it."""

    key = "curator"
    label = gettext_lazy("Curator decisions")
    order = 40
    topic = "learning.review"
    decisions = ("revert",)
    template = "review/kinds/curator.html"
    log_template = "review/kinds/learning_log.html"
    waiting = False

    def allowed(self, principal: Principal) -> bool:
        return learning.can_review(principal)

    def pending(self, principal, f: QueueFilter, *, limit, offset):
        return learning.decisions(
            principal,
            actor=LearningDecision.Actor.CURATOR,
            include_reverted=False,
            limit=limit,
            offset=offset,
        )

    def decided(self, principal, f: QueueFilter, *, limit, offset):
        return learning.decisions(principal, actor=LearningDecision.Actor.CURATOR, limit=limit, offset=offset)

    def decide_one(self, principal, item_id, decision, text, note):
        learning.revert_decision(principal, item_id)


objects = LearningObjects()
curator = CuratorDecisions()
