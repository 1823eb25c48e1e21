"""Sharing personal folders and the documents in them with people and groups: the only writer of
those grants (the documents pages' share dialog and the admin call it). Public links are
`apps.documents.sharing`.

Root documents and shared folders are seen by the whole office already; a personal folder (and
its subtree) or a document in one is shared by its owner, who grants "read" (view) or "edit"
(view, change, delete). An administrator may do it from the admin (the control plane); the
owner's own access cannot be revoked (`share_last_owner`).

Live: the folder trees of everybody concerned reload; who loses a document gets its removal, so
an open list or detail page drops it at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.core import sharing, validation
from apps.core.db.lookup import get_by_id
from apps.core.errors import ShareLastOwner, ShareNotAllowed
from apps.documents import events
from apps.documents.errors import DocumentNotFound, FolderNotFound
from apps.documents.models import Document, Folder
from apps.documents.records import with_relations
from apps.documents.visibility import document_viewers, folder_viewers, visible_documents, visible_folders
from apps.mutations import actions
from apps.mutations.audience import send

FOLDER_LEVELS: sharing.Levels = {
    "view": ("view_folder",),
    "edit": ("view_folder", "change_folder", "delete_folder"),
}
DOCUMENT_LEVELS: sharing.Levels = {
    "view": ("view_document",),
    "edit": ("view_document", "change_document", "delete_document"),
}
LEVEL_LABELS = {"view": gettext_lazy("Can read"), "edit": gettext_lazy("Can read and edit")}
MAX_REMOVALS = 400  # beyond this the removal event asks the pages to reload instead


def _admin(principal: Principal, as_admin: bool) -> bool:
    return as_admin and principal.user is not None and principal.user.is_admin


def _folder(principal: Principal, folder_id: Any, *, as_admin: bool, lock: bool) -> Folder:
    qs = Folder.objects.all() if _admin(principal, as_admin) else visible_folders(principal)
    if lock:
        qs = qs.select_for_update(of=("self",))
    return get_by_id(qs, folder_id, FolderNotFound, _("There is no folder with id %(id)s."))


def _document(principal: Principal, document_id: Any, *, as_admin: bool, lock: bool) -> Document:
    qs = Document.objects.all() if _admin(principal, as_admin) else visible_documents(principal)
    if lock:
        qs = qs.select_for_update(of=("self",))
    qs = with_relations(qs.defer("search", "extracted_text", "sections"))
    return get_by_id(qs, document_id, DocumentNotFound, _("There is no document with id %(id)s."))


def _owner(record: Folder | Document):
    folder = record if isinstance(record, Folder) else record.folder
    return folder.owner if folder is not None and folder.is_personal else None


def _check(principal: Principal, record: Folder | Document, *, as_admin: bool) -> Any:
    owner = _owner(record)
    name = record.name if isinstance(record, Folder) else record.title
    if owner is None:  # a shared folder or root document: nobody's to share
        raise ShareNotAllowed(_("“%(name)s” is seen by the whole office already.") % {"name": name})
    if not (principal.user is not None and owner.pk == principal.user.pk) and not _admin(principal, as_admin):
        raise ShareNotAllowed(_("Only the owner of “%(name)s” can share it.") % {"name": name})
    return owner


def _payload(principal, record, levels, *, as_admin: bool) -> dict[str, Any]:
    owner = _owner(record)
    can_manage = owner is not None and (
        (principal.user is not None and owner.pk == principal.user.pk) or _admin(principal, as_admin)
    )
    data = sharing.payload(
        record, owner=owner, levels=levels, can_manage=can_manage, level_labels=LEVEL_LABELS
    )
    return data | {"shareable": owner is not None}


@dataclass(frozen=True)
class _Kind:
    load: Callable[..., Any]  # (principal, id, as_admin=, lock=) → the folder or document
    levels: sharing.Levels
    viewers: Callable[[Any], Any]


FOLDER_KIND = _Kind(_folder, FOLDER_LEVELS, folder_viewers)
DOCUMENT_KIND = _Kind(_document, DOCUMENT_LEVELS, document_viewers)


def _shares(kind: _Kind, principal: Principal, record_id: Any, *, as_admin: bool = False) -> dict[str, Any]:
    record = kind.load(principal, record_id, as_admin=as_admin, lock=False)
    return _payload(principal, record, kind.levels, as_admin=as_admin)


def _changed(kind: _Kind, principal: Principal, record_id: Any, target: Any, level, *, as_admin: bool):
    """Lock the record, check the caller may share it and give `target` the level (None: take
    the access away): the record and who saw it before."""
    record = kind.load(principal, record_id, as_admin=as_admin, lock=True)
    _check(principal, record, as_admin=as_admin)
    before = kind.viewers(record)
    _change(record, target, kind.levels, level)
    return record, before


def _change(record, target, levels, level) -> None:
    who = _check_owner_target(record, target, granting=level is not None)
    if level is not None:
        sharing.grant(record, who, levels, sharing.check_level(level, levels))
    else:
        sharing.revoke(record, who, levels)


def _check_owner_target(record, target, *, granting: bool) -> sharing.Target:
    who = sharing.resolve_target(target)
    owner = _owner(record)
    if who.kind == "user" and owner is not None and who.obj.pk == owner.pk:
        if granting:
            raise validation.invalid("target", _("the owner sees it anyway"))
        raise ShareLastOwner(_("The owner keeps access."))
    return who


def _subtree_documents(folder: Folder) -> list[int]:
    ids = Document.objects.filter(folder__tree_path__startswith=folder.tree_path).values_list("id", flat=True)
    return list(ids[: MAX_REMOVALS + 1])


def _announce_lost(lost: set[int], document_ids: list[int]) -> None:
    if not lost or not document_ids:
        return
    if len(document_ids) > MAX_REMOVALS:
        send(lost, "documents.document.removed", [], trigger_reload=True)
        return
    removals = [actions.remove(events.LIST, str(i)) for i in document_ids]
    removals[0] |= {"announce_key": "documents.document.removed"}
    send(lost, "documents.document.removed", removals)


# --- folders ----------------------------------------------------------------------------------
def _folder_change(principal, folder_id, target, level, *, as_admin: bool) -> Folder:
    folder, before = _changed(FOLDER_KIND, principal, folder_id, target, level, as_admin=as_admin)
    after = folder_viewers(folder)
    events.folders_changed(folder, "documents.folder.updated", old_viewers=before)
    # who still sees a document through a grant of its own keeps it: only folder access is lost
    _, lost = sharing.changed_viewers(before, after)
    if lost:
        subtree = _subtree_documents(folder)
        for user in get_user_model().objects.filter(pk__in=lost):
            still = set(
                visible_documents(Principal.for_user(user))
                .filter(pk__in=subtree)
                .values_list("id", flat=True)
            )
            _announce_lost({user.pk}, [i for i in subtree if i not in still])
    return folder


FOLDERS = sharing.Operations(partial(_shares, FOLDER_KIND), _folder_change)
folder_shares, grant_folder, revoke_folder = FOLDERS.shares, FOLDERS.grant, FOLDERS.revoke


# --- documents --------------------------------------------------------------------------------
def _document_change(principal, document_id, target, level, *, as_admin: bool) -> Document:
    document, before = _changed(DOCUMENT_KIND, principal, document_id, target, level, as_admin=as_admin)
    gained, lost = sharing.changed_viewers(before, document_viewers(document))
    if gained or lost:
        events.document_changed(document, "documents.document.updated", old_viewers=before)
    return document


DOCUMENTS = sharing.Operations(partial(_shares, DOCUMENT_KIND), _document_change)
document_shares, grant_document, revoke_document = DOCUMENTS.shares, DOCUMENTS.grant, DOCUMENTS.revoke
