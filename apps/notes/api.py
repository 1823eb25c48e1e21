"""REST API of Notizen for mobile clients (`/api/v1/notes/…`): thin typed adapters over the same
services, input models and records as the tools and pages (see `apps.core.api.endpoint`)."""

from __future__ import annotations

from apps.core.api import ApiView, endpoint
from apps.core.contracts import page
from apps.notes import contracts as c
from apps.notes import services
from apps.notes.records import folder_record, note_record, page_record

TAGS = ["notes"]


class FolderListView(ApiView):
    @endpoint(output=c.NoteFolderList, summary="Note folders", operation_id="notes_folders_list", tags=TAGS)
    def get(self, request):
        return {"folders": [folder_record(f) for f in services.list_folders(request.principal)]}

    @endpoint(
        body=c.NoteFolderCreate,
        output=c.NoteFolderResult,
        status=201,
        summary="Create a folder",
        operation_id="notes_folders_create",
        tags=TAGS,
    )
    def post(self, request, body: c.NoteFolderCreate):
        return {
            "folder": folder_record(services.create_folder(request.principal, **body.model_dump(mode="json")))
        }


class FolderDetailView(ApiView):
    @endpoint(
        body=c.NoteFolderUpdate,
        output=c.NoteFolderResult,
        summary="Rename or move a folder",
        operation_id="notes_folders_partial_update",
        tags=TAGS,
    )
    def patch(self, request, folder_id: int, body: c.NoteFolderUpdate):
        folder = services.update_folder(
            request.principal, folder_id, body.changes(), expected_version=body.expected_version
        )
        return {"folder": folder_record(folder)}

    @endpoint(
        output=None,
        status=204,
        summary="Delete an empty folder",
        operation_id="notes_folders_destroy",
        tags=TAGS,
    )
    def delete(self, request, folder_id: int):
        services.delete_folder(request.principal, folder_id)


class NoteListView(ApiView):
    @endpoint(
        query=c.NoteFilter,
        output=c.NoteListPage,
        summary="List notes (folder, search, pagination, total)",
        operation_id="notes_list",
        tags=TAGS,
    )
    def get(self, request, query: c.NoteFilter):
        notes, total = services.list_notes(request.principal, **query.model_dump())
        return page("notes", [note_record(n) for n in notes], total, limit=query.limit, offset=query.offset)

    @endpoint(
        body=c.NoteCreate,
        output=c.NoteWithFirstPage,
        status=201,
        summary="Create a note with its first page",
        operation_id="notes_create",
        tags=TAGS,
    )
    def post(self, request, body: c.NoteCreate):
        note, first = services.create_note(request.principal, **body.service_kwargs())
        return {"note": note_record(note), "page": page_record(first)}


class NoteDetailView(ApiView):
    @endpoint(
        output=c.NoteWithPages, summary="A note with its pages", operation_id="notes_retrieve", tags=TAGS
    )
    def get(self, request, note_id: int):
        note = services.get_note(request.principal, note_id)
        return {"note": note_record(note), "pages": [page_record(p) for p in services.note_pages(note)]}

    @endpoint(
        body=c.NoteUpdate,
        output=c.NoteResult,
        summary="Rename, move or change visibility (partial); optional expected_version",
        operation_id="notes_partial_update",
        tags=TAGS,
    )
    def patch(self, request, note_id: int, body: c.NoteUpdate):
        changes = body.changes(explicit_null_clears=True)
        note = services.update_note(
            request.principal, note_id, changes, expected_version=body.expected_version
        )
        return {"note": note_record(note)}

    @endpoint(output=None, status=204, summary="Delete a note", operation_id="notes_destroy", tags=TAGS)
    def delete(self, request, note_id: int):
        services.delete_note(request.principal, note_id)


class PageListView(ApiView):
    @endpoint(output=c.NotePageList, summary="Pages of a note", operation_id="notes_pages_list", tags=TAGS)
    def get(self, request, note_id: int):
        note = services.get_note(request.principal, note_id)
        return {"pages": [page_record(p) for p in services.note_pages(note)]}

    @endpoint(
        body=c.NotePageCreate,
        output=c.NotePageResult,
        status=201,
        summary="Add a page",
        operation_id="notes_pages_create",
        tags=TAGS,
    )
    def post(self, request, note_id: int, body: c.NotePageCreate):
        return {
            "page": page_record(services.create_page(request.principal, note_id, **body.service_kwargs()))
        }


class PageDetailView(ApiView):
    @endpoint(output=c.NotePageResult, summary="One page", operation_id="notes_pages_retrieve", tags=TAGS)
    def get(self, request, page_id: int):
        return {"page": page_record(services.get_page(request.principal, page_id))}

    @endpoint(
        body=c.NotePageUpdate,
        output=c.NotePageResult,
        summary="Change a page (partial; html is sanitized); optional expected_version",
        operation_id="notes_pages_partial_update",
        tags=TAGS,
    )
    def patch(self, request, page_id: int, body: c.NotePageUpdate):
        changes = body.changes(explicit_null_clears=True)
        updated = services.update_page(
            request.principal, page_id, changes, expected_version=body.expected_version
        )
        return {"page": page_record(updated)}

    @endpoint(output=None, status=204, summary="Delete a page", operation_id="notes_pages_destroy", tags=TAGS)
    def delete(self, request, page_id: int):
        services.delete_page(request.principal, page_id)
