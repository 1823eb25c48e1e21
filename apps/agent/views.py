"""The chat page: session list, transcript and composer. Writes go through `apps.agent.services`
(via the REST API the page's script calls, or the new-session form here)."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.db.models import Max
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.agent import services
from apps.agent.errors import InvalidChatInput
from apps.agent.models import Message, Run, RunEvent
from apps.core.web import domain_errors
from apps.documents import folders, storage
from apps.documents import services as documents
from apps.documents.errors import FileTooLarge
from apps.llm import markdown

SESSIONS_SHOWN = 50


@login_required
def index(request):
    return _render(request, None)


@login_required
@domain_errors
def session_page(request, session_id: int):
    return _render(request, services.get_session(request.principal, session_id))


@require_POST
@login_required
def new_session(request):
    session = services.create_session(request.principal)
    return redirect("chat:session", session_id=session.pk)


@require_POST
@login_required
@domain_errors(json=True)
def upload_attachment(request):
    """One file of the composer (attach button or drag & drop), stored as a document in the
    user's personal folder before the message is sent; answers the id the message then carries.
    Always JSON, refusals included (`{"code", "message"}` with the error's status): the composer's
    script reads it."""
    if storage.declared_too_large(request):  # refuse before the body is read
        limit = storage.max_upload_bytes()
        raise FileTooLarge(
            _("The file is larger than %(mb)d MB.") % {"mb": limit // (1024 * 1024)},
            details={"max_bytes": limit},
        )
    upload = request.FILES.get("file")
    if upload is None:
        raise InvalidChatInput(_("No file was sent."))
    home = folders.ensure_home_folder(request.principal)
    document = documents.upload_document(
        request.principal, content=upload, filename=upload.name, folder_id=home.pk if home else None
    )
    return JsonResponse(
        {
            "id": document.pk,
            "title": document.title,
            "filename": document.original_filename,
            "extraction_status": document.extraction_status,
            "url": reverse("documents:detail", args=[document.pk]),
        },
        status=201,
    )


def _attachments(message: Message) -> list[dict]:
    return [
        {"id": a["id"], "title": a.get("title") or a.get("filename") or f"#{a['id']}"}
        for a in message.metadata.get("attachments") or []
        if isinstance(a, dict) and isinstance(a.get("id"), int)
    ]


def _bubbles(session) -> list[dict]:
    """User and assistant messages, with the tool status lines of a turn inside its bubble."""
    bubbles: list[dict] = []
    tools: list[dict] = []
    for m in session.messages.order_by("id"):
        if m.role == Message.Role.TOOL:
            tools.append({"name": m.metadata.get("name", ""), "ok": m.metadata.get("ok", True)})
        elif m.role == Message.Role.ASSISTANT and m.tool_calls and not m.content:
            continue
        elif m.role == Message.Role.ASSISTANT:
            bubbles.append({"role": "assistant", "html": markdown.render(m.content), "tools": tools})
            tools = []
        elif m.role == Message.Role.USER:
            if tools:
                bubbles.append({"role": "assistant", "html": "", "tools": tools})
                tools = []
            bubbles.append({"role": "user", "text": m.content, "attachments": _attachments(m)})
    if tools:
        bubbles.append({"role": "assistant", "html": "", "tools": tools})
    return bubbles


def _render(request, session):
    principal = request.principal
    context = {
        "sessions": services.list_sessions(principal)[:SESSIONS_SHOWN],
        "session": session,
        "has_model": services.default_model() is not None,
        "models": services.model_choices(),
    }
    if session is not None:
        active = session.runs.filter(status__in=services.ACTIVE).first()
        last_event = RunEvent.objects.filter(run__session=session).aggregate(m=Max("id"))["m"] or 0
        failed = session.runs.filter(status=Run.Status.FAILED).first()
        context.update(
            bubbles=_bubbles(session),
            active_run=active,
            last_failed=failed if failed and not active and failed == session.runs.first() else None,
            chat_config=json.dumps(
                {"session": session.pk, "after": last_event, "run": active.pk if active else None}
            ),
        )
    return render(request, "agent/chat.html", context)
