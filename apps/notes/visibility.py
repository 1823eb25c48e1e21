"""Who sees which folder and note. One resolved scope drives authorization and event audiences.

* shared folders and notes: every staff user and every active service principal
* private folders and notes: their owner only (a service principal never borrows a member's
  private notes, and administrators get no back door either) ...
* ... and the people and groups the owner shared them with (django-guardian `view_note` on a
  note, `view_notefolder` on a folder: the folder and the notes in it, see apps.notes.sharing)

Pages inherit the visibility of their note.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet
from guardian.shortcuts import get_users_with_perms

from apps.accounts.principal import Principal
from apps.core.sharing import granted_to
from apps.mutations.audience import EVERYONE, Viewers
from apps.notes.models import Note, NoteFolder, NotePage, Visibility

NOTE_PERMISSION = "view_note"
FOLDER_PERMISSION = "view_notefolder"


def _granted(user, model: type[Note] | type[NoteFolder]) -> QuerySet:
    """Ids of the private rows shared with `user` (or a group of theirs), as a subquery."""
    perm = NOTE_PERMISSION if model is Note else FOLDER_PERMISSION
    return granted_to(user, f"notes.{perm}", model.objects.filter(visibility=Visibility.PRIVATE)).values("id")


def _owned_or_shared(principal: Principal, prefix: str = "") -> Q:
    q = Q(**{f"{prefix}visibility": Visibility.SHARED})
    user = principal.user  # a service principal's acting member never widens the scope
    if user is not None:
        q |= Q(**{f"{prefix}owner_id": user.pk})
    return q


def folder_filter(principal: Principal) -> Q:
    q = _owned_or_shared(principal)
    if principal.user is not None:
        q |= Q(id__in=_granted(principal.user, NoteFolder))
    return q


def note_filter(principal: Principal, prefix: str = "") -> Q:
    q = _owned_or_shared(principal, prefix)
    if principal.user is not None:
        q |= Q(**{f"{prefix}id__in": _granted(principal.user, Note)})
        q |= Q(**{f"{prefix}folder_id__in": _granted(principal.user, NoteFolder)})
    return q


def visible_folders(principal: Principal) -> QuerySet[NoteFolder]:
    return NoteFolder.objects.filter(folder_filter(principal))


def visible_notes(principal: Principal) -> QuerySet[Note]:
    return Note.objects.filter(note_filter(principal))


def visible_pages(principal: Principal) -> QuerySet[NotePage]:
    return NotePage.objects.filter(note_filter(principal, "note__"))


def _grantees(record: Note | NoteFolder) -> set[int]:
    perm = NOTE_PERMISSION if isinstance(record, Note) else FOLDER_PERMISSION
    return set(get_users_with_perms(record, only_with_perms_in=[perm]).values_list("id", flat=True))


def viewers(record: Note | NoteFolder) -> Viewers:
    """EVERYONE for shared records, else the owner and the people it is shared with."""
    if record.visibility == Visibility.SHARED:
        return EVERYONE
    ids = {record.owner_id} if record.owner_id else set()
    ids |= _grantees(record)
    if isinstance(record, Note) and record.folder_id is not None:
        folder = record.folder
        if folder.visibility == Visibility.PRIVATE:
            ids |= _grantees(folder)
    return ids
