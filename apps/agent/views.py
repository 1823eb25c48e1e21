"""The chat page: session list, transcript and composer. Writes go through `apps.agent.services`
(via the REST API the page's script calls, or the new-session form here)."""

from __future__ import annotations

import json

from django.contrib import messages
from django.db.models import Max
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from apps.agent import bubbles, services
from apps.agent.contracts import ChatSessionEntry, ChatSessionFilter, ChatSessionRename
from apps.agent.errors import InvalidChatInput
from apps.agent.models import Message, RunEvent
from apps.core.errors import InvalidInput
from apps.core.inputs import build
from apps.core.surfaces import web
from apps.core.surfaces.web import domain_errors, id_param, wants_json
from apps.documents import folders, storage
from apps.documents import services as documents
from apps.documents.contracts import DocumentUpload

SESSIONS_SHOWN = 50
TURNS_SHOWN = 20  # questions (with their answers) per page of a chat's history


def index(request):
    return _render(request, None)


@domain_errors
def session_page(request, session_id: int):
    return _render(request, services.get_session(request.principal, session_id))


@require_POST
def new_session(request):
    session = services.create_session(request.principal)
    return redirect("chat:session", session_id=session.pk)


@require_POST
@domain_errors
def rename_session(request, session_id: int):
    try:
        session = services.rename_session(
            request.principal, session_id, web.posted(request, ChatSessionRename)
        )
    except InvalidInput as exc:  # back to the chat with the reason, the old title kept
        if wants_json(request):
            raise
        fields = (exc.details or {}).get("field_errors") or {}
        messages.error(request, _("Title: %(error)s") % {"error": fields.get("title", exc.message)})
        return redirect("chat:session", session_id=services.get_session(request.principal, session_id).pk)
    if wants_json(request):
        return JsonResponse({"session": ChatSessionEntry.record(session)})
    return redirect("chat:session", session_id=session.pk)


@require_POST
@domain_errors
def delete_session(request, session_id: int):
    services.delete_session(request.principal, session_id)
    return redirect("chat:index")


@require_GET
@domain_errors
def older_messages(request, session_id: int):
    """The page of bubbles before `?before=<message id>` (the "older messages" button), as HTML."""
    session = services.get_session(request.principal, session_id)
    before = id_param(request, "before")
    if before is None:
        raise InvalidChatInput(_("before must be a message id."))
    shown, older = _history(session, before)
    html = render_to_string(
        "agent/_bubbles.html", {"bubbles": shown, "older": older, "session": session}, request=request
    )
    return JsonResponse({"html": html, "older": older})


@require_POST
@domain_errors(json=True)
def upload_attachment(request):
    """One file of the composer (attach button or drag & drop), stored as a document in the
    user's personal folder before the message is sent; answers the id the message then carries.
    Always JSON, refusals included (`{"code", "message"}` with the error's status): the composer's
    script reads it."""
    storage.refuse_declared_too_large(request)  # before the body is read
    upload = request.FILES.get("file")
    if upload is None:
        raise InvalidChatInput(_("No file was sent."))
    home = folders.ensure_home_folder(request.principal)
    metadata = build(DocumentUpload, folder_id=home.pk if home else None)
    document = documents.upload_document(request.principal, metadata, content=upload, filename=upload.name)
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


def _history(
    session, before: int | None = None, last_run: int | None = None
) -> tuple[list[dict], int | None]:
    """The last TURNS_SHOWN questions before `before` with their answers, and the cursor of the
    page before them (None: this is the start). Four queries whatever the chat's length."""
    questions = session.messages.filter(role=Message.Role.USER)
    rows = session.messages.all()
    if before is not None:
        questions, rows = questions.filter(pk__lt=before), rows.filter(pk__lt=before)
    ids = list(questions.order_by("-pk").values_list("pk", flat=True)[: TURNS_SHOWN + 1])
    more = len(ids) > TURNS_SHOWN
    if more:
        rows = rows.filter(pk__gte=ids[TURNS_SHOWN - 1])
    messages = list(rows.order_by("id"))
    return bubbles.build(messages, last_run), (messages[0].pk if more and messages else None)


def _render(request, session):
    principal = request.principal
    query = " ".join(web.query(request, ChatSessionFilter).q.split())
    context = {
        "sessions": services.search_sessions(principal, query)[:SESSIONS_SHOWN],
        "query": query,
        "session": session,
        "has_model": services.default_model() is not None,
        "models": services.model_choices(),
    }
    if session is not None:
        last = session.runs.order_by("-id").only("pk", "status").first()
        active = last if last is not None and last.status in services.ACTIVE else None
        last_event = RunEvent.objects.filter(run__session=session).aggregate(m=Max("id"))["m"] or 0
        shown, older = _history(session, last_run=last.pk if last and not active else None)
        context.update(
            bubbles=shown,
            older=older,
            active_run=active,
            chat_config=json.dumps(
                {"session": session.pk, "after": last_event, "run": active.pk if active else None}
            ),
        )
    return render(request, "agent/chat.html", context)
