"""Documents whose folder (or a folder above it) or whose client is marked "neutralize always":
what the model layer's gate needs to know about them (see `apps.clients.sensitivity`).

- Loading such a document or folder inside a tracking scope (a run, a document workflow)
  demands neutralization (`post_init`).
- `set_folder_mark` is the one writer of the mark (folder settings on the documents page, admin).
- `sensitive_refs` answers which `document:N` refs are such documents (`llm.sensitive_refs`):
  the knowledge store asks when it embeds a document and when its passages reach a run.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.db import transaction
from django.db.models import Q

from apps.accounts.principal import Principal
from apps.documents import events, folders
from apps.documents.models import Document, Folder
from apps.llm import neutralize


def marked_folder_ids() -> frozenset[int]:
    """Folders marked, and every folder below one (the mark holds for the subtree)."""
    paths = list(Folder.objects.filter(neutralize_always=True).values_list("tree_path", flat=True))
    if not paths:
        return frozenset()
    below = Q()
    for path in paths:
        below |= Q(tree_path__startswith=path)
    return frozenset(Folder.objects.filter(below).values_list("id", flat=True))


def _documents_of_marked_clients() -> frozenset[int]:
    through = Document.clients.through
    return frozenset(
        through.objects.filter(client__neutralize_always=True).values_list("document_id", flat=True)
    )


def marked_documents(ids: Iterable[int]) -> set[int]:
    ids = list(ids)
    if not ids:
        return set()
    folders = marked_folder_ids()
    marked = Q(pk__in=ids, clients__neutralize_always=True)
    if folders:
        marked |= Q(pk__in=ids, folder_id__in=folders)
    return set(Document.objects.filter(marked).values_list("id", flat=True).distinct())


def _folder_marked(values: dict, demands: neutralize.Demands) -> bool:
    return values.get("id") in demands.cached("documents.folders", marked_folder_ids)


def _document_marked(values: dict, demands: neutralize.Demands) -> bool:
    return values.get("folder_id") in demands.cached("documents.folders", marked_folder_ids) or values.get(
        "id"
    ) in demands.cached("documents.of_marked_clients", _documents_of_marked_clients)


def connect() -> None:
    neutralize.demand_when_loaded(
        Folder, "folder", _folder_marked, dispatch_uid="documents.neutralize.folder"
    )
    neutralize.demand_when_loaded(
        Document, "document", _document_marked, dispatch_uid="documents.neutralize.document"
    )


def sensitive_refs(refs: Iterable[str]) -> Iterator[str]:
    for pk in sorted(marked_documents(neutralize.ref_ids(refs, "document"))):
        yield f"document:{pk}"


@transaction.atomic
def set_folder_mark(principal: Principal, folder_id: Any, value: Any) -> Folder:
    """Mark a folder (and so everything below it) "neutralize always", or unmark it; whoever may
    change the folder may switch it."""
    folder = folders.get_folder(principal, folder_id, action="change", for_update=True)
    marked = value is True or value in ("on", "true", "1")
    if folder.neutralize_always != marked:
        folder.neutralize_always = marked
        folder.version += 1
        folder.save(update_fields=["neutralize_always", "version", "updated_at"])
        events.folders_changed(folder, "documents.folder.updated")
    return folder
