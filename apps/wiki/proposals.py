"""Wiki proposals: how agents (and automations) change the handbook. A proposal is never applied
by itself; a person accepts it (it becomes the page's next revision, unless the page moved on
since the proposal's base revision) or rejects it with a reason."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.db.lookup import get_by_id
from apps.core.db.narrowing import narrowed
from apps.wiki import events
from apps.wiki.contracts import WikiProposalReject
from apps.wiki.errors import PageNotFound, ProposalConflict, ProposalNotFound, ProposalNotPending
from apps.wiki.models import COMMENT_MAX, TITLE_MAX, WikiPage, WikiProposal
from apps.wiki.services import (
    add_revision,
    body_text,
    get_page,
    insert_page,
    require_person,
    require_reader,
    slug_from,
)

MAX_PAGE = 100


def _with_relations(qs: QuerySet[WikiProposal]) -> QuerySet[WikiProposal]:
    return qs.select_related(
        "page", "page__current_revision", "base_revision", "proposed_by", "proposed_by_service", "reviewer"
    )


def list_proposals(
    principal: Principal,
    *,
    status: str | None = WikiProposal.Status.PENDING,
    limit: int = 50,
    offset: int = 0,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
    decided: bool = False,
) -> tuple[list[WikiProposal], int]:
    """Pending proposals, oldest first; `decided=True`: accepted and rejected ones, latest
    decision first (the review queue's log). `created_after/before` bound their age."""
    require_reader(principal)
    qs = WikiProposal.objects.all()
    if decided:
        qs = qs.exclude(status=WikiProposal.Status.PENDING)
    elif status:
        qs = qs.filter(status=status)
    qs = narrowed(qs, created_at__gte=created_after, created_at__lt=created_before)
    limit, offset = validation.page(limit, offset, MAX_PAGE)
    order = ("-decided_at", "-id") if decided else ("created_at", "id")
    rows = list(_with_relations(qs).order_by(*order)[offset : offset + limit])
    return rows, qs.count()


def pending_count() -> int:
    return WikiProposal.objects.filter(status=WikiProposal.Status.PENDING).count()


def get_proposal(principal: Principal, proposal_id: Any, *, for_update: bool = False) -> WikiProposal:
    require_reader(principal)
    qs = _with_relations(WikiProposal.objects.all())
    if for_update:
        qs = qs.select_for_update(of=("self",))
    return get_by_id(qs, proposal_id, ProposalNotFound, _("There is no wiki proposal %(id)s."))


@transaction.atomic
def propose_change(
    principal: Principal,
    *,
    slug: str | None = None,
    page_id: Any = None,
    title: str | None = None,
    body: str,
    comment: str = "",
    surface: str = "",
    run_id: str | None = None,
    session_id: str | None = None,
) -> tuple[WikiProposal, bool]:
    """Stage a change to an existing page (by `page_id` or an existing `slug`) or a new page (a
    free `slug`, or one derived from `title`). Returns (proposal, created): the same pending text
    proposed again is stored once, since agents retry."""
    require_reader(principal)
    body = body_text(body)
    comment = validation.text(comment, "comment", max_length=COMMENT_MAX)
    page = _target_page(principal, slug, page_id)
    if page is not None:
        new_title = (
            validation.text(title, "title", max_length=TITLE_MAX, required=True) if title else page.title
        )
        if (new_title, body) == (page.title, page.body):
            raise validation.invalid(
                "body", _("is the same as the current page; there is nothing to propose")
            )
        target = {"page": page, "slug": page.slug}
    else:
        new_title = validation.text(title, "title", max_length=TITLE_MAX, required=True)
        if not body:
            raise validation.invalid("body", _("a new page needs some text"))
        target = {"page": None, "slug": slug_from(slug, "slug") if slug else slug_from(new_title, "title")}
    existing = WikiProposal.objects.filter(
        status=WikiProposal.Status.PENDING, title=new_title, body=body, **target
    ).first()
    if existing is not None:
        return get_proposal(principal, existing.pk), False
    proposal = WikiProposal.objects.create(
        **target,
        base_revision=page.current_revision if page is not None else None,
        title=new_title,
        body=body,
        comment=comment,
        proposed_by=principal.audit_actor,
        proposed_by_service=principal.service,
        surface=surface[:16],
        run_id=(run_id or "")[:64],
        session_id=(session_id or "")[:64],
    )
    events.proposal_changed(proposal, "wiki.proposal.created")
    return get_proposal(principal, proposal.pk), True


def _target_page(principal: Principal, slug: str | None, page_id: Any) -> WikiPage | None:
    if page_id is not None:
        return get_page(principal, page_id=page_id)
    if slug:
        try:
            return get_page(principal, slug=slug)
        except PageNotFound:
            return None
    return None


def _pending(principal: Principal, proposal_id: Any) -> WikiProposal:
    require_reader(principal)
    require_person(principal, _("Only a person can decide on wiki proposals."))
    proposal = get_proposal(principal, proposal_id, for_update=True)
    if proposal.status != WikiProposal.Status.PENDING:
        raise ProposalNotPending(
            _("This proposal was already %(status)s.") % {"status": proposal.get_status_display().lower()}
        )
    return proposal


@transaction.atomic
def accept_proposal(principal: Principal, proposal_id: Any) -> tuple[WikiProposal, WikiPage]:
    """Apply the proposal as the page's next revision, authored by the person who accepted it."""
    proposal = _pending(principal, proposal_id)
    reviewer = principal.user
    note = _("Proposal #%(id)d accepted") % {"id": proposal.pk}
    if proposal.comment:
        note = f"{note}: {proposal.comment}"
    if proposal.page_id is None:
        page = insert_page(slug=proposal.slug, title=proposal.title, body=proposal.body, author=reviewer)
        announce = "wiki.page.created"
    else:
        page = get_page(principal, page_id=proposal.page_id, for_update=True)
        if page.current_revision_id != proposal.base_revision_id:
            raise ProposalConflict(
                _(
                    "The page was changed after this proposal was written (now revision %(n)d). "
                    "Reject it, or edit the page by hand."
                )
                % {"n": page.revision_number},
                details={"proposal_id": proposal.pk, "current_revision": page.revision_number},
            )
        page.title, page.body, page.updated_by = proposal.title, proposal.body, reviewer
        page.save(update_fields=["title", "body", "updated_by", "updated_at"])
        announce = "wiki.page.updated"
    add_revision(page, author=reviewer, comment=note, proposal=proposal)
    proposal.page = page
    _decide(proposal, WikiProposal.Status.ACCEPTED, reviewer)
    page = get_page(principal, page_id=page.pk)
    events.page_changed(page, announce)
    events.proposal_changed(proposal, "wiki.proposal.accepted")
    return proposal, page


@transaction.atomic
def reject_proposal(principal: Principal, proposal_id: Any, data: WikiProposalReject) -> WikiProposal:
    """Reject a pending proposal with the validated reason (`WikiProposalReject`)."""
    proposal = _pending(principal, proposal_id)
    proposal.reason = data.reason
    _decide(proposal, WikiProposal.Status.REJECTED, principal.user)
    events.proposal_changed(proposal, "wiki.proposal.rejected")
    return proposal


def _decide(proposal: WikiProposal, status: str, reviewer) -> None:
    proposal.status, proposal.reviewer, proposal.decided_at = status, reviewer, timezone.now()
    proposal.save(update_fields=["status", "reviewer", "decided_at", "reason", "page"])
