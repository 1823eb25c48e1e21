"""The identity and tool context a staged call runs in when it is approved, rebuilt from the
staged row alone (never from the deciding request). Used by deciding and by standing approvals,
which both need it, so it lives apart from either."""

from __future__ import annotations

import dataclasses
from typing import Any

from apps.accounts.principal import Principal, PrincipalError
from apps.approvals.models import StagedCall
from apps.tools.context import ToolContext


def principal_of(staged: StagedCall) -> Principal:
    """Who the call acts as, rebuilt from the staged row (never from the deciding request)."""
    service, user = staged.service_principal, staged.user
    if service is not None:
        return Principal.for_service(service, acting_user=user)
    if user is None:  # a staged call always has its person or its service principal
        raise PrincipalError("staged call without a principal")
    return Principal.for_user(user)


def context_of(staged: StagedCall) -> ToolContext:
    run = staged.run
    values: dict[str, Any] = {
        "principal": principal_of(staged),
        "surface": staged.surface or "native",
        "run_id": str(run.pk) if run else None,
        "session_id": str(run.session_id) if run else None,
        "specialist_id": str(staged.specialist_id) if staged.specialist_id else None,
        "api_key": staged.api_key or None,
        "time_zone": (run.time_zone or None) if run else None,
        "headless": bool(run and not run.interactive),
        "run_kind": run.kind if run else None,
        "approved": True,
    }
    known = {f.name for f in dataclasses.fields(ToolContext)}
    return ToolContext(**{k: v for k, v in values.items() if k in known})
