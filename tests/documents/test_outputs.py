"""Folders and documents build exactly the records the old hand-written builders did (kept here
as the reference, byte for byte): folders of every kind; documents in and out of folders, with a
case, tax fields, an extraction, a public link, a service creator, and the detail's indexing."""

import json

import pytest
from django.urls import reverse

from apps.accounts.contracts import person_ref
from apps.accounts.principal import Principal
from apps.clients.models import Case
from apps.clients.records import case_ref, client_ref
from apps.core.inputs import build
from apps.core.records import attrs
from apps.documents import folders, processing, services, sharing
from apps.documents.contracts import (
    DocumentCreate,
    DocumentFilter,
    DocumentOut,
    DocumentUpdate,
    FolderCreate,
    FolderOut,
    ShareCreate,
)
from apps.documents.records import detailed_record, extraction_record
from tests.factories import ServicePrincipalFactory

pytestmark = pytest.mark.django_db


# --- the builder of apps/documents/records.py before the conversion ----------------------------
def folder_record(folder) -> dict:
    return {
        "id": folder.pk,
        **attrs(folder, "name", "parent_id", "kind", "owner_id", "is_home"),
        "path": folder.tree_path,
        "depth": folder.depth,
        "client": client_ref(folder.client) if folder.client_id else None,
        "version": folder.version,
    }


def test_folders_in_every_shape(as_anna, meier):
    top = folders.create_folder(as_anna, build(FolderCreate, name="Mandanten"))
    nested = folders.create_folder(
        as_anna, build(FolderCreate, name="Meier", parent_id=top.pk, client_id=meier.pk)
    )
    home = folders.ensure_home_folder(as_anna)
    for folder in (top, nested, home):
        same = json.dumps(FolderOut.record(folder), ensure_ascii=False)
        assert same == json.dumps(folder_record(folder), ensure_ascii=False)
    listed = folders.list_folders(as_anna)
    assert len(listed) >= 3
    for folder in listed:
        assert json.dumps(FolderOut.record(folder)) == json.dumps(folder_record(folder))


# --- and of documents (`document_record` before the conversion) ---------------------------------
def document_record(document) -> dict:
    folder = document.folder
    return {
        "id": document.pk,
        "title": document.title,
        "filename": document.original_filename,
        **attrs(document, "mime_type", "size", "content_hash"),
        "folder": {"id": folder.pk, "name": folder.name, "kind": folder.kind} if folder else None,
        "clients": [client_ref(c) for c in document.clients.all()],
        "case_id": document.case_id,
        "case": case_ref(document.case) if document.case_id else None,
        "extraction": extraction_record(document),
        "indexing": getattr(document, "index_state", None),
        "tax_fields": document.tax_fields,
        "shared_publicly": bool(getattr(document, "has_active_share", False)),
        "version": document.version,
        "created_by": person_ref(document.created_by),
        "created_by_service": document.created_by_service.name if document.created_by_service else None,
        "created_at": document.created_at.isoformat(),
        "updated_at": document.updated_at.isoformat(),
        "url": reverse("documents:detail", args=[document.pk]),
        "download_url": reverse("documents:download", args=[document.pk]),
    }


def test_documents_in_every_shape(as_anna, meier):
    robot = Principal.for_service(ServicePrincipalFactory(name="Posteingang"))
    folder = folders.create_folder(as_anna, build(FolderCreate, name="Mandanten", client_id=meier.pk))
    akte = Case.objects.create(client=meier, reference="2026-0042", subject="Einspruch")
    made = [
        services.create_markdown(as_anna, build(DocumentCreate, title="Notiz", content="# Text")),
        services.create_markdown(
            as_anna, build(DocumentCreate, title="Bescheid", folder_id=folder.pk, case_id=akte.pk)
        ),
        services.create_markdown(robot, build(DocumentCreate, title="Vom Dienst", content="x")),
    ]
    services.update_document(as_anna, made[0].pk, build(DocumentUpdate, tax_fields={"Steuerjahr": 2025}))
    processing.run_extraction(made[1].pk)
    sharing.create_share(as_anna, made[1].pk, build(ShareCreate))
    for document in made:
        for row in (document, services.get_document(as_anna, document.pk)):
            same = json.dumps(DocumentOut.record(row), ensure_ascii=False)
            assert same == json.dumps(document_record(row), ensure_ascii=False)
        detailed = services.get_document(as_anna, document.pk)
        new = detailed_record(detailed)
        assert json.dumps(new) == json.dumps(document_record(detailed))
    listed, _total = services.list_documents(as_anna, DocumentFilter())
    assert len(listed) == 3
    for document in listed:
        assert json.dumps(DocumentOut.record(document)) == json.dumps(document_record(document))
