"""The staged calls as a queue of the review page (/pruefen/), declared in `apps.py` under
`review.queues`. Admins decide every person's calls there; every other reviewer sees their own
(everyone else decides on the Freigaben page). Read and decided through `apps.approvals.decisions`."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.approvals import decisions
from apps.core.review_queues import QueueFilter, QueueKind


class StagedCalls(QueueKind):
    key = "approvals"
    label = gettext_lazy("Approvals")
    order = 5
    topic = decisions.TOPIC
    filters = ("age",)
    template = "approvals/review_item.html"
    log_template = "approvals/review_log.html"
    open_to_reviewers = True

    def allowed(self, principal: Principal) -> bool:
        return bool(principal.user is not None and principal.user.is_admin)

    def pending(self, principal, f: QueueFilter, *, limit, offset):
        rows = _window(decisions.pending(principal, everyone=True), f)
        return [{"staged": s} for s in rows[offset : offset + limit]], rows.count()

    def decided(self, principal, f: QueueFilter, *, limit, offset):
        rows = _window(decisions.decided(principal, everyone=True), f)
        return [{"staged": s} for s in rows[offset : offset + limit]], rows.count()

    def count(self, principal) -> int:
        return decisions.pending(principal, everyone=True).count()

    def decide_one(self, principal, item_id, decision, text, note):
        if decision == "approve":
            decisions.approve(principal, item_id)
        elif decision == "reject":
            decisions.deny(principal, item_id)


def _window(rows, f: QueueFilter):
    after, before = f.created_window()
    if after is not None:
        rows = rows.filter(created_at__gte=after)
    if before is not None:
        rows = rows.filter(created_at__lt=before)
    return rows


staged_calls = StagedCalls()
