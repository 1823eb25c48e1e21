"""The Notizen page: folder tree, note list with search, and the page editor, plus the small
endpoints the editor and htmx use. Every write goes through `apps.notes.services`; views only
parse input and render."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.accounts.principal import Principal
from apps.core.errors import DomainError
from apps.notes import html as rich
from apps.notes import services
from apps.notes.errors import NoteNotFound, PageNotFound
from apps.notes.models import NoteFolder, Visibility
from apps.notes.records import note_record, page_record

PAGE_SIZE = 30


def _principal(request) -> Principal:
    return Principal.for_user(request.user)


def folder_tree(folders: list[NoteFolder]) -> list[NoteFolder]:
    """Depth-first order with a `depth` on each folder; folders whose parent the viewer cannot
    see start at the top level."""
    by_parent: dict[int | None, list[NoteFolder]] = {}
    ids = {f.pk for f in folders}
    for folder in folders:
        by_parent.setdefault(folder.parent_id if folder.parent_id in ids else None, []).append(folder)
    ordered: list[NoteFolder] = []

    def walk(parent_id: int | None, depth: int) -> None:
        for folder in by_parent.get(parent_id, []):
            folder.depth = depth
            ordered.append(folder)
            walk(folder.pk, depth + 1)

    walk(None, 0)
    return ordered


def _list_context(request, principal: Principal) -> dict:
    folder_id = request.GET.get("folder") or None
    query = (request.GET.get("q") or "").strip()[:200]
    try:
        page_number = max(1, int(request.GET.get("p", "1")))
    except ValueError:
        page_number = 1
    try:
        notes, total = services.list_notes(
            principal,
            folder_id=folder_id,
            query=query or None,
            limit=PAGE_SIZE,
            offset=(page_number - 1) * PAGE_SIZE,
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        notes, total, folder_id = [], 0, None
    params = {k: v for k, v in (("folder", folder_id), ("q", query)) if v}
    return {
        "notes": notes,
        "total": total,
        "page": Paginator(range(total), PAGE_SIZE).get_page(page_number),
        "folder_id": str(folder_id or ""),
        "query": query,
        "list_params": urlencode(params),
    }


def _render_index(request, note=None, pages=(), current=None):
    principal = _principal(request)
    folders = folder_tree(services.list_folders(principal))
    context = {
        "folders": folders,
        "visibilities": Visibility.choices,
        **_list_context(request, principal),
        "note": note,
        "pages": pages,
        "current": current,
    }
    if current is not None:
        context["current_html"] = mark_safe(rich.sanitize(current.html))  # noqa: S308 (sanitized again)
        context["page_record"] = page_record(current)
        context["note_record"] = note_record(note)
    return render(request, "notes/index.html", context)


@login_required
def index(request):
    return _render_index(request)


@login_required
def note_page(request, note_id: int):
    principal = _principal(request)
    try:
        note = services.get_note(principal, note_id)
    except NoteNotFound:
        raise Http404(_("This note does not exist or you cannot see it.")) from None
    pages = services.note_pages(note)
    wanted = request.GET.get("page_id")
    current = next((p for p in pages if str(p.pk) == wanted), pages[0] if pages else None)
    return _render_index(request, note, pages, current)


@login_required
def note_list(request):
    """The note list alone (search as you type, live refresh)."""
    return render(request, "notes/_note_list.html", _list_context(request, _principal(request)))


@login_required
def folder_list(request):
    folders = folder_tree(services.list_folders(_principal(request)))
    return render(
        request, "notes/_folders.html", {"folders": folders, "folder_id": request.GET.get("folder", "")}
    )


def _back(request, fallback: str) -> str:
    target = request.POST.get("next", "")
    return target if target.startswith("/") and not target.startswith("//") else fallback


@login_required
@require_POST
def create_folder(request):
    try:
        folder = services.create_folder(
            _principal(request),
            name=request.POST.get("name", ""),
            parent_id=request.POST.get("parent") or None,
            visibility=request.POST.get("visibility") or None,
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("notes:index")
    return redirect(f"{reverse('notes:index')}?folder={folder.pk}")


@login_required
@require_POST
def delete_folder(request, folder_id: int):
    try:
        services.delete_folder(_principal(request), folder_id)
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("notes:index")


@login_required
@require_POST
def create_note(request):
    try:
        note, _page = services.create_note(
            _principal(request),
            name=request.POST.get("name", ""),
            folder_id=request.POST.get("folder") or None,
            visibility=request.POST.get("visibility") or None,
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect(_back(request, reverse("notes:index")))
    return redirect("notes:note", note_id=note.pk)


@login_required
@require_POST
def update_note(request, note_id: int):
    changes = {"name": request.POST.get("name", ""), "folder_id": request.POST.get("folder") or None}
    if request.POST.get("visibility"):
        changes["visibility"] = request.POST["visibility"]
    try:
        services.update_note(_principal(request), note_id, changes)
    except NoteNotFound:
        raise Http404 from None
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Saved."))
    return redirect("notes:note", note_id=note_id)


@login_required
@require_POST
def delete_note(request, note_id: int):
    try:
        note = services.get_note(_principal(request), note_id)
        services.delete_note(_principal(request), note_id)
    except NoteNotFound:
        raise Http404 from None
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("notes:note", note_id=note_id)
    messages.success(request, _("The note “%(name)s” was deleted.") % {"name": note.name})
    return redirect("notes:index")


@login_required
@require_POST
def create_page(request, note_id: int):
    try:
        page = services.create_page(_principal(request), note_id, title=request.POST.get("title", ""))
    except NoteNotFound:
        raise Http404 from None
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("notes:note", note_id=note_id)
    return redirect(f"{reverse('notes:note', args=[note_id])}?page_id={page.pk}")


@login_required
@require_POST
def delete_page(request, page_id: int):
    try:
        page = services.get_page(_principal(request), page_id)
        services.delete_page(_principal(request), page_id)
    except PageNotFound:
        raise Http404 from None
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect(f"{reverse('notes:note', args=[page.note_id])}?page_id={page_id}")
    return redirect("notes:note", note_id=page.note_id)


def _error(exc: DomainError) -> JsonResponse:
    return JsonResponse(
        {"code": exc.code, "message": exc.message, "details": exc.details}, status=exc.http_status
    )


@login_required
@require_POST
def save_page(request, page_id: int):
    """The editor's save (fetch, JSON): title, html and the version it was loaded at. A stale
    version answers 409 with the current page so the editor can offer both versions."""
    try:
        data = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        return JsonResponse(
            {"code": "invalid_input", "message": _("The request is not valid JSON.")}, status=400
        )
    if not isinstance(data, dict):
        return JsonResponse(
            {"code": "invalid_input", "message": _("The request is not valid JSON.")}, status=400
        )
    changes = {k: data[k] for k in ("title", "html", "font_family", "font_size") if k in data}
    expected = data.get("expected_version")
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int)):
        return JsonResponse({"code": "invalid_input", "message": _("Invalid version.")}, status=400)
    try:
        page = services.update_page(_principal(request), page_id, changes, expected_version=expected)
    except DomainError as exc:
        return _error(exc)
    return JsonResponse({"page": page_record(page)})


@login_required
def page_json(request, page_id: int):
    try:
        page = services.get_page(_principal(request), page_id)
    except PageNotFound as exc:
        return _error(exc)
    return JsonResponse({"page": page_record(page)})
