"""Who reads which memory, resolved once from the principal (and the specialist a run acts as).

* shared memory: every staff user and every service principal;
* personal memory: its one holder only — the user themselves, or, in a specialist's run, that
  specialist (`holder` "user:<id>" / "specialist:<id>"). An admin does not read other people's
  personal memory either; a service principal has no personal memory.

Only *usable* memory is ever handed to a model: approved, not retracted, checked, valid now. A
memory just stored is not usable until the worker has embedded it and checked it for
near-duplicates and contradictions (`checking`, usually well under a second): until then a
contradiction of an approved fact could reach a model unstaged. Review
(`may_review`) is separate: the owner decides about their own personal memory, admins and people
with the `memory.review_memory` permission about the office's and the specialists'.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q, QuerySet
from django.utils import timezone

from apps.accounts.principal import Principal
from apps.memory.models import SHARED_HOLDER, Assertion, Memory, Review, Scope, holder_key

PERSONAL, SHARED, ALL = "personal", "shared", "all"
SCOPE_CHOICES = (PERSONAL, SHARED, ALL)
REVIEW_PERMISSION = "memory.review_memory"


@dataclass(frozen=True)
class Reader:
    """The principal plus the personal holder it reads as (None: no personal memory here)."""

    principal: Principal
    personal_holder: str | None
    shared: bool = True  # False for public embeds: anonymous visitors read no office memory

    @classmethod
    def of(cls, principal: Principal, specialist: str | None = None) -> Reader:
        service = principal.service
        if service is not None and service.kind == service.Kind.PUBLIC_EMBED:
            return cls(principal, None, shared=False)
        if principal.resource_scope.shared_only:
            return cls(principal, None)
        if specialist:
            return cls(principal, holder_key(specialist=specialist))
        return cls(principal, holder_key(owner_id=principal.resource_scope.user_id))

    def holders(self, scope: str = ALL) -> list[str]:
        """The holders whose memory `scope` covers for this reader."""
        personal = [self.personal_holder] if self.personal_holder else []
        shared = [SHARED_HOLDER] if self.shared else []
        if scope == PERSONAL:
            return personal
        if scope == SHARED:
            return shared
        return [*shared, *personal]


def usable_q(now=None) -> Q:
    """Approved, not retracted, checked, valid at `now`: the only memory a model ever sees."""
    now = now or timezone.now()
    return (
        Q(review=Review.APPROVED)
        & ~Q(assertion=Assertion.RETRACTED)
        & Q(checking=False)
        & (Q(valid_from__isnull=True) | Q(valid_from__lte=now))
        & (Q(valid_until__isnull=True) | Q(valid_until__gt=now))
    )


def usable(reader: Reader, scope: str = ALL) -> QuerySet[Memory]:
    return Memory.objects.filter(holder__in=reader.holders(scope)).filter(usable_q())


def usable_sql(alias: str = "m") -> str:
    """`usable_q` as an SQL fragment for the hand-written hybrid search (params: now, now)."""
    return (
        f"{alias}.review = 'approved' AND {alias}.assertion <> 'retracted' AND NOT {alias}.checking"
        f" AND ({alias}.valid_from IS NULL OR {alias}.valid_from <= %s)"
        f" AND ({alias}.valid_until IS NULL OR {alias}.valid_until > %s)"
    )


def held(reader: Reader, scope: str = ALL) -> QuerySet[Memory]:
    """Every memory of the reader's holders, whatever its review state (their memory page,
    export). Shared memory that is not approved shows only to those who may review it."""
    qs = Memory.objects.filter(holder__in=reader.holders(scope))
    if not can_review_shared(reader.principal):
        qs = qs.filter(~Q(holder=SHARED_HOLDER) | Q(review=Review.APPROVED))
    return qs


def can_review_shared(principal: Principal) -> bool:
    user = principal.user
    return bool(user is not None and (user.is_admin or user.has_perm(REVIEW_PERMISSION)))


def may_review(principal: Principal, memory: Memory) -> bool:
    if memory.scope == Scope.PERSONAL and memory.owner_id is not None:
        return principal.user is not None and principal.user.pk == memory.owner_id
    return can_review_shared(principal)


def reviewable_q(principal: Principal) -> Q:
    """The memories the principal may decide about (any review state)."""
    user = principal.user
    if user is None:
        return Q(pk__in=[])
    own = Q(holder=holder_key(owner_id=user.pk))
    if can_review_shared(principal):
        return own | Q(holder=SHARED_HOLDER) | Q(holder__startswith="specialist:")
    return own
