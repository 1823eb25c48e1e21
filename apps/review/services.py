"""The review queue's decisions: the reviewer is checked here, each item is decided by its own
domain's service (which audits it: who, when, before → after), and the outcome is reported.

The queues are declared by the domains that own their items (`extends = {"review.queues":
["apps.memory.review_queue.pending", …]}`, `QueueKind` instances from `apps.core.review_queues`);
this app only hosts them: it names no domain."""

from __future__ import annotations

from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.core import plugins
from apps.core.review_queues import POINT, Outcome, QueueKind
from apps.review.contracts import Decide
from apps.review.errors import DecisionNotOffered, NotAReviewer, UnknownQueue


def queues() -> tuple[QueueKind, ...]:
    """Every declared queue, in the order of the page's tabs."""
    return tuple(sorted(plugins.contributions(POINT), key=lambda kind: kind.order))


def queue_topics() -> tuple[str, ...]:
    """The refresh topics the navigation badge listens to: every queue's."""
    return tuple(dict.fromkeys(kind.topic for kind in queues()))


def kinds_for(principal: Principal) -> list[QueueKind]:
    """The queues this principal may look at: those it has a right to, and then the ones open to
    every reviewer (none: not a reviewer)."""
    all_queues = queues()
    own = [kind for kind in all_queues if kind.allowed(principal)]
    if not own:
        return []
    return [kind for kind in all_queues if kind in own or kind.open_to_reviewers]


def require_reviewer(principal: Principal) -> list[QueueKind]:
    kinds = kinds_for(principal)
    if not kinds:
        raise NotAReviewer(_("Only staff allowed to review may see and decide in the review queue."))
    return kinds


def kind_for(principal: Principal, key: str) -> QueueKind:
    kinds = require_reviewer(principal)
    kind = next((k for k in queues() if k.key == key), None)
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
