"""Per-person sharing of private notes and note folders: the only writer of their grants (the
Notizen page's share dialog and the admin call it).

A private note (or folder) is its owner's; the owner may share it with people and groups, who
then see and edit it (a folder: the folder and the notes directly in it). Shared notes are seen
by the whole office already. Administrators get no back door: in the admin they may revoke a
share (cleaning up after someone left) but not grant one. The owner's own access cannot be
revoked (`share_last_owner`).

Live: who gains sight of a note gets it as an upsert, who loses it a removal (their open note
closes at once), through the domain's usual events.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from functools import partial
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from guardian.utils import get_group_obj_perms_model, get_user_obj_perms_model

from apps.accounts.principal import Principal
from apps.core import sharing, validation
from apps.core.db.lookup import get_by_id
from apps.core.errors import ShareLastOwner, ShareNotAllowed
from apps.mutations.audience import announced_remove, announced_upsert, send
from apps.notes import events
from apps.notes.contracts import NoteFolderOut
from apps.notes.errors import FolderNotFound, NoteNotFound
from apps.notes.models import Note, NoteFolder, Visibility
from apps.notes.records import with_relations
from apps.notes.visibility import FOLDER_PERMISSION, NOTE_PERMISSION, viewers, visible_folders, visible_notes

NOTE_LEVELS: sharing.Levels = {"view": (NOTE_PERMISSION,)}
FOLDER_LEVELS: sharing.Levels = {"view": (FOLDER_PERMISSION,)}
LEVEL_LABELS = {"view": gettext_lazy("Can read and edit")}


def _load(principal: Principal, model, record_id: Any, *, as_admin: bool, lock: bool = True):
    admin = as_admin and principal.user is not None and principal.user.is_admin
    if model is Note:
        qs = with_relations(Note.objects.all() if admin else visible_notes(principal))
        error, message = NoteNotFound, _("There is no note with id %(id)s.")
    else:
        qs = NoteFolder.objects.all() if admin else visible_folders(principal)
        error, message = FolderNotFound, _("There is no note folder with id %(id)s.")
    if lock:
        qs = qs.select_for_update(of=("self",))
    return get_by_id(qs, record_id, error, message)


def _is_owner(principal: Principal, record) -> bool:
    return principal.user is not None and record.owner_id == principal.user.pk


def _shares(model, levels, principal: Principal, record_id: Any, *, as_admin: bool) -> dict[str, Any]:
    record = _load(principal, model, record_id, as_admin=as_admin, lock=False)
    private = record.visibility == Visibility.PRIVATE
    can_manage = private and (_is_owner(principal, record) or (as_admin and principal.user.is_admin))
    data = sharing.payload(
        record,
        owner=record.owner if private else None,
        levels=levels,
        can_manage=can_manage,
        level_labels=LEVEL_LABELS,
    )
    return data | {"shareable": private}


def _change(model, levels, principal: Principal, record_id: Any, target: Any, level, *, as_admin: bool):
    record = _load(principal, model, record_id, as_admin=as_admin)
    admin = as_admin and principal.user is not None and principal.user.is_admin
    granting = level is not None
    if not _is_owner(principal, record) and not (admin and not granting):
        raise ShareNotAllowed(_("Only the owner of “%(name)s” can share it.") % {"name": record.name})
    who = sharing.resolve_target(target)
    if record.visibility != Visibility.PRIVATE:
        raise validation.invalid("target", _("it is shared with the whole office already"))
    if who.kind == "user" and who.obj.pk == record.owner_id:
        if granting:
            raise validation.invalid("target", _("the owner sees it anyway"))
        raise ShareLastOwner(_("The owner keeps access to “%(name)s”.") % {"name": record.name})
    notes = [record] if model is Note else list(with_relations(Note.objects.filter(folder=record)))
    before = {note.pk: viewers(note) for note in notes}
    folder_before = viewers(record) if model is NoteFolder else None
    if granting:
        sharing.grant(record, who, levels, sharing.check_level(level, levels))
    else:
        sharing.revoke(record, who, levels)
    if folder_before is not None:
        gained, lost = sharing.changed_viewers(folder_before, viewers(record))
        if gained:
            send(
                gained,
                events.FOLDER_TOPIC,
                announced_upsert(events.FOLDERS, NoteFolderOut.record(record), "notizen.folder.shared"),
            )
        if lost:
            send(
                lost,
                events.FOLDER_TOPIC,
                announced_remove(events.FOLDERS, record.pk, "notizen.folder.removed"),
            )
    for note in notes:
        gained, lost = sharing.changed_viewers(before[note.pk], viewers(note))
        if gained or lost:
            events.note_changed(note, "notizen.note.shared", old_viewers=before[note.pk])
    return record


def _operations(model, levels) -> sharing.Operations:
    return sharing.Operations(partial(_shares, model, levels), partial(_change, model, levels))


NOTES, FOLDERS = _operations(Note, NOTE_LEVELS), _operations(NoteFolder, FOLDER_LEVELS)
note_shares, grant_note, revoke_note = NOTES.shares, NOTES.grant, NOTES.revoke
folder_shares, grant_folder, revoke_folder = FOLDERS.shares, FOLDERS.grant, FOLDERS.revoke


def mark_shared_with(notes: Iterable[Note]) -> None:
    """Sets `note.shared_with` on each note: the names of the people and groups a private note is
    shared with, directly or through its folder (empty for a note nobody else sees; shared notes
    are the office's anyway). Two queries for any number of notes, none without a private one."""
    notes = list(notes)
    private = [note for note in notes if note.visibility == Visibility.PRIVATE]
    for note in notes:
        note.shared_with = []
    if not private:
        return
    note_type, folder_type = (ContentType.objects.get_for_model(m) for m in (Note, NoteFolder))
    wanted = Q(content_type=note_type, object_pk__in=[str(n.pk) for n in private])
    folder_ids = {str(n.folder_id) for n in private if n.folder_id}
    if folder_ids:
        wanted |= Q(content_type=folder_type, object_pk__in=folder_ids)
    codenames = (NOTE_PERMISSION, FOLDER_PERMISSION)
    names: dict[tuple[int, str], list[str]] = defaultdict(list)
    user_rows = (
        get_user_obj_perms_model()
        ._default_manager.filter(wanted, permission__codename__in=codenames)
        .values_list("content_type_id", "object_pk", "user__full_name", "user__email")
        .order_by("user__full_name", "user__email", "id")
    )
    for type_id, pk, full_name, email in user_rows:
        names[(type_id, pk)].append(full_name or email)
    group_rows = (
        get_group_obj_perms_model()
        ._default_manager.filter(wanted, permission__codename__in=codenames)
        .values_list("content_type_id", "object_pk", "group__name")
        .order_by("group__name", "id")
    )
    for type_id, pk, group_name in group_rows:
        names[(type_id, pk)].append(group_name)
    for note in private:
        found = names[(note_type.pk, str(note.pk))] + names[(folder_type.pk, str(note.folder_id))]
        note.shared_with = list(dict.fromkeys(found))
