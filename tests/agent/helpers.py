"""Shared steps of the agent tests: post a message without a worker, then run the loop inline."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.contracts import MessageCreate
from apps.agent.models import Run
from apps.agent.runtime import run_agent
from apps.core.inputs import build


def say(
    principal: Principal,
    session_id: int,
    text: str,
    *,
    time_zone: str = "",
    kind: str = Run.Kind.CHAT,
    require_neutralization: bool = False,
    **fields,
) -> Run:
    """Post `text` as the principal's chat message (`fields`: the rest of `MessageCreate`)."""
    if fields.get("model_id") is not None:
        fields["model_id"] = str(fields["model_id"])
    message = build(MessageCreate, content=text, **fields)
    return services.post_user_message(
        principal,
        session_id,
        message,
        time_zone=time_zone,
        kind=kind,
        require_neutralization=require_neutralization,
    )


def ask(user, text: str = "Hallo", **kwargs) -> Run:
    """Post as `user` in a new session and run the loop in this thread (the job is what the
    worker would do; the worker itself is tested in test_jobs)."""
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    run = say(principal, session.pk, text, **kwargs)
    return run_agent(run.pk)


def events(run: Run) -> list[tuple[str, dict]]:
    return [(e.kind, e.payload) for e in run.events.order_by("seq")]
