"""Stable failure codes of the Notizen domain. Forbidden, invalid input and version conflicts use
the shared bases of `apps.core.errors` as they are."""

from apps.core.errors import NotFound


class FolderNotFound(NotFound):
    code = "note_folder_not_found"


class NoteNotFound(NotFound):
    code = "note_not_found"


class PageNotFound(NotFound):
    code = "note_page_not_found"
