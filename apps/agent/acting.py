"""Who a run acts as, and what its tools see: everything is read from the run itself (its
principal, the agent it runs as, its parent, its kind, whether a person is present), never from
the chat it writes into — a run of an automation or an embed has no person's chat.

A run's children act as their parent's principal and never with more tools than it had: the
allowlist of a run is intersected with every ancestor's (`allowed_tools`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from apps.accounts.principal import Principal, PrincipalError
from apps.agent.models import Run
from apps.core import plugins
from apps.tools.context import ToolContext

# Extension point: callables `(specialist_id: int) -> Iterable[str] | None` answering the tool
# names a specialist may use (None: no restriction). The specialists app contributes it; the main
# copilot (specialist_id None) is not restricted by it.
SPECIALIST_TOOLS = "agent.specialist_tools"
ANCESTORS_MAX = 20  # a parent chain is short; a longer one is a bug, not a reason to loop


def principal_of(run: Run) -> Principal:
    """The run's principal: its service principal (with the acting user), else its user.
    Raises `PrincipalError` when it is disabled (or, for a broken row, missing)."""
    if run.service_principal_id is not None:
        return Principal.for_service(run.service_principal, acting_user=run.user)
    if run.user_id is None:
        raise PrincipalError(f"run {run.pk} has no principal")
    return Principal.for_user(run.user)


def same_principal(a: Run, b: Run) -> bool:
    return (a.user_id, a.service_principal_id) == (b.user_id, b.service_principal_id)


def specialist_tools(specialist_id: int | None) -> frozenset[str] | None:
    """The allowlist of the agent a run runs as: None for the main copilot (every tool its
    principal may use); for a specialist, what `agent.specialist_tools` answers (intersected)."""
    if specialist_id is None:
        return None
    allowed: frozenset[str] | None = None
    providers: tuple[Callable[[int], Iterable[str] | None], ...] = plugins.contributions(SPECIALIST_TOOLS)
    for provider in providers:
        names = provider(specialist_id)
        if names is not None:
            allowed = frozenset(names) if allowed is None else allowed & frozenset(names)
    return allowed


def narrow(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """The intersection of two allowlists, None meaning "unrestricted"."""
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def own_tools(run: Run) -> frozenset[str] | None:
    """The run's own allowlist (as stored) narrowed by its agent's."""
    stored = frozenset(run.allowed_tools) if run.allowed_tools is not None else None
    return narrow(stored, specialist_tools(run.specialist_id))


def allowed_tools(run: Run) -> frozenset[str] | None:
    """What the run's tools may be: its own allowlist and every ancestor's, intersected."""
    allowed = own_tools(run)
    parent_id, seen = run.parent_id, {run.pk}
    while parent_id is not None and parent_id not in seen and len(seen) <= ANCESTORS_MAX:
        seen.add(parent_id)
        parent = Run.objects.filter(pk=parent_id).only("allowed_tools", "specialist_id", "parent_id").first()
        if parent is None:
            break
        allowed = narrow(allowed, own_tools(parent))
        parent_id = parent.parent_id
    return allowed


def tool_context(run: Run, principal: Principal, *, time_zone: str, cancel_check=None) -> ToolContext:
    """The context every tool call of the run gets, built from the run."""
    return ToolContext(
        principal=principal,
        surface="native",
        run_id=str(run.pk),
        session_id=str(run.session_id),
        allowed_tools=allowed_tools(run),
        specialist_id=str(run.specialist_id) if run.specialist_id is not None else None,
        time_zone=time_zone,
        headless=not run.interactive,
        run_kind=run.kind,
        cancel_check=cancel_check,
    )
