"""The only place that changes Notizen state. Tools, REST API, pages and admin call these functions
with a `Principal` and plain values; visibility, validation, sanitizing, audit and live events are
enforced here once. Each writer runs in one transaction and publishes its event on commit.

Invisible rows answer exactly like missing ones (`note_not_found`, …), so ids cannot be probed.
Page writes live in `apps.notes.page_services` and are re-exported here.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.clients.services import resolve_case
from apps.core import names, validation
from apps.core.db.lookup import get_by_id
from apps.core.db.search import search
from apps.core.db.versioning import Versioned
from apps.core.errors import Forbidden, InvalidInput
from apps.notes import events
from apps.notes.contracts import (
    NoteCreate,
    NoteFilter,
    NoteFolderCreate,
    NoteFolderOut,
    NoteFolderUpdate,
    NoteOut,
    NoteUpdate,
)
from apps.notes.errors import FolderNotFound
from apps.notes.models import FOLDER_NAME_MAX, Note, NoteFolder, NotePage, Visibility
from apps.notes.reads import get_note
from apps.notes.records import with_relations
from apps.notes.visibility import note_filter, viewers, visible_folders, visible_notes

MAX_PAGE = 200
FOLDER_VERSION = Versioned(
    "folder", NoteFolderOut.record, gettext_lazy("The folder was changed by someone else in the meantime.")
)
NOTE_VERSION = Versioned(
    "note", NoteOut.record, gettext_lazy("The note was changed by someone else in the meantime.")
)


# --- helpers ----------------------------------------------------------------------------------
def _visibility(principal: Principal, value: str | None, default: str) -> str:
    value = validation.choice(value or default, "visibility", Visibility.values)
    if value == Visibility.PRIVATE and principal.user is None:
        raise Forbidden(_("Only a person can own private notes."))
    return value


def _require_private_owner(principal: Principal, record: Note | NoteFolder, message: str) -> None:
    """People a private record is shared with read and edit it; deleting or moving it stays the
    owner's (apps.notes.sharing)."""
    if record.visibility == Visibility.PRIVATE and record.owner_id != getattr(principal.user, "pk", None):
        raise Forbidden(message)


# --- folders ----------------------------------------------------------------------------------
def list_folders(principal: Principal) -> list[NoteFolder]:
    """Visible folders with the number of notes the caller sees in each (one query)."""
    seen = note_filter(principal, "notes__")
    return list(visible_folders(principal).annotate(note_count=Count("notes", filter=seen)))


def get_folder(principal: Principal, folder_id: int | str, *, for_update: bool = False) -> NoteFolder:
    qs = visible_folders(principal)
    if for_update:
        qs = qs.select_for_update()
    return get_by_id(qs, folder_id, FolderNotFound, _("There is no note folder with id %(id)s."))


def _folder_name(value: str) -> str:
    name = validation.text(value, "name", max_length=FOLDER_NAME_MAX, required=True)
    names.check(name)  # a lock symbol: the 🔒 of private folders comes from their visibility
    return name


@transaction.atomic
def create_folder(principal: Principal, data: NoteFolderCreate) -> NoteFolder:
    name = _folder_name(data.name)
    parent = get_folder(principal, data.parent_id) if data.parent_id is not None else None
    default = parent.visibility if parent else Visibility.SHARED
    visibility = _visibility(principal, data.visibility, default)
    if parent and parent.visibility == Visibility.PRIVATE and visibility == Visibility.SHARED:
        raise validation.invalid("visibility", _("a folder inside a private folder must be private"))
    folder = NoteFolder.objects.create(
        name=name,
        parent=parent,
        visibility=visibility,
        owner=principal.user if visibility == Visibility.PRIVATE else principal.audit_actor,
    )
    events.folder_changed(folder, "notizen.folder.created")
    return folder


@transaction.atomic
def update_folder(principal: Principal, folder_id: int, data: NoteFolderUpdate) -> NoteFolder:
    """Rename or move a folder (never into itself or one of its own subfolders); fields not sent
    (`NoteFolderUpdate.changes()`) stay as they are."""
    changes = data.changes()
    folder = get_folder(principal, folder_id, for_update=True)
    FOLDER_VERSION.check(folder, data.expected_version)
    if "name" in changes:
        folder.name = _folder_name(changes["name"])
    if "parent_id" in changes:
        folder.parent = _new_parent(principal, folder, changes["parent_id"])
    folder.version += 1
    folder.save()
    events.folder_changed(folder, "notizen.folder.updated")
    return folder


def _new_parent(principal: Principal, folder: NoteFolder, parent_id: int | str | None) -> NoteFolder | None:
    if parent_id in (None, ""):
        return None
    parent = get_folder(principal, parent_id)
    ancestor: NoteFolder | None = parent
    while ancestor is not None:  # trees are shallow: a handful of lookups at most
        if ancestor.pk == folder.pk:
            raise validation.invalid("parent_id", _("a folder cannot move into itself or its own subfolders"))
        ancestor = ancestor.parent
    if parent.visibility == Visibility.PRIVATE and folder.visibility == Visibility.SHARED:
        raise validation.invalid("parent_id", _("a shared folder cannot go into a private folder"))
    return parent


@transaction.atomic
def delete_folder(principal: Principal, folder_id: int) -> int:
    """Only empty folders go: nobody loses notes (or another person's private ones) by accident."""
    folder = get_folder(principal, folder_id, for_update=True)
    if folder.children.exists() or folder.notes.exists():
        raise InvalidInput(
            _("Move the notes and subfolders out of “%(name)s” first.") % {"name": folder.name}
        )
    _require_private_owner(principal, folder, _("Only the owner can delete a private folder."))
    pk, folder_viewers = folder.pk, viewers(folder)
    folder.delete()
    events.folder_deleted(pk, folder_viewers)
    return pk


# --- reading notes ----------------------------------------------------------------------------
def _matching(qs: QuerySet[Note], query: str) -> QuerySet[Note]:
    """Notes whose name or any page (title, text) matches every word (German full text)."""
    by_name = search(Note.objects.all(), query).values("id")
    by_page = search(NotePage.objects.all(), query).values("note_id")
    return qs.filter(Q(id__in=by_name) | Q(id__in=by_page))


def list_notes(principal: Principal, filters: NoteFilter) -> tuple[list[Note], int]:
    """A page of visible notes, most recently changed first, and the total (three queries)."""
    qs = visible_notes(principal)
    if filters.folder_id is not None:
        qs = qs.filter(folder=get_folder(principal, filters.folder_id))
    if filters.case_id is not None:
        qs = qs.filter(case=resolve_case(principal, filters.case_id))
    if filters.query:
        qs = _matching(qs, filters.query)
    limit, offset = filters.limit, filters.offset
    total = qs.count()
    ids = list(qs.order_by("-updated_at", "-id").values_list("id", flat=True)[offset : offset + limit])
    rows = with_relations(Note.objects.filter(pk__in=ids)).annotate(page_count=Count("pages"))
    by_id = {n.pk: n for n in rows}
    return [by_id[i] for i in ids], total


def note_pages(note: Note) -> list[NotePage]:
    return list(note.pages.all())


# --- writing notes ----------------------------------------------------------------------------
def _check_placement(folder: NoteFolder | None, visibility: str) -> None:
    if folder is not None and folder.visibility == Visibility.PRIVATE and visibility == Visibility.SHARED:
        raise validation.invalid("folder_id", _("a shared note cannot go into a private folder"))


def _folder_for(principal: Principal, folder_id: int | str | None, visibility: str) -> NoteFolder | None:
    folder = get_folder(principal, folder_id) if folder_id not in (None, "") else None
    _check_placement(folder, visibility)
    return folder


@transaction.atomic
def create_note(principal: Principal, data: NoteCreate) -> tuple[Note, NotePage]:
    """A note always starts with one page (optionally with content), so it can be written in."""
    from apps.notes import page_services

    folder = get_folder(principal, data.folder_id) if data.folder_id is not None else None
    default = folder.visibility if folder else (Visibility.PRIVATE if principal.user else Visibility.SHARED)
    visibility = _visibility(principal, data.visibility, default)
    _check_placement(folder, visibility)
    note = Note.objects.create(
        name=data.name,
        folder=folder,
        case=resolve_case(principal, data.case_id),
        visibility=visibility,
        owner=principal.user if visibility == Visibility.PRIVATE else principal.audit_actor,
        created_by_service=principal.service,
    )
    page = page_services.new_page(
        note, title=data.page_title or "", html=data.html, text=data.text, ordinal=0
    )
    note = get_note(principal, note.pk)
    events.note_changed(note, "notizen.note.created")
    return note, page


@transaction.atomic
def update_note(principal: Principal, note_id: int, data: NoteUpdate) -> Note:
    """Rename, move to another folder (None: top level) or change who sees it. Fields not sent
    (`NoteUpdate.changes()`) stay as they are; with `expected_version` a stale write is refused."""
    changes = data.changes()
    note = get_note(principal, note_id, for_update=True)
    NOTE_VERSION.check(note, data.expected_version)
    old_viewers = viewers(note)
    if "folder_id" in changes and str(changes["folder_id"] or "") != str(note.folder_id or ""):
        _require_private_owner(principal, note, _("Only the owner can move a private note."))
    if "name" in changes:
        if not changes["name"]:  # an explicit null: the contract checked every text
            raise validation.invalid("name", _("must not be empty"))
        note.name = changes["name"]
    if "visibility" in changes and changes["visibility"] != note.visibility:
        note.visibility = _visibility(principal, changes["visibility"], note.visibility)
        if note.owner_id not in (None, getattr(principal.user, "pk", None)):
            raise Forbidden(_("Only the note's owner can change who sees it."))
        note.owner = principal.user or note.owner
    if "folder_id" in changes:
        note.folder = _folder_for(principal, changes["folder_id"], note.visibility)
    elif (
        note.folder_id
        and note.folder.visibility == Visibility.PRIVATE
        and note.visibility == Visibility.SHARED
    ):
        raise validation.invalid("visibility", _("a note in a private folder must stay private"))
    if "case_id" in changes:
        note.case = resolve_case(principal, changes["case_id"])
    note.version += 1
    note.save()
    events.note_changed(note, "notizen.note.updated", old_viewers=old_viewers)
    return note


@transaction.atomic
def delete_note(principal: Principal, note_id: int) -> int:
    note = get_note(principal, note_id, for_update=True)
    if note.visibility == Visibility.SHARED and principal.user is None:
        raise Forbidden(_("Only a person can delete a shared note."))
    _require_private_owner(principal, note, _("Only the owner can delete a private note."))
    pk, note_viewers = note.pk, viewers(note)
    note.delete()
    events.note_deleted(pk, note_viewers)
    return pk


from apps.notes.page_services import (  # noqa: E402  (re-exported: one import for callers)
    create_page,
    delete_page,
    get_page,
    update_page,
)

__all__ = [
    "create_folder",
    "create_note",
    "create_page",
    "delete_folder",
    "delete_note",
    "delete_page",
    "get_folder",
    "get_note",
    "get_page",
    "list_folders",
    "list_notes",
    "note_pages",
    "update_folder",
    "update_note",
    "update_page",
]
