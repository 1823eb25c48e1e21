"""Stable failure codes of the documents domain (tools, API and pages map them in one place)."""

from apps.core.errors import DomainError, NotFound


class DocumentNotFound(NotFound):
    code = "document_not_found"


class FolderNotFound(NotFound):
    code = "folder_not_found"


class InvalidDocumentInput(DomainError):
    """Bad values; `details` maps field → message so the model or the form can fix them."""

    code = "invalid_input"


class DocumentForbidden(DomainError):
    code = "forbidden"
    http_status = 403


class VersionConflict(DomainError):
    code = "version_conflict"
    http_status = 409


class FolderNotEmpty(DomainError):
    code = "folder_not_empty"
    http_status = 409


class FolderProtected(DomainError):
    """A person's "Persönlich" folder cannot be renamed, moved or deleted."""

    code = "folder_protected"
    http_status = 409


class FolderNameTaken(DomainError):
    code = "folder_name_taken"
    http_status = 409


class EmptyFile(DomainError):
    code = "empty_file"


class FileTooLarge(DomainError):
    code = "file_too_large"
    http_status = 413


class ShareNotFound(NotFound):
    code = "share_not_found"
