"""The only writer of learning objects and their decisions.

People decide through `review`, `bulk_review` and `revert_decision` (pages and admin of the review
app); the jobs write through `propose` (extraction) and `curate` (curator). Every change of an
object is one `LearningDecision` with before → after, and one live event for open review queues.
Reading for the agent (`visible_objects`, `search_objects`, `get_object`) returns active objects
only.
"""

from __future__ import annotations

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import transaction
from django.db.models import F, Prefetch, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.accounts.services import require_office_admin
from apps.core import validation
from apps.core.db.lookup import get_by_id
from apps.core.db.narrowing import narrowed
from apps.core.db.saving import save_unique
from apps.core.db.search import WORD
from apps.core.errors import DomainError, Forbidden
from apps.learning import events
from apps.learning.contracts import (
    LearningBulkReview,
    LearningProposal,
    LearningQueue,
    LearningReview,
    LearningSettingsSave,
)
from apps.learning.errors import (
    AlreadyReverted,
    LearningDecisionNotFound,
    LearningObjectNotFound,
    NotReviewable,
)
from apps.learning.models import (
    NOTE_MAX,
    TEXT_MAX,
    LearningDecision,
    LearningEvidence,
    LearningObject,
    LearningSettings,
    content_hash,
)
from apps.llm.selection import offered_models

MAX_PAGE = 200
EVIDENCE_KEPT = 20  # per object: a fact confirmed in every chat does not grow without bound
REVIEW_EVIDENCE = 3  # quotes shown per object in the review queue

Status = LearningObject.Status
Decision = LearningDecision.Decision
Actor = LearningDecision.Actor


# --- who may do what --------------------------------------------------------------------------
def can_review(principal: Principal) -> bool:
    user = principal.user
    return bool(user is not None and (user.is_admin or user.has_perm("learning.review_learningobject")))


def require_reviewer(principal: Principal) -> None:
    if not can_review(principal):
        raise Forbidden(_("Only staff allowed to review learning may decide on it."))


def _require_reader(principal: Principal) -> None:
    service = principal.service
    if service is not None and service.kind == service.Kind.PUBLIC_EMBED:
        raise Forbidden(_("Office knowledge is not available here."))


# --- reading for the agent: active objects only -----------------------------------------------
def visible_objects(principal: Principal) -> QuerySet[LearningObject]:
    """What a model may see: active objects (learning is office-wide, shared knowledge)."""
    _require_reader(principal)
    return LearningObject.objects.filter(status=Status.ACTIVE)


def _any_words(text: str) -> SearchQuery | None:
    words = [w.strip("-") for w in WORD.findall((text or "").lower()) if w.strip("-")]
    if not words:
        return None
    return SearchQuery(" | ".join(f"{w}:*" for w in words[:12]), search_type="raw", config="german")


def ranked(qs: QuerySet[LearningObject], text: str | None) -> QuerySet[LearningObject]:
    """Best match first (any word may match); without words, the most recently changed first."""
    query = _any_words(text or "")
    if query is None:
        return qs.order_by("-updated_at", "-id")
    return (
        qs.filter(search=query).annotate(rank=SearchRank(F("search"), query)).order_by("-rank", "-updated_at")
    )


def search_objects(
    principal: Principal,
    query: str | None = None,
    *,
    kind: str | None = None,
    limit: int = 10,
    offset: int = 0,
) -> tuple[list[LearningObject], int]:
    qs = visible_objects(principal)
    if kind:
        qs = qs.filter(kind=kind)
    qs = ranked(qs, query)
    limit, offset = validation.page(limit, offset, 50)
    return list(qs[offset : offset + limit]), qs.count()


def snapshot(obj: LearningObject) -> dict:
    """What a decision's before/after keeps: enough to put the object back."""
    return {"status": obj.status, "text": obj.text, "staged_reason": obj.staged_reason}


def parse_object_id(value: str | int) -> str:
    text = str(value or "").strip()
    return text.removeprefix("learning:")


def readable_evidence(principal: Principal, obj: LearningObject) -> QuerySet[LearningEvidence]:
    """The evidence of `obj` this principal may read. A quote and its run come from one person's
    chat, which may be private: only reviewers (who decide on it) and the owner of that chat see
    them; everyone else sees the fact alone."""
    evidence = obj.evidence.all()
    if can_review(principal):
        return evidence
    user = principal.user
    if user is None:
        return evidence.none()
    return evidence.filter(run__session__user=user)


def get_object(principal: Principal, object_id: str | int) -> tuple[LearningObject, list[LearningEvidence]]:
    """One active object with the latest evidence the principal may read (the agent's
    `learning_get_object`, `context_get("learning:<id>")`)."""
    obj = get_by_id(
        visible_objects(principal),
        parse_object_id(object_id),
        LearningObjectNotFound,
        _("There is no learning object %(id)s."),
    )
    return obj, list(readable_evidence(principal, obj)[:5])


# --- the review queue -------------------------------------------------------------------------
def reviewable(
    principal: Principal, filters: LearningQueue | None = None
) -> tuple[list[LearningObject], int]:
    """Objects a reviewer looks at (staged by default; any status when `status` is None), each
    with its latest evidence as `latest_evidence` (at most REVIEW_EVIDENCE, one query for all)."""
    require_reviewer(principal)
    f = filters if filters is not None else LearningQueue()
    latest = LearningEvidence.objects.order_by("-created_at", "-id")[:REVIEW_EVIDENCE]
    qs = LearningObject.objects.select_related("conflicts_with", "decided_by").prefetch_related(
        Prefetch("evidence", queryset=latest, to_attr="latest_evidence")
    )
    qs = narrowed(qs, created_at__gte=f.created_after, created_at__lt=f.created_before)
    qs = narrowed(qs, status=f.status, kind=f.kind, staged_reason=f.staged_reason)
    qs = ranked(qs, f.query) if f.query else qs.order_by("created_at", "id")
    return list(qs[f.offset : f.offset + f.limit]), qs.count()


def pending_count() -> int:
    """For the navigation badge: objects waiting for a person."""
    return LearningObject.objects.filter(status=Status.STAGED).count()


def get_for_review(principal: Principal, object_id: int) -> tuple[LearningObject, list[LearningEvidence]]:
    require_reviewer(principal)
    obj = get_by_id(
        LearningObject.objects.select_related("conflicts_with", "decided_by"),
        object_id,
        LearningObjectNotFound,
        _("There is no learning object %(id)s."),
    )
    return obj, list(obj.evidence.select_related("run").all()[:EVIDENCE_KEPT])


def decisions(
    principal: Principal,
    *,
    actor: str | None = None,
    object_id: int | None = None,
    include_reverted: bool = True,
    limit: int = 50,
    offset: int = 0,
) -> tuple[list[LearningDecision], int]:
    """The audit trail, newest first: the curator's decisions are what a reviewer checks."""
    require_reviewer(principal)
    qs = LearningDecision.objects.select_related("learning_object", "decided_by", "reverted_by")
    qs = narrowed(qs, actor=actor, learning_object_id=object_id)
    if not include_reverted:
        qs = qs.filter(reverted_at__isnull=True)
    limit, offset = validation.page(limit, offset, MAX_PAGE)
    return list(qs.order_by("-created_at", "-id")[offset : offset + limit]), qs.count()


# --- people decide ----------------------------------------------------------------------------
def _lock(object_id: int) -> LearningObject:
    return get_by_id(
        LearningObject.objects.select_for_update(),
        object_id,
        LearningObjectNotFound,
        _("There is no learning object %(id)s."),
    )


def _activate(obj: LearningObject) -> None:
    """Make `obj` the active one; refused when the same text is already active (a duplicate)."""
    twin = (
        LearningObject.objects.filter(status=Status.ACTIVE, content_hash=obj.content_hash)
        .exclude(pk=obj.pk)
        .first()
    )
    if twin is not None:
        raise NotReviewable(
            _("The same text is already active as learning object %(id)s.") % {"id": twin.pk},
            details={"duplicate_of": twin.pk},
        )
    obj.status, obj.staged_reason = Status.ACTIVE, ""


def _record(
    obj: LearningObject,
    decision: str,
    actor: str,
    before: dict,
    *,
    user=None,
    reason: str = "",
    note: str = "",
    confidence: float | None = None,
    model_label: str = "",
    extra_after: dict | None = None,
) -> LearningDecision:
    return LearningDecision.objects.create(
        learning_object=obj,
        decision=decision,
        actor=actor,
        decided_by=user,
        reason=reason,
        note=note[:NOTE_MAX],
        confidence=confidence,
        model_label=model_label[:300],
        before=before,
        after=snapshot(obj) | (extra_after or {}),
    )


def _save(obj: LearningObject) -> None:
    # the partial unique index: a concurrent twin may have gone active first
    save_unique(obj, lambda: NotReviewable(_("The same text was just activated by someone else.")))


@transaction.atomic
def review(principal: Principal, data: LearningReview) -> LearningObject:
    """approve (staged or rejected → active), reject (staged or active → rejected), or edit (new
    text, then active). Approving a correction retires the fact it corrects. A person's decision
    counts as checked: the curator does not second-guess it."""
    require_reviewer(principal)
    decision = data.decision
    obj = _lock(data.object_id)
    before = snapshot(obj)
    retired: LearningObject | None = None
    if decision == "reject":
        if obj.status not in (Status.STAGED, Status.ACTIVE):
            raise _not_reviewable(obj)
        obj.status = Status.REJECTED
        kind = Decision.REJECT
    elif decision in ("approve", "edit"):
        if decision == "edit":
            # The contract leaves text optional: only an edit needs it.
            obj.text = validation.text(data.text, "text", max_length=TEXT_MAX, required=True)
            obj.content_hash = content_hash(obj.kind, obj.text)
            kind = Decision.EDIT
        else:
            if obj.status not in (Status.STAGED, Status.REJECTED):
                raise _not_reviewable(obj)
            kind = Decision.APPROVE
        if obj.status != Status.ACTIVE or decision == "edit":
            retired = _retire_corrected(obj, principal.user)
            _activate(obj)
    now = timezone.now()
    obj.decided_by, obj.decided_at = principal.user, now
    obj.checked_at, obj.checked_hash = now, obj.content_hash
    _save(obj)
    extra = {"retired": retired.pk} if retired is not None else None
    row = _record(obj, kind, Actor.PERSON, before, user=principal.user, note=data.note, extra_after=extra)
    events.object_changed(obj, row.decision)
    return obj


def _retire_corrected(obj: LearningObject, user) -> LearningObject | None:
    """The active fact a correction or conflict replaces, retired (and audited) before `obj`
    becomes active."""
    old_id = obj.conflicts_with_id
    if old_id is None:
        return None
    old = LearningObject.objects.select_for_update().filter(pk=old_id, status=Status.ACTIVE).first()
    if old is None:
        return None
    before = snapshot(old)
    old.status = Status.RETIRED
    old.save(update_fields=["status", "updated_at"])
    _record(
        old, Decision.RETIRE, Actor.PERSON, before, user=user, note=_("Replaced by #%(id)d") % {"id": obj.pk}
    )
    events.object_changed(old, Decision.RETIRE)
    return old


def _not_reviewable(obj: LearningObject) -> NotReviewable:
    return NotReviewable(
        _("This learning object is already %(status)s.") % {"status": obj.get_status_display().lower()},
        details={"status": obj.status},
    )


def bulk_review(principal: Principal, data: LearningBulkReview) -> dict:
    """approve or reject many; each object is decided on its own (one refused does not undo the
    others). Answers {"decided": [ids], "refused": [{"id", "code", "message"}]}."""
    require_reviewer(principal)
    decided, refused = [], []
    for object_id in dict.fromkeys(data.object_ids):
        try:
            review(principal, LearningReview(object_id=object_id, decision=data.decision, note=data.note))
        except DomainError as exc:
            refused.append({"id": object_id, "code": exc.code, "message": exc.message})
        else:
            decided.append(object_id)
    return {"decided": decided, "refused": refused}


@transaction.atomic
def revert_decision(principal: Principal, decision_id: int) -> LearningDecision:
    """Put the object back as it was before the decision (only its latest decision can be
    reverted, and only once). The revert is itself a decision; the object counts as checked, so
    the curator does not take the same decision again."""
    require_reviewer(principal)
    row = get_by_id(
        LearningDecision.objects.select_for_update().select_related("learning_object"),
        decision_id,
        LearningDecisionNotFound,
        _("There is no learning decision %(id)s."),
    )
    if row.reverted_at is not None:
        raise AlreadyReverted(_("This decision was already reverted."))
    obj = _lock(row.learning_object_id)
    latest = obj.decisions.filter(reverted_at__isnull=True).order_by("-created_at", "-id").first()
    if latest is None or latest.pk != row.pk:
        raise AlreadyReverted(_("A later decision on this object came after it; revert that one first."))
    before = snapshot(obj)
    wanted = row.before or {}
    obj.text = wanted.get("text", obj.text)
    obj.content_hash = content_hash(obj.kind, obj.text)
    obj.staged_reason = wanted.get("staged_reason", "")
    # Before the extraction's first decision the object did not exist: undone, a person decides.
    obj.status = wanted.get("status") or Status.STAGED
    if obj.status == Status.STAGED and not obj.staged_reason:
        obj.staged_reason = LearningObject.StagedReason.UNCERTAIN
    if obj.status == Status.ACTIVE:
        _activate(obj)
    now = timezone.now()
    obj.decided_by, obj.decided_at = principal.user, now
    obj.checked_at, obj.checked_hash = now, obj.content_hash
    _save(obj)
    _restore_retired((row.after or {}).get("retired"), principal)
    row.reverted_by, row.reverted_at = principal.user, now
    row.save(update_fields=["reverted_by", "reverted_at"])
    note = _("Reverted decision #%(id)d") % {"id": row.pk}
    _record(obj, Decision.REVERT, Actor.PERSON, before, user=principal.user, note=note)
    events.object_changed(obj, Decision.REVERT)
    return row


def _restore_retired(old_id: int | None, principal: Principal) -> None:
    if not old_id:
        return
    old = LearningObject.objects.select_for_update().filter(pk=old_id, status=Status.RETIRED).first()
    if old is None:
        return
    before = snapshot(old)
    _activate(old)
    _save(old)
    _record(old, Decision.REVERT, Actor.PERSON, before, user=principal.user, note=_("Restored by a revert"))
    events.object_changed(old, Decision.REVERT)


# --- the jobs write ---------------------------------------------------------------------------
@transaction.atomic
def propose(data: LearningProposal) -> tuple[LearningObject, str]:
    """One proposal of the extraction job. Answers (object, what happened): "confirmed" (the same
    text is already active: one more evidence), "activated" (a safe, new, non-conflicting fact),
    or "staged" (a correction, a conflict with an active fact on the same subject, a procedure,
    anything unsafe or uncertain: a person decides)."""
    kind, text, subject, quote, run_id = data.kind, data.text, data.subject.lower(), data.quote, data.run_id
    confidence, model_label = data.confidence, data.model_label
    digest = content_hash(kind, text)
    same = (
        LearningObject.objects.select_for_update()
        .filter(content_hash=digest)
        .exclude(status=Status.RETIRED)
        .order_by("-status")
    )  # "staged" > "rejected" > "active": a decided twin is reused first
    twin = next((o for o in same if o.status == Status.ACTIVE), None) or next(iter(same), None)
    if twin is not None:
        _add_evidence(twin, run_id, quote)
        LearningObject.objects.filter(pk=twin.pk).update(confirmations=F("confirmations") + 1)
        if twin.status == Status.ACTIVE:
            _record(twin, Decision.CONFIRM, Actor.EXTRACTION, snapshot(twin), model_label=model_label)
        return twin, "confirmed"
    conflict = _conflicting(kind, subject, digest)
    reason = _staged_reason(kind, data.correction, data.unsafe, conflict, confidence)
    obj = LearningObject(
        kind=kind,
        text=text,
        subject=subject,
        content_hash=digest,
        confidence=confidence,
        conflicts_with=conflict,
        origin=LearningObject.Origin.EXTRACTION,
        status=Status.STAGED if reason else Status.ACTIVE,
        staged_reason=reason,
    )
    before = {"status": "", "text": "", "staged_reason": ""}
    _save(obj)
    _add_evidence(obj, run_id, quote)
    decision = Decision.STAGE if reason else Decision.ACTIVATE
    _record(obj, decision, Actor.EXTRACTION, before, confidence=confidence, model_label=model_label)
    events.object_changed(obj, decision)
    return obj, "staged" if reason else "activated"


ACTIVATE_CONFIDENCE = 0.8


def _staged_reason(kind, correction, unsafe, conflict, confidence) -> str:
    R = LearningObject.StagedReason
    if unsafe:
        return R.UNSAFE
    if correction:
        return R.CORRECTION
    if conflict is not None:
        return R.CONFLICT
    if kind == LearningObject.Kind.PROCEDURE_PROPOSAL:
        return R.PROCEDURE
    if confidence is None or confidence < ACTIVATE_CONFIDENCE:
        return R.UNCERTAIN
    return ""


def _conflicting(kind: str, subject: str, digest: str) -> LearningObject | None:
    """An active object of the same kind and subject with another text."""
    if not subject:
        return None
    return (
        LearningObject.objects.filter(status=Status.ACTIVE, kind=kind, subject=subject)
        .exclude(content_hash=digest)
        .order_by("-updated_at")
        .first()
    )


def _add_evidence(obj: LearningObject, run_id: int | None, quote: str) -> None:
    LearningEvidence.objects.create(learning_object=obj, run_id=run_id, quote=quote)
    stale = list(obj.evidence.order_by("-created_at", "-id").values_list("id", flat=True)[EVIDENCE_KEPT:])
    if stale:
        LearningEvidence.objects.filter(pk__in=stale).delete()


def needing_check() -> QuerySet[LearningObject]:
    """What the curator reviews: active facts never checked, or changed since their check."""
    return LearningObject.objects.filter(
        Q(checked_at__isnull=True) | ~Q(checked_hash=F("content_hash")),
        status=Status.ACTIVE,
        kind=LearningObject.Kind.DURABLE_FACT,
    ).order_by("created_at", "id")


@transaction.atomic
def curate(
    object_id: int, *, reject: bool, reason: str, confidence: float | None, note: str, model_label: str
) -> LearningDecision | None:
    """The curator's decision on one object: reject (the caller validated it) or keep. Marks the
    object checked either way. None when the object changed under the curator (checked later)."""
    obj = LearningObject.objects.select_for_update().filter(pk=object_id, status=Status.ACTIVE).first()
    if obj is None:
        return None
    before = snapshot(obj)
    if reject:
        obj.status = Status.REJECTED
    obj.checked_at, obj.checked_hash = timezone.now(), obj.content_hash
    obj.save(update_fields=["status", "checked_at", "checked_hash", "updated_at"])
    row = _record(
        obj,
        Decision.REJECT if reject else Decision.KEEP,
        Actor.CURATOR,
        before,
        reason=reason,
        note=note,
        confidence=confidence,
        model_label=model_label,
    )
    if reject:
        events.object_changed(obj, Decision.REJECT)
    return row


# --- the jobs' models (admin only) -----------------------------------------------------------------
@transaction.atomic
def save_settings(principal: Principal, data: LearningSettingsSave) -> LearningSettings:
    """The one settings row: a chosen model must be one users may pick (enabled provider, probe
    not failed), else `invalid_input` on its field."""
    require_office_admin(principal)
    for field in ("extraction_model_id", "curator_model_id"):
        chosen = getattr(data, field)
        if chosen is not None and not offered_models().filter(pk=chosen).exists():
            raise validation.invalid(
                field, _("is not a model that may be used (enabled provider, probe not failed)")
            )
    row = LearningSettings.current()
    row.enabled, row.extraction_model_id, row.curator_model_id = (
        data.enabled,
        data.extraction_model_id,
        data.curator_model_id,
    )
    row.save()
    return row
