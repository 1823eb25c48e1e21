"""The Notizen page: folder tree, note list with search, and the page editor, plus the small
endpoints the editor and htmx use. Every write goes through `apps.notes.services`; views only
parse input and render."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.accounts.principal import Principal
from apps.clients.services import case_choices
from apps.core.errors import InvalidInput
from apps.core.inputs import build
from apps.core.surfaces import web
from apps.core.surfaces.web import domain_errors, reported
from apps.notes import html as rich
from apps.notes import services, sharing
from apps.notes.contracts import (
    NoteCreate,
    NoteFilter,
    NoteFolderCreate,
    NoteOut,
    NotePageChoice,
    NotePageCreate,
    NotePageUpdate,
    NoteUpdate,
)
from apps.notes.models import Note, NoteFolder, Visibility
from apps.notes.records import page_record

PAGE_SIZE = 30
# The note forms' field names → the input models' (NoteCreate, NoteUpdate).
NOTE_FORM = {"name": "name", "folder": "folder_id", "visibility": "visibility", "case": "case_id"}


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
    page_number = web.page_number(request, "p")
    filters = web.query(request, NoteFilter, limit=PAGE_SIZE, offset=(page_number - 1) * PAGE_SIZE)
    folder_id, query = filters.folder_id, filters.query or ""
    notes: list[Note] = []
    total = 0
    with reported(request) as outcome:  # a folder that is gone: say so, list nothing
        notes, total = services.list_notes(principal, filters)
    if outcome.failed:
        folder_id = None
    sharing.mark_shared_with(notes)
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
    principal = request.principal
    folders = folder_tree(services.list_folders(principal))
    context = {
        "folders": folders,
        "visibilities": Visibility.choices,
        **_list_context(request, principal),
        "note": note,
        "pages": pages,
        "current": current,
    }
    if note is not None:
        sharing.mark_shared_with([note])
        cases = case_choices(principal)
        if note.case_id and note.case_id not in {pk for pk, _label in cases}:  # a closed case stays shown
            cases.append((note.case_id, f"{note.case.reference} {note.case.subject}"))
        context["cases"] = cases
    if current is not None:
        context["current_html"] = mark_safe(rich.sanitize(current.html))  # noqa: S308 (sanitized again)
        context["page_record"] = page_record(current)
        context["note_record"] = NoteOut.record(note)
    return render(request, "notes/index.html", context)


def index(request):
    return _render_index(request)


@domain_errors
def note_page(request, note_id: int):
    note = services.get_note(request.principal, note_id)
    pages = services.note_pages(note)
    wanted = web.query(request, NotePageChoice).page_id
    current = next((p for p in pages if p.pk == wanted), pages[0] if pages else None)
    return _render_index(request, note, pages, current)


def note_list(request):
    """The note list alone (search as you type, live refresh)."""
    return render(request, "notes/_note_list.html", _list_context(request, request.principal))


def folder_list(request):
    folders = folder_tree(services.list_folders(request.principal))
    folder_id = web.query(request, NoteFilter).folder_id
    return render(request, "notes/_folders.html", {"folders": folders, "folder_id": str(folder_id or "")})


def _back(request, fallback: str) -> str:
    return web.back_target(request, fallback)


@require_POST
def create_folder(request):
    with reported(request) as outcome:
        data = web.posted(request, NoteFolderCreate, name="name", parent="parent_id", visibility="visibility")
        folder = services.create_folder(request.principal, data)
    if outcome.failed:
        return redirect("notes:index")
    return redirect(f"{reverse('notes:index')}?folder={folder.pk}")


@require_POST
def delete_folder(request, folder_id: int):
    with reported(request):
        services.delete_folder(request.principal, folder_id)
    return redirect("notes:index")


@require_POST
def create_note(request):
    with reported(request) as outcome:
        data = web.posted(request, NoteCreate, **NOTE_FORM)
        note, _page = services.create_note(request.principal, data)
    if outcome.failed:
        return redirect(_back(request, reverse("notes:index")))
    return redirect("notes:note", note_id=note.pk)


@require_POST
@domain_errors
def update_note(request, note_id: int):
    services.get_note(request.principal, note_id)  # an invisible note is a 404, not a message
    with reported(request) as outcome:
        data = web.posted(request, NoteUpdate, **NOTE_FORM)
        # The settings form sends every field: an empty name is refused, "Top level" moves the
        # note out of its folder; a form without the case picker leaves the case alone.
        emptied = {"name", "folder_id", *(["case_id"] if "case" in request.POST else [])}
        emptied -= data.model_fields_set
        services.update_note(request.principal, note_id, data.model_copy(update=dict.fromkeys(emptied)))
    if not outcome.failed:
        messages.success(request, _("Saved."))
    return redirect("notes:note", note_id=note_id)


@require_POST
@domain_errors
def delete_note(request, note_id: int):
    note = services.get_note(request.principal, note_id)
    with reported(request) as outcome:
        services.delete_note(request.principal, note_id)
    if outcome.failed:
        return redirect("notes:note", note_id=note_id)
    messages.success(request, _("The note “%(name)s” was deleted.") % {"name": note.name})
    return redirect("notes:index")


@require_POST
@domain_errors
def create_page(request, note_id: int):
    services.get_note(request.principal, note_id)  # an invisible note is a 404, not a message
    with reported(request) as outcome:
        page = services.create_page(
            request.principal, note_id, web.posted(request, NotePageCreate, title="title")
        )
    if outcome.failed:
        return redirect("notes:note", note_id=note_id)
    return redirect(f"{reverse('notes:note', args=[note_id])}?page_id={page.pk}")


@require_POST
@domain_errors
def delete_page(request, page_id: int):
    page = services.get_page(request.principal, page_id)
    with reported(request) as outcome:
        services.delete_page(request.principal, page_id)
    if outcome.failed:
        return redirect(f"{reverse('notes:note', args=[page.note_id])}?page_id={page_id}")
    return redirect("notes:note", note_id=page.note_id)


@require_POST
@domain_errors(json=True)
def save_page(request, page_id: int):
    """The editor's save (fetch, JSON): title, html and the version it was loaded at. A stale
    version answers 409 with the current page (`details.page`) so the editor can offer both."""
    data = web.json_body(request)  # too deep, a NUL, no JSON at all: InvalidInput (subclasses)
    if not isinstance(data, dict):
        raise InvalidInput(_("The request is not valid JSON."))
    expected = data.get("expected_version")
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int)):
        raise InvalidInput(_("Invalid version."))
    fields = ("title", "html", "font_family", "font_size", "expected_version")
    page = services.update_page(
        request.principal, page_id, build(NotePageUpdate, **{k: data[k] for k in fields if k in data})
    )
    return JsonResponse({"page": page_record(page)})


@domain_errors(json=True)
def page_json(request, page_id: int):
    return JsonResponse({"page": page_record(services.get_page(request.principal, page_id))})
