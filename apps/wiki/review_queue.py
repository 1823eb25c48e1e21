"""Wiki proposals, hosted by `apps.review` (declared in `apps.py` under `review.queues`): what the
copilot suggests for the handbook, accepted or rejected by a person. The wiki has no review right
of its own: whoever reviews another queue decides on proposals too."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.core import validation
from apps.core.inputs import build
from apps.core.review_queues import QueueFilter, QueueKind
from apps.wiki import proposals as wiki
from apps.wiki.contracts import WikiProposalReject
from apps.wiki.diff import diff_lines, proposal_review


class WikiProposals(QueueKind):
    key = "wiki"
    label = gettext_lazy("Wiki proposals")
    order = 50
    topic = "wiki.proposals"
    filters = ("age",)
    template = "review/kinds/wiki.html"
    log_template = "review/kinds/wiki_log.html"
    open_to_reviewers = True

    def pending(self, principal, f: QueueFilter, *, limit, offset):
        after, before = f.created_window()
        rows, total = wiki.list_proposals(
            principal, limit=limit, offset=offset, created_after=after, created_before=before
        )
        return [proposal_review(p) for p in rows], total

    def decided(self, principal, f: QueueFilter, *, limit, offset):
        after, before = f.created_window()
        rows, total = wiki.list_proposals(
            principal, decided=True, limit=limit, offset=offset, created_after=after, created_before=before
        )
        # The audit's before → after: the revision it was written against → what was proposed.
        return [{"proposal": p, "diff": diff_lines(_base_body(p), p.body)} for p in rows], total

    def count(self, principal) -> int:
        return wiki.pending_count()

    def decide_one(self, principal, item_id, decision, text, note):
        if decision == "approve":
            wiki.accept_proposal(principal, item_id)
        elif decision == "reject":
            reason = note or text or ""
            if not reason.strip():
                raise validation.invalid("note", _("Please give a reason for the rejection."))
            wiki.reject_proposal(principal, item_id, build(WikiProposalReject, reason=reason))


def _base_body(proposal) -> str:
    return proposal.base_revision.body if proposal.base_revision is not None else ""


proposals = WikiProposals()
