"""Runs that no person's chat message started: an automation, a team room, an embed, a
delegation or a sub-agent. A child run acts as its parent's principal and never with more."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.agent import acting
from apps.agent.errors import ChildRunRefused, InvalidChatInput, SessionNotFound
from apps.agent.models import ChatSession, Run
from apps.agent.services import TITLE_MAX, as_int, checked_content, pick_model, queue_run
from apps.llm.models import ModelConfig


def start_headless_run(
    principal: Principal,
    content: str,
    *,
    kind: str,
    parent: Run | None = None,
    interactive: bool = False,
    specialist_id: int | None = None,
    allowed_tools: Any = None,
    session_id: Any = None,
    title: str = "",
    model_id: Any = None,
    max_rounds: Any = None,
    budget: Any = None,
    time_zone: str = "",
) -> Run:
    """Queue a run that no person's chat message started (an automation, a team room, an embed, a
    delegation or a sub-agent): in the conversation `session_id` the principal owns (a user's or
    the service principal's), else in a new one owned by it. `allowed_tools` narrows the tools
    (None: every tool the agent may use).

    A child run (`parent=`) acts as its parent's principal and never more: another principal,
    tools beyond the parent's allowlist or a person's presence the parent lacks are refused
    (`child_run_refused`); it inherits the parent's neutralization."""
    if kind not in Run.Kind.values or kind == Run.Kind.CHAT:
        raise InvalidChatInput(_("This kind of run cannot be started without a chat message."))
    content, rounds = checked_content(content, max_rounds)
    tools = _tool_names(allowed_tools)
    require = False
    if parent is not None:
        parent = Run.objects.select_related("user", "service_principal").get(pk=parent.pk)
        tools, require = _inherit(principal, parent, tools, interactive)
    model = pick_model(model_id) if model_id not in (None, "") or parent is None else _parent_model(parent)
    with transaction.atomic():
        if session_id not in (None, ""):
            session = (
                ChatSession.objects.select_for_update()
                .filter(pk=as_int(session_id), **_owned_by(principal))
                .first()
            )
            if session is None:
                raise SessionNotFound(_("This chat does not exist or is not yours."))
        else:
            name = " ".join((title or "").split())[:TITLE_MAX]
            source = ChatSession.TitleSource.USER if name else ChatSession.TitleSource.FALLBACK
            session = ChatSession.objects.create(**_owned_by(principal), title=name, title_source=source)
        return queue_run(
            principal,
            session,
            content,
            model=model,
            rounds=rounds,
            kind=kind,
            budget=budget,
            time_zone=time_zone,
            require_neutralization=require,
            parent=parent,
            interactive=bool(interactive),
            specialist_id=specialist_id,
            allowed_tools=sorted(tools) if tools is not None else None,
        )


def _owned_by(principal: Principal) -> dict:
    """A conversation belongs to the service principal of a service call, else to the user."""
    if principal.service is not None:
        return {"service_principal": principal.service, "user": None}
    return {"user": principal.user, "service_principal": None}


def _tool_names(value: Any) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise InvalidChatInput(_("allowed_tools must be a list of tool names."))
    return frozenset(value)


def _inherit(
    principal: Principal, parent: Run, tools: frozenset[str] | None, interactive: bool
) -> tuple[frozenset[str] | None, bool]:
    """A child run's tools (never beyond the parent's) and neutralization; refusals as
    `child_run_refused` with what was asked."""
    acting_user = principal.user or principal.acting_user
    asked = (acting_user.pk if acting_user else None, principal.service.pk if principal.service else None)
    if asked != (parent.user_id, parent.service_principal_id):
        raise ChildRunRefused(
            _("A run started by another run acts as that run's identity, never as another."),
            details={"parent_run_id": parent.pk, "reason": "principal"},
        )
    if interactive and not parent.interactive:
        raise ChildRunRefused(
            _("A run started by a run without a person present cannot wait for a person."),
            details={"parent_run_id": parent.pk, "reason": "interactive"},
        )
    if parent.status in Run.FINAL:
        raise ChildRunRefused(
            _("The run that would start this one has already finished."),
            details={"parent_run_id": parent.pk, "reason": "parent_finished"},
        )
    ceiling = acting.allowed_tools(parent)
    if tools is None:
        tools = ceiling
    elif ceiling is not None and not tools <= ceiling:
        raise ChildRunRefused(
            _("A run started by another run cannot use tools that run may not use: %(tools)s.")
            % {"tools": ", ".join(sorted(tools - ceiling)[:10])},
            details={"parent_run_id": parent.pk, "reason": "tools", "tools": sorted(tools - ceiling)},
        )
    return tools, parent.require_neutralization


def _parent_model(parent: Run) -> tuple[ModelConfig, Any]:
    """A child answers with its parent's model (or its preset), unless that is gone."""
    if parent.model_config is None:
        return pick_model(None)
    return parent.model_config, parent.moa_preset
