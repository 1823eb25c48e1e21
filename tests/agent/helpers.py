"""Shared steps of the agent tests: post a message without a worker, then run the loop inline."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.models import Run
from apps.agent.runtime import run_agent


def ask(user, text: str = "Hallo", **kwargs) -> Run:
    """Post as `user` in a new session and run the loop in this thread (the job is what the
    worker would do; the worker itself is tested in test_jobs)."""
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    run = services.post_user_message(principal, session.pk, text, **kwargs)
    return run_agent(run.pk)


def events(run: Run) -> list[tuple[str, dict]]:
    return [(e.kind, e.payload) for e in run.events.order_by("seq")]
