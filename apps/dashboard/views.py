"""The start page "Heute": what is due for the signed-in person (apps/dashboard/today.py), a prompt
box that starts a chat, then the person's widgets. The cards refetch themselves on live events."""

from __future__ import annotations

from django.db import transaction
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from apps.agent import services as chat
from apps.agent.contracts import MessageCreate
from apps.core.db.prepared import Prepared
from apps.core.inputs import build
from apps.core.surfaces import web
from apps.core.surfaces.web import reported
from apps.dashboard import today
from apps.dashboard.contracts import PROMPT_MAX, AskPrompt, DayView
from apps.widgets.views import dashboard_context

OFFICE = "kanzlei"  # ?ansicht=kanzlei: the whole office's day (admins and permission holders)


# Whether a model is offered at all (the prompt box is disabled without one): the same query as
# `offered_models().exists()`, compiled once per process (apps.core.db.prepared).
_ANY_OFFERED_MODEL = Prepared(lambda: chat.offered_models().values_list("pk", flat=True)[:1])


def _wants_office(request) -> bool:
    return web.query(request, DayView).ansicht == OFFICE


@require_GET
def dashboard(request):
    heute = today.build(request.principal, office=_wants_office(request))
    context = {
        "now": timezone.localtime(timezone=request.principal.time_zone),
        "heute": heute,
        "notification_bell": heute["notifications"]["bell"],
        # default_model() answers a model exactly when one is offered: one query, not two.
        "has_model": bool(_ANY_OFFERED_MODEL()),
        "prompt_max": PROMPT_MAX,
        **dashboard_context(request.user),
    }
    return render(request, "dashboard/index.html", context)


@require_GET
def today_cards(request):
    """The "Heute" cards alone, fetched again by the page on every relevant live event."""
    heute = today.build(request.principal, office=_wants_office(request))
    return render(request, "dashboard/_today.html", {"heute": heute})


@require_POST
def ask(request):
    """Start a chat with the prompt: a new session, the message queued for the copilot, then the
    chat page. A refused message (no model, empty) leaves no empty chat behind."""
    prompt = web.posted(request, AskPrompt).prompt
    with reported(request) as outcome, transaction.atomic():
        session = chat.create_session(request.principal)
        message = build(MessageCreate, content=prompt)
        chat.post_user_message(
            request.principal, session.pk, message, time_zone=request.principal.time_zone.key
        )
    if outcome.failed:
        return redirect("dashboard")
    return redirect("chat:session", session_id=session.pk)
