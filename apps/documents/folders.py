"""Folder services: the tree, each person's lazily created "Persönlich", create / rename / move /
delete. Like every service module here, the only writer of its rows."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet, Value
from django.db.models.functions import Concat, Substr
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.core import names, validation
from apps.core.db.lookup import get_by_id
from apps.core.db.saving import save_unique
from apps.core.db.versioning import Versioned
from apps.core.errors import Forbidden
from apps.documents import events
from apps.documents.contracts import FolderCreate, FolderOut, FolderUpdate
from apps.documents.errors import FolderNameTaken, FolderNotEmpty, FolderNotFound, FolderProtected
from apps.documents.models import FOLDER_NAME_MAX, HOME_FOLDER_NAME, RESERVED_FOLDER_NAMES, Document, Folder
from apps.documents.records import with_relations
from apps.documents.rows import announce_text, delete_document_rows
from apps.documents.visibility import can_folder, folder_viewers, visible_folders

MAX_DEPTH = 12
FOLDER_VERSION = Versioned(
    "folder", FolderOut.record, gettext_lazy("The folder was changed by someone else in the meantime.")
)


def _name(value: str) -> str:
    name = validation.text(value, "name", max_length=FOLDER_NAME_MAX, required=True)
    if "/" in name or "\\" in name or any(ord(ch) < 32 for ch in name):
        raise validation.invalid("name", _("must not contain slashes or control characters"))
    names.check(name, reserved=RESERVED_FOLDER_NAMES)  # "🔒 Persönlich" would pass for a home folder
    return name


def ensure_home_folder(principal: Principal) -> Folder | None:
    """The person's private "Persönlich" folder, created on first need (None for services)."""
    user = principal.user
    if user is None:
        return None
    home = Folder.objects.filter(owner=user, is_home=True).first()
    if home is not None:
        return home
    try:
        with transaction.atomic():
            home = Folder.objects.create(
                name=HOME_FOLDER_NAME, kind=Folder.Kind.PERSONAL, owner=user, is_home=True, created_by=user
            )
            home.tree_path = f"/{home.pk}/"
            home.save(update_fields=["tree_path"])
    except IntegrityError:  # created concurrently
        home = Folder.objects.get(owner=user, is_home=True)
    return home


def inherited_client(folder: Folder | None):
    """The client of the nearest client folder at or above `folder` (None: no client folder).
    One query at most: the ancestors' ids are in the materialized path."""
    if folder is None:
        return None
    if folder.client_id is not None:
        return folder.client
    ancestors = [int(pk) for pk in folder.tree_path.strip("/").split("/") if pk]
    nearest = (
        Folder.objects.filter(pk__in=ancestors, client__isnull=False)
        .select_related("client")
        .order_by("-tree_path")
        .first()
    )
    return nearest.client if nearest is not None else None


def _client(principal: Principal, client_id: int | None):
    from apps.clients.services import resolve_client

    return resolve_client(principal, client_id, field="client_id")


def _link_subtree(folder: Folder) -> None:
    """Documents in a client folder's subtree are linked to its client (existing links stay):
    one insert for all of them, then the knowledge store hears of the new scope and open pages
    (the client page among them) get the new records."""
    client = inherited_client(folder)
    if client is None:
        return
    subtree = Folder.objects.filter(tree_path__startswith=folder.tree_path).values("id")
    through = Document.clients.through
    missing = Document.objects.filter(folder_id__in=subtree).exclude(clients=client)
    ids = list(missing.values_list("id", flat=True))
    through.objects.bulk_create(
        [through(document_id=pk, client_id=client.pk) for pk in ids], ignore_conflicts=True
    )
    if not ids:
        return
    linked = list(with_relations(Document.objects.filter(pk__in=ids), with_text=True))
    for document in linked:
        announce_text(document)
    events.documents_linked(linked)


def list_folders(principal: Principal) -> list[Folder]:
    ensure_home_folder(principal)
    return list(visible_folders(principal).select_related("client").order_by("tree_path"))


def get_folder(
    principal: Principal, folder_id: Any, *, action: str = "view", for_update: bool = False
) -> Folder:
    qs: QuerySet[Folder] = visible_folders(principal)
    if for_update:
        qs = qs.select_for_update(of=("self",))
    qs = qs.select_related("client")
    folder = get_by_id(qs, folder_id, FolderNotFound, _("There is no folder with id %(id)s."))
    if action != "view" and not can_folder(principal, folder, action):
        raise Forbidden(_("You may not change the folder “%(name)s”.") % {"name": folder.name})
    return folder


def _save(folder: Folder) -> None:
    save_unique(folder, lambda: _name_taken(folder))


def _name_taken(folder: Folder) -> FolderNameTaken:
    return FolderNameTaken(
        _("There already is a folder “%(name)s” here.") % {"name": folder.name},
        details={"field_errors": {"name": _("is already used here")}},
    )


def _place_under(folder: Folder, parent: Folder | None) -> None:
    folder.parent = parent
    if parent is None:
        folder.kind, folder.owner = Folder.Kind.SHARED, None
    else:
        if parent.depth + 1 >= MAX_DEPTH:
            raise validation.invalid("parent_id", _("the folder tree is too deep"))
        folder.kind, folder.owner_id = parent.kind, parent.owner_id


@transaction.atomic
def create_folder(principal: Principal, data: FolderCreate) -> Folder:
    """A folder; with `client_id` a client folder (its documents are linked to that Mandant)."""
    name = _name(data.name)
    parent = get_folder(principal, data.parent_id, action="change") if data.parent_id is not None else None
    folder = Folder(name=name, created_by=principal.audit_actor, client=_client(principal, data.client_id))
    _place_under(folder, parent)
    _save(folder)
    folder.tree_path = f"{parent.tree_path if parent else '/'}{folder.pk}/"
    folder.save(update_fields=["tree_path"])
    events.folders_changed(folder, "documents.folder.created")
    return folder


@transaction.atomic
def update_folder(principal: Principal, folder_id: int, data: FolderUpdate) -> Folder:
    """Rename and/or move, make it a client folder (`client_id`) or an ordinary one again
    (`remove_client`: the documents keep their links). Moving re-parents the whole subtree; its
    kind and owner follow the new parent (a personal subtree moved into a shared folder becomes
    visible to the office), and a subtree moved below a client folder is linked to its client."""
    folder = get_folder(principal, folder_id, action="change", for_update=True)
    if folder.is_home:
        raise FolderProtected(_("Your “Persönlich” folder cannot be renamed or moved."))
    FOLDER_VERSION.check(folder, data.expected_version)
    old_viewers = folder_viewers(folder)
    old_path = folder.tree_path
    if data.name is not None:
        folder.name = _name(data.name)
    parent_id, client_id = data.parent_id, data.client_id
    moving = data.moves_to_root() or parent_id is not None
    if moving:
        parent = get_folder(principal, parent_id, action="change") if parent_id is not None else None
        if parent is not None and parent.tree_path.startswith(old_path):
            raise validation.invalid("parent_id", _("a folder cannot move into itself"))
        _place_under(folder, parent)
        folder.tree_path = f"{parent.tree_path if parent else '/'}{folder.pk}/"
    if data.removes_client():
        folder.client = None
    elif client_id is not None:
        folder.client = _client(principal, client_id)
    folder.version += 1
    _save(folder)
    if moving and folder.tree_path != old_path:
        _move_subtree(folder, old_path)
    if moving or client_id is not None:
        _link_subtree(folder)
    events.folders_changed(folder, "documents.folder.updated", old_viewers=old_viewers)
    return folder


def _move_subtree(folder: Folder, old_path: str) -> None:
    """Descendants follow: new path prefix, the new kind and owner; their documents are announced
    to the knowledge store again (the consent path and maybe the scope changed)."""
    descendants = Folder.objects.filter(tree_path__startswith=old_path).exclude(pk=folder.pk)
    descendants.update(
        tree_path=Concat(Value(folder.tree_path), Substr("tree_path", len(old_path) + 1)),
        kind=folder.kind,
        owner_id=folder.owner_id,
    )
    subtree = Folder.objects.filter(tree_path__startswith=folder.tree_path).values("id")
    for document in Document.objects.filter(folder_id__in=subtree).select_related("folder").defer("search"):
        announce_text(document)


@transaction.atomic
def folder_contents(principal: Principal, folder_id: int) -> tuple[Folder, int, int]:
    """A folder (the principal may delete) with the number of documents and subfolders a
    recursive delete would remove with it."""
    folder = get_folder(principal, folder_id, action="delete")
    subtree = Folder.objects.filter(tree_path__startswith=folder.tree_path)
    documents = Document.objects.filter(folder__in=subtree).count()
    return folder, documents, subtree.count() - 1


def delete_folder(principal: Principal, folder_id: int, *, recursive: bool = False) -> int:
    """A folder with content is deleted only with `recursive`; then its documents go too (files
    removed after commit, the knowledge store told inside the transaction)."""
    folder = get_folder(principal, folder_id, action="delete", for_update=True)
    if folder.is_home:
        raise FolderProtected(_("Your “Persönlich” folder cannot be deleted."))
    subtree = list(Folder.objects.filter(tree_path__startswith=folder.tree_path).order_by("-tree_path"))
    documents = list(Document.objects.filter(folder__in=subtree).select_related("folder").defer("search"))
    if (documents or len(subtree) > 1) and not recursive:
        raise FolderNotEmpty(
            _(
                "The folder “%(name)s” is not empty (%(docs)d documents, %(folders)d subfolders). "
                "Empty it first or delete it recursively."
            )
            % {"name": folder.name, "docs": len(documents), "folders": len(subtree) - 1},
            details={"documents": len(documents), "subfolders": len(subtree) - 1},
        )
    viewers = folder_viewers(folder)
    delete_document_rows(documents)
    for node in subtree:  # deepest first: parents are PROTECTed while children exist
        node.delete()
    events.folder_deleted(viewers)
    return int(folder_id)
