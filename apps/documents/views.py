"""Server-rendered document pages: folder tree + list with upload, document detail, and the
public share view. Every write goes through the services; views only parse input and render."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from csp.constants import SELF
from csp.decorators import csp_replace
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from apps.clients.services import client_choices
from apps.core.errors import InvalidInput
from apps.core.inputs import build
from apps.core.surfaces import web
from apps.core.surfaces.web import domain_errors, querystring_without_page, reported
from apps.documents import folders, sensitivity, services, sharing, storage, workflow
from apps.documents.contracts import (
    DocumentOut,
    DocumentPageFilter,
    DocumentUpdate,
    DocumentUpload,
    FileView,
    FolderCreate,
    FolderDelete,
    FolderMark,
    FolderUpdate,
    ProposalDecision,
    ShareCreate,
)
from apps.documents.models import Document
from apps.documents.preview import preview_for
from apps.documents.records import detailed_record
from apps.documents.responses import file_response

PAGE_SIZE = 25
PREVIEW_CHARS = 20_000


def _folder_url(folder_id) -> str:
    return f"{reverse('documents:index')}?folder={folder_id}"


def index(request):
    principal = request.principal
    tree = folders.list_folders(principal)
    page_number = web.page_number(request)
    filters = web.query(request, DocumentPageFilter, limit=PAGE_SIZE, offset=(page_number - 1) * PAGE_SIZE)
    folder = next((f for f in tree if f.pk == filters.folder_id), None)
    filters = filters.model_copy(update={"folder_id": folder.pk if folder else None})
    query = filters.query
    documents: list[Document] = []
    total = 0
    with reported(request):
        documents, total = services.list_documents(principal, filters)
    page = Paginator(range(total), PAGE_SIZE).get_page(page_number)
    context = {
        "tree": tree,
        "folder": folder,
        "documents": documents,
        "total": total,
        "page": page,
        "query": query or "",
        "querystring": querystring_without_page(request),
        "client_choices": client_choices(principal) if folder and not folder.is_home else [],
        "max_upload_mb": storage.max_upload_bytes() // (1024 * 1024),
        "max_upload_bytes": storage.max_upload_bytes(),
    }
    template = (
        "documents/_list.html"
        if request.htmx and request.htmx.target == "document-rows"
        else "documents/index.html"
    )
    return render(request, template, context)


@require_POST
@domain_errors(json=True)
def upload(request):
    """One file per request (the page sends several in parallel, each with its own progress)."""
    storage.refuse_declared_too_large(request)  # before the body is read
    upload_file = request.FILES.get("file")
    if upload_file is None:
        raise InvalidInput(_("No file was sent."))
    metadata = web.posted(request, DocumentUpload, folder="folder_id")
    document = services.upload_document(
        request.principal, metadata, content=upload_file, filename=upload_file.name
    )
    return JsonResponse({"document": DocumentOut.record(document)}, status=201)


@require_POST
def create_folder(request):
    with reported(request) as outcome:
        data = web.posted(request, FolderCreate, name="name", parent="parent_id")
        folder = folders.create_folder(request.principal, data)
    if outcome.failed:
        return redirect("documents:index")
    return redirect(_folder_url(folder.pk))


@require_POST
@domain_errors
def rename_folder(request, folder_id: int):
    folders.get_folder(request.principal, folder_id)  # an invisible folder is a 404, not a message
    with reported(request):
        data = web.posted(request, FolderUpdate, name="name")
        # The rename form always renames: an empty name is refused (by the service), not "unchanged".
        folders.update_folder(request.principal, folder_id, data.model_copy(update={"name": data.name or ""}))
    return redirect(_folder_url(folder_id))


@require_POST
@domain_errors
def neutralize_folder(request, folder_id: int):
    """The folder's "always neutralize" switch (folder settings)."""
    return _folder_setting(
        request,
        folder_id,
        lambda: sensitivity.set_folder_mark(
            request.principal, folder_id, web.posted(request, FolderMark).neutralize_always
        ),
    )


@require_POST
@domain_errors
def folder_client(request, folder_id: int):
    """Make the folder a client folder of the chosen client, or an ordinary one again."""

    def change() -> object:
        data = web.posted(request, FolderUpdate, client="client_id")
        if data.client_id is None:  # "no client": an ordinary folder again
            data = build(FolderUpdate, remove_client=True)
        return folders.update_folder(request.principal, folder_id, data)

    return _folder_setting(request, folder_id, change)


def _folder_setting(request, folder_id: int, change: Callable[[], object]):
    """A folder settings form: an invisible folder is a 404, not a message; a refused change is
    an error message, a done one "Saved."; back to the folder either way."""
    folders.get_folder(request.principal, folder_id)
    with reported(request) as outcome:
        change()
    if not outcome.failed:
        messages.success(request, _("Saved."))
    return redirect(_folder_url(folder_id))


@require_POST
@domain_errors
def delete_folder(request, folder_id: int):
    folders.get_folder(request.principal, folder_id)  # an invisible folder is a 404, not a message
    with reported(request) as outcome:
        recursive = web.posted(request, FolderDelete).recursive
        folders.delete_folder(request.principal, folder_id, recursive=recursive)
    if outcome.failed:
        return redirect(_folder_url(folder_id))
    messages.success(request, _("The folder was deleted."))
    return redirect("documents:index")


def _detail_update(post) -> DocumentUpdate:
    """The detail page's two forms: title and folder, or the links (clients and case), with the
    version the page was rendered at. An empty title is refused, an empty folder is the root."""
    values: dict[str, Any] = {"expected_version": post.get("version") or None}
    if post.get("form") == "links":
        values |= {
            "client_ids": [v for v in post.getlist("clients") if v],
            "case_id": post.get("case") or None,
        }
    else:
        values["title"] = post.get("title") or None
        if "folder" in post:
            values["folder_id"] = post.get("folder") or None
    return build(DocumentUpdate, **values)


@domain_errors
@csp_replace({"frame-src": [SELF]})  # the PDF preview is framed from our own origin
def detail(request, document_id: int):
    principal = request.principal
    document = services.get_document(principal, document_id)
    if request.method == "POST":
        with reported(request) as outcome:
            services.update_document(principal, document.pk, _detail_update(request.POST))
        if not outcome.failed:
            messages.success(request, _("Saved."))
            return redirect("documents:detail", document_id=document.pk)
    share = sharing.active_share(document)
    linked = [c.pk for c in document.clients.all()]
    context = {
        "document": document,
        "record": detailed_record(document),
        "tree": folders.list_folders(principal),
        "preview": document.extracted_text[:PREVIEW_CHARS],
        "preview_truncated": len(document.extracted_text) > PREVIEW_CHARS,
        "file_preview": preview_for(document),
        "client_choices": client_choices(principal),
        "linked_client_ids": linked,
        "case_choices": services.case_choices(principal, linked, document.case_id),
        "share": share,
        "timeline": workflow.timeline(document),
        "share_url": request.build_absolute_uri(
            reverse("documents:public-share", args=[sharing.token_for(share)])
        )
        if share
        else None,
    }
    return render(request, "documents/detail.html", context)


@require_GET
@domain_errors
def preview(request, document_id: int):
    """The file for the page's viewer: inline only when it is a real PDF or image (see
    `responses.file_response`), a download otherwise."""
    document = services.get_document(request.principal, document_id, with_text=False)
    return file_response(document, as_attachment=False)


@require_POST
@domain_errors
def decide_proposal(request, document_id: int, item_id: int):
    """Accept or dismiss the workflow's proposed client link."""
    accept = web.posted(request, ProposalDecision).decision == "accept"
    return _act_and_return(
        request,
        document_id,
        "document-workflow",
        lambda p: workflow.decide_client_proposal(p, document_id, item_id, accept=accept),
    )


@domain_errors
def status_partial(request, document_id: int):
    """The extraction box, re-rendered for live updates (permission-checked like any read)."""
    document = services.get_document(request.principal, document_id, with_text=False)
    return render(
        request, "documents/_status.html", {"document": document, "record": DocumentOut.record(document)}
    )


@domain_errors
def workflow_partial(request, document_id: int):
    """The workflow timeline, re-rendered for live updates (permission-checked like any read)."""
    document = services.get_document(request.principal, document_id, with_text=False)
    return render(
        request, "documents/_workflow.html", {"document": document, "timeline": workflow.timeline(document)}
    )


@require_POST
@domain_errors
def workflow_rerun(request, document_id: int):
    return _act_and_return(
        request, document_id, "document-workflow", lambda p: workflow.request_run(p, document_id)
    )


@require_GET
@domain_errors
def download(request, document_id: int):
    document = services.get_document(request.principal, document_id, with_text=False)
    return file_response(document, as_attachment=True)


@require_POST
@domain_errors
def create_share(request, document_id: int):
    data = web.posted(request, ShareCreate)
    return _act_and_return(
        request, document_id, "share", lambda p: sharing.create_share(p, document_id, data)
    )


@require_POST
@domain_errors
def revoke_share(request, document_id: int):
    return _act_and_return(request, document_id, "share", lambda p: sharing.revoke_share(p, document_id))


def _act_and_return(request, document_id: int, anchor: str, action):
    """Run a service for the detail page's buttons; back to the page section it came from, with
    the domain error as a message (an invisible document is a 404, as on every read)."""
    services.get_document(request.principal, document_id, with_text=False)
    with reported(request):
        action(request.principal)
    return redirect(f"{reverse('documents:detail', args=[document_id])}#{anchor}")


@require_POST
@domain_errors
def delete(request, document_id: int):
    document = services.get_document(request.principal, document_id, with_text=False)
    with reported(request) as outcome:
        services.delete_document(request.principal, document_id)
    if outcome.failed:
        return redirect("documents:detail", document_id=document_id)
    messages.success(request, _("The document “%(title)s” was deleted.") % {"title": document.title})
    target = reverse("documents:index")
    return redirect(f"{target}?folder={document.folder_id}" if document.folder_id else target)


# --- public share view (no login) ---------------------------------------------------------------
def _public_headers(response: HttpResponseBase) -> HttpResponseBase:
    response["X-Content-Type-Options"] = "nosniff"
    response["Referrer-Policy"] = "no-referrer"
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Cache-Control"] = "private, no-store"
    return response


def _public(view: Callable[[Any, Document, str], HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """A page of a public share link: no login, GET only, never cached, the public headers. The
    view gets the shared document; a token that shares nothing (unknown, revoked, expired) is 404."""

    @login_not_required
    @never_cache
    @require_GET
    @functools.wraps(view)
    def shared(request, token: str) -> HttpResponseBase:
        document = sharing.resolve_public(token)
        if document is None:
            raise Http404
        return _public_headers(view(request, document, token))

    return shared


@_public
def public_share(request, document: Document, token: str) -> HttpResponse:
    response = render(request, "documents/public_share.html", {"document": document, "token": token})
    response["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
    )
    return response


@_public
def public_share_file(request, document: Document, token: str) -> HttpResponseBase:
    inline = web.query(request, FileView).inline
    return file_response(document, as_attachment=not inline)
