"""REST API of Notizen for mobile clients (`/api/v1/notes/…`): thin typed adapters over the same
services, input models and records as the tools and pages (see `apps.core.surfaces.api.endpoint`)."""

from __future__ import annotations

from apps.core.surfaces.api import ApiView, endpoint, listed
from apps.notes import contracts as c
from apps.notes import services
from apps.notes.contracts import NoteFolderOut, NoteOut
from apps.notes.records import page_record


class FolderListView(ApiView):
    @endpoint(output=c.NoteFolderList, operation_id="notes_folders_list")
    def get(self, request):
        """Note folders"""
        return {"folders": [NoteFolderOut.record(f) for f in services.list_folders(request.principal)]}

    @endpoint(
        body=c.NoteFolderCreate, output=c.NoteFolderResult, status=201, operation_id="notes_folders_create"
    )
    def post(self, request, body: c.NoteFolderCreate):
        """Create a folder"""
        return {"folder": NoteFolderOut.record(services.create_folder(request.principal, body))}


class FolderDetailView(ApiView):
    @endpoint(body=c.NoteFolderUpdate, output=c.NoteFolderResult, operation_id="notes_folders_partial_update")
    def patch(self, request, folder_id: int, body: c.NoteFolderUpdate):
        """Rename or move a folder"""
        return {"folder": NoteFolderOut.record(services.update_folder(request.principal, folder_id, body))}

    @endpoint(output=None, status=204, operation_id="notes_folders_destroy")
    def delete(self, request, folder_id: int):
        """Delete an empty folder"""
        services.delete_folder(request.principal, folder_id)


class NoteListView(ApiView):
    @endpoint(query=c.NoteFilter, output=c.NoteListPage, operation_id="notes_list")
    def get(self, request, query: c.NoteFilter):
        """List notes (folder, search, pagination, total)"""
        found = services.list_notes(request.principal, query)
        return listed("notes", NoteOut.record, found, query)

    @endpoint(body=c.NoteCreate, output=c.NoteWithFirstPage, status=201, operation_id="notes_create")
    def post(self, request, body: c.NoteCreate):
        """Create a note with its first page"""
        note, first = services.create_note(request.principal, body)
        return {"note": NoteOut.record(note), "page": page_record(first)}


class NoteDetailView(ApiView):
    @endpoint(output=c.NoteWithPages, operation_id="notes_retrieve")
    def get(self, request, note_id: int):
        """A note with its pages"""
        note = services.get_note(request.principal, note_id)
        return {"note": NoteOut.record(note), "pages": [page_record(p) for p in services.note_pages(note)]}

    @endpoint(body=c.NoteUpdate, output=c.NoteResult, operation_id="notes_partial_update")
    def patch(self, request, note_id: int, body: c.NoteUpdate):
        """Rename, move or change visibility (partial); optional expected_version"""
        return {"note": NoteOut.record(services.update_note(request.principal, note_id, body))}

    @endpoint(output=None, status=204, operation_id="notes_destroy")
    def delete(self, request, note_id: int):
        """Delete a note"""
        services.delete_note(request.principal, note_id)


class PageListView(ApiView):
    @endpoint(output=c.NotePageList, operation_id="notes_pages_list")
    def get(self, request, note_id: int):
        """Pages of a note"""
        note = services.get_note(request.principal, note_id)
        return {"pages": [page_record(p) for p in services.note_pages(note)]}

    @endpoint(body=c.NotePageCreate, output=c.NotePageResult, status=201, operation_id="notes_pages_create")
    def post(self, request, note_id: int, body: c.NotePageCreate):
        """Add a page"""
        return {"page": page_record(services.create_page(request.principal, note_id, body))}


class PageDetailView(ApiView):
    @endpoint(output=c.NotePageResult, operation_id="notes_pages_retrieve")
    def get(self, request, page_id: int):
        """One page"""
        return {"page": page_record(services.get_page(request.principal, page_id))}

    @endpoint(body=c.NotePageUpdate, output=c.NotePageResult, operation_id="notes_pages_partial_update")
    def patch(self, request, page_id: int, body: c.NotePageUpdate):
        """Change a page (partial; html is sanitized); optional expected_version"""
        return {"page": page_record(services.update_page(request.principal, page_id, body))}

    @endpoint(output=None, status=204, operation_id="notes_pages_destroy")
    def delete(self, request, page_id: int):
        """Delete a page"""
        services.delete_page(request.principal, page_id)
