"""Stable failure codes of the documents domain. Forbidden, invalid input and version conflicts use
the shared bases of `apps.core.errors` as they are."""

from apps.core.errors import Conflict, InvalidInput, NotFound, TooLarge


class DocumentNotFound(NotFound):
    """No such document, or the caller cannot see it."""

    code = "document_not_found"


class FolderNotFound(NotFound):
    """No such document folder, or the caller cannot see it."""

    code = "folder_not_found"


class ShareNotFound(NotFound):
    """The document has no active public share link."""

    code = "share_not_found"


class FolderNotEmpty(Conflict):
    """The folder has documents or subfolders; `details` counts them (delete recursively)."""

    code = "folder_not_empty"


class FolderProtected(Conflict):
    """A person's "Persönlich" folder cannot be renamed, moved or deleted."""

    code = "folder_protected"


class FolderNameTaken(Conflict):
    """A sibling folder already has this name."""

    code = "folder_name_taken"


class EmptyFile(InvalidInput):
    """The uploaded file has no content."""

    code = "empty_file"


class FileTooLarge(TooLarge):
    """The upload exceeds the configured maximum (`details.max_bytes`)."""

    code = "file_too_large"


class ProposalNotFound(NotFound):
    """No open client proposal of the workflow with this id on the document (decided already?)."""

    code = "document_proposal_not_found"
