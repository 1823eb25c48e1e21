"""Who sees which folder and note. One resolved scope drives authorization and event audiences.

* shared folders and notes: every staff user and every active service principal
* private folders and notes: their owner only (a service principal never borrows a member's
  private notes, and administrators get no back door either)

Pages inherit the visibility of their note.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet

from apps.accounts.principal import Principal
from apps.mutations.audience import EVERYONE, Viewers
from apps.notes.models import Note, NoteFolder, NotePage, Visibility


def _scope(principal: Principal, prefix: str = "") -> Q:
    q = Q(**{f"{prefix}visibility": Visibility.SHARED})
    user = principal.user  # a service principal's acting member never widens the scope
    if user is not None:
        q |= Q(**{f"{prefix}owner_id": user.pk})
    return q


def visible_folders(principal: Principal) -> QuerySet[NoteFolder]:
    return NoteFolder.objects.filter(_scope(principal))


def visible_notes(principal: Principal) -> QuerySet[Note]:
    return Note.objects.filter(_scope(principal))


def visible_pages(principal: Principal) -> QuerySet[NotePage]:
    return NotePage.objects.filter(_scope(principal, "note__"))


def note_filter(principal: Principal, prefix: str = "") -> Q:
    return _scope(principal, prefix)


def viewers(record: Note | NoteFolder) -> Viewers:
    """EVERYONE for shared records, else the owner alone."""
    if record.visibility == Visibility.SHARED:
        return EVERYONE
    return {record.owner_id} if record.owner_id else set()
