"""The review queue's decisions: the reviewer is checked here, each item is decided by its own
domain's service (which audits it: who, when, before → after), and the outcome is reported."""

from __future__ import annotations

from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.review import access
from apps.review.contracts import Decide
from apps.review.errors import DecisionNotOffered, NotAReviewer, UnknownQueue
from apps.review.kinds import BY_KEY, KINDS, Outcome, QueueKind


def kinds_for(principal: Principal) -> list[QueueKind]:
    """The queues this principal may look at (none: not a reviewer)."""
    if not access.is_reviewer(principal):
        return []
    return [kind for kind in KINDS if kind.allowed(principal)]


def require_reviewer(principal: Principal) -> list[QueueKind]:
    kinds = kinds_for(principal)
    if not kinds:
        raise NotAReviewer(_("Only staff allowed to review may see and decide in the review queue."))
    return kinds


def kind_for(principal: Principal, key: str) -> QueueKind:
    kinds = require_reviewer(principal)
    kind = BY_KEY.get(key)
    if kind is None:
        raise UnknownQueue(_("There is no review queue “%(key)s”.") % {"key": key[:20]})
    if kind not in kinds:
        raise NotAReviewer(_("You may not decide in this review queue."))
    return kind


def waiting_count(user) -> int:
    """The navigation badge: items waiting for this person's decision."""
    if user is None or not user.is_authenticated or not user.is_active:
        return 0
    principal = Principal.for_user(user)
    return sum(kind.count(principal) for kind in kinds_for(principal) if kind.waiting)


def is_reviewer(user) -> bool:
    """The navigation's `visible`: the review entry only for reviewers."""
    return bool(user is not None and user.is_authenticated and kinds_for(Principal.for_user(user)))


def decide(principal: Principal, data: Decide) -> Outcome:
    kind = kind_for(principal, data.kind)
    if data.decision not in kind.decisions:
        raise DecisionNotOffered(_("This queue does not offer that decision."))
    return kind.decide(principal, data.ids, data.decision, text=data.text, note=data.note)
