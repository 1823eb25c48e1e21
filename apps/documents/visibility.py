"""Who sees and changes which folder or document. One resolved scope drives authorization and
event audiences alike.

* root documents (no folder) and shared folders: every staff user and every active service
  principal may view, change and delete
* personal folders (a "Persönlich" folder and its subtree): the owner only, never a service
  principal, never an administrator by role
* explicit grants (django-guardian `view_/change_/delete_folder` on a folder, valid for its whole
  subtree; `view_/change_/delete_document` on one document) widen this for named people or groups
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.db.models.lookups import StartsWith
from guardian.shortcuts import get_users_with_perms

from apps.accounts.principal import Principal
from apps.core.sharing import granted_pks, granted_to
from apps.documents.models import Document, Folder
from apps.mutations.audience import EVERYONE, Viewers

ACTIONS = ("view", "change", "delete")


def _granted_folder_paths(user, action: str) -> list[str]:
    granted = granted_to(user, f"documents.{action}_folder", Folder.objects.filter(kind=Folder.Kind.PERSONAL))
    return list(granted.values_list("tree_path", flat=True))


def folder_filter(principal: Principal, action: str = "view") -> Q:
    q = Q(kind=Folder.Kind.SHARED)
    user = principal.user  # a service principal's acting member never widens the scope
    if user is not None:
        q |= Q(owner_id=user.pk)
        for path in _granted_folder_paths(user, action):
            q |= Q(tree_path__startswith=path)
    return q


def visible_folders(principal: Principal, action: str = "view") -> QuerySet[Folder]:
    return Folder.objects.filter(folder_filter(principal, action))


def document_filter(principal: Principal, action: str = "view") -> Q:
    """Folder ids are resolved first (an office has tens of folders per person, not millions), so
    the document queries stay simple index scans."""
    folder_ids = list(visible_folders(principal, action).values_list("id", flat=True))
    q = Q(folder__isnull=True) | Q(folder_id__in=folder_ids)
    if principal.user is not None:
        granted = granted_to(principal.user, f"documents.{action}_document", Document).values("id")
        q |= Q(id__in=granted)
    return q


def document_scope_q(user_id: int, action: str = "view") -> Q:
    """`document_filter` of a person (id) as one statement: the visible folders and the grants as
    subqueries instead of ids read first, so its SQL is the same whatever a person was granted
    (a prepared statement's, `apps.core.db.prepared`). Same rules: the root, shared folders, the
    person's own folders and the subtrees of personal folders granted to them, granted documents."""
    granted_folders = Folder.objects.filter(
        kind=Folder.Kind.PERSONAL, pk__in=granted_pks(user_id, Folder, f"{action}_folder")
    )
    under_granted = Exists(granted_folders.filter(StartsWith(OuterRef("tree_path"), F("tree_path"))))
    folders = Folder.objects.filter(Q(kind=Folder.Kind.SHARED) | Q(owner_id=user_id) | under_granted)
    return (
        Q(folder__isnull=True)
        | Q(folder_id__in=folders.values("id"))
        | Q(id__in=granted_pks(user_id, Document, f"{action}_document"))
    )


def visible_documents(principal: Principal, action: str = "view") -> QuerySet[Document]:
    return Document.objects.filter(document_filter(principal, action))


def can_folder(principal: Principal, folder: Folder | None, action: str) -> bool:
    if folder is None or not folder.is_personal:
        return True
    user = principal.user
    if user is None:
        return False
    if folder.owner_id == user.pk:
        return True
    return any(folder.tree_path.startswith(p) for p in _granted_folder_paths(user, action))


def can_document(principal: Principal, document: Document, action: str) -> bool:
    if can_folder(principal, document.folder, action):
        return True
    user = principal.user
    return user is not None and user.has_perm(f"documents.{action}_document", document)


def _ancestor_ids(folder: Folder) -> list[int]:
    return [int(part) for part in folder.tree_path.strip("/").split("/") if part]


def folder_viewers(folder: Folder | None) -> Viewers:
    """EVERYONE for the root and shared folders, else the owner and the people granted a view."""
    if folder is None or not folder.is_personal:
        return EVERYONE
    ids = {folder.owner_id}
    for ancestor in Folder.objects.filter(pk__in=_ancestor_ids(folder)):
        ids |= set(
            get_users_with_perms(
                ancestor, only_with_perms_in=["view_folder"], with_group_users=True
            ).values_list("id", flat=True)
        )
    return ids


def document_viewers(document: Document) -> Viewers:
    viewers = folder_viewers(document.folder)
    if viewers == EVERYONE:
        return EVERYONE
    return viewers | set(
        get_users_with_perms(
            document, only_with_perms_in=["view_document"], with_group_users=True
        ).values_list("id", flat=True)
    )


def grant(obj: Folder | Document, user_id: int, actions: tuple[str, ...] = ("view",)) -> None:
    """Give one person explicit rights on a personal folder (and its subtree) or a document."""
    from guardian.shortcuts import assign_perm

    user = get_user_model().objects.get(pk=user_id)
    model = "folder" if isinstance(obj, Folder) else "document"
    for action in actions:
        assign_perm(f"documents.{action}_{model}", user, obj)
