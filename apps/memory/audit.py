"""What every change of a memory writes beside itself, in its transaction: a `MemoryRevision`
(who, when, before -> after, note) and its live event. Used by the writer (`services`) and the
worker's check (`checking`), which neither imports the other for it."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.memory import events
from apps.memory.models import NOTE_MAX, Assertion, Memory, MemoryRevision
from apps.memory.records import snapshot


def audit(
    memory: Memory, principal: Principal | None, action: str, *, before: Any = None, note: str = ""
) -> None:
    """Record one change of `memory` (its state after it; `before` the state it had)."""
    MemoryRevision.objects.create(
        memory=memory,
        action=action,
        actor=principal.audit_actor if principal else None,
        actor_label=(principal.audit_label if principal else _("Clapilot"))[:300],
        before=before or {},
        after=snapshot(memory),
        note=(note or "")[:NOTE_MAX],
    )


def changed(
    memory: Memory,
    principal: Principal | None,
    action: str,
    event: str,
    *,
    before: Any = None,
    note: str = "",
) -> None:
    """Audit one change of `memory` and send its live event."""
    audit(memory, principal, action, before=before, note=note)
    events.changed(memory, event)


def dispute(principal: Principal | None, memory_id: int | None, challenger: Memory) -> None:
    """Mark the memory `memory_id` disputed by `challenger` (a contradiction of it)."""
    if memory_id is None:
        return
    existing = Memory.objects.select_for_update().filter(pk=memory_id).first()
    if existing is None or existing.assertion == Assertion.DISPUTED:
        return
    before = snapshot(existing)
    existing.assertion = Assertion.DISPUTED
    existing.save(update_fields=["assertion", "updated_at"])
    note = f"memory:{challenger.pk}"
    changed(
        existing, principal, MemoryRevision.Action.DISPUTED, "memory.memory.updated", before=before, note=note
    )
