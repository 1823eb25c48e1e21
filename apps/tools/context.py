"""Everything a tool call knows about its caller, resolved once at the surface."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from apps.accounts.principal import Principal


class ForeignContent:
    """Mutable beside the frozen context: set by the dispatcher when a tool that reads foreign
    content succeeds; the runtime persists it on the run so it survives a resume."""

    __slots__ = ("seen",)

    def __init__(self, seen: bool = False) -> None:
        self.seen = seen


@dataclass(frozen=True)
class ToolContext:
    principal: Principal
    surface: str = "native"  # native | live | api
    run_id: str | None = None
    session_id: str | None = None
    # A specialist's allowlist: None means every tool the principal may use.
    allowed_tools: frozenset[str] | None = None
    # The specialist the run acts as: its personal memory is bound to this id (never the user's).
    specialist_id: str | None = None
    # API-key scopes when the call came in with a key; None for sessions and device tokens.
    scopes: frozenset[str] | None = None
    api_key: str | None = None  # that key's public prefix (never the secret), e.g. a memory's source
    time_zone: str | None = None  # X-User-Timezone, when the client sent one
    # The surface read the principal's active flag while authenticating this very request (the
    # REST API): the dispatcher need not read it again. Runs, which last, leave it False.
    active_checked: bool = False
    # Nobody is present to decide (automations, channels, embeds): the instance's headless rule
    # applies to what would otherwise wait for a person's approval.
    headless: bool = False
    run_kind: str | None = None  # the agent run's kind (chat, automation, delegation …); None off-run
    # The approval step let this call pass (erlaubt, a standing approval, or a person approved this
    # very call): a tool with its own rights check skips it then (the seed's FreigabeGeprueft).
    approved: bool = False
    call_id: str = ""  # the model's tool call id (agent runs): a staged call records it
    # What this run has read so far that came from outside (documents, notes, memory …): once
    # seen, operations staged by default need a person's approval even where a policy allows them.
    foreign: ForeignContent = field(default_factory=ForeignContent, compare=False, repr=False)
    # Set by the agent runtime: answers True once the run is cancelled or its tool-phase budget
    # is spent. Long-running tools poll `is_cancelled()` and stop early.
    cancel_check: Callable[[], bool] | None = field(default=None, compare=False, repr=False)

    @property
    def agent_pk(self) -> int | None:
        """The specialist's primary key (None: the main copilot, or an id that is not one)."""
        try:
            return int(self.specialist_id) if self.specialist_id not in (None, "") else None
        except (TypeError, ValueError):
            return None

    def is_cancelled(self) -> bool:
        return bool(self.cancel_check is not None and self.cancel_check())
