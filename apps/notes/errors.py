"""Stable failure codes of the Notizen domain (tools, API and pages map them in one place)."""

from apps.core.errors import DomainError, NotFound


class FolderNotFound(NotFound):
    code = "folder_not_found"


class NoteNotFound(NotFound):
    code = "note_not_found"


class PageNotFound(NotFound):
    code = "page_not_found"


class InvalidNoteInput(DomainError):
    """Bad values; `details` maps field → message so the model or the form can fix them."""

    code = "invalid_input"


class NoteForbidden(DomainError):
    code = "forbidden"
    http_status = 403


class VersionConflict(DomainError):
    """The record changed since the caller read it; `details` carries the current record."""

    code = "version_conflict"
    http_status = 409
