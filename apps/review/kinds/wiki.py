"""Wiki proposals: what the copilot suggests for the handbook, accepted or rejected by a person."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.core import validation
from apps.review import access
from apps.review.contracts import QueueFilter
from apps.review.kinds.base import QueueKind
from apps.wiki import proposals
from apps.wiki.diff import diff_lines, proposal_review


class WikiProposals(QueueKind):
    key = "wiki"
    label = gettext_lazy("Wiki proposals")
    topic = "wiki.proposals"
    filters = ("age",)
    template = "review/kinds/wiki.html"
    log_template = "review/kinds/wiki_log.html"

    def allowed(self, principal: Principal) -> bool:
        return access.is_reviewer(principal)

    def pending(self, principal, f: QueueFilter, *, limit, offset):
        after, before = f.created_window()
        rows, total = proposals.list_proposals(
            principal, limit=limit, offset=offset, created_after=after, created_before=before
        )
        return [proposal_review(p) for p in rows], total

    def decided(self, principal, f: QueueFilter, *, limit, offset):
        after, before = f.created_window()
        rows, total = proposals.list_proposals(
            principal, decided=True, limit=limit, offset=offset, created_after=after, created_before=before
        )
        # The audit's before → after: the revision it was written against → what was proposed.
        return [{"proposal": p, "diff": diff_lines(_base_body(p), p.body)} for p in rows], total

    def count(self, principal) -> int:
        return proposals.pending_count()

    def decide_one(self, principal, item_id, decision, text, note):
        if decision == "approve":
            proposals.accept_proposal(principal, item_id)
        elif decision == "reject":
            reason = note or text or ""
            if not reason.strip():
                raise validation.invalid("note", _("Please give a reason for the rejection."))
            proposals.reject_proposal(principal, item_id, reason=reason)


def _base_body(proposal) -> str:
    return proposal.base_revision.body if proposal.base_revision is not None else ""
