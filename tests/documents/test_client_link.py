"""Documents are linked to clients and cases: by hand (tools, API, page), inherited from a client
folder, and shown on the client's and the case's pages. An invisible client or case answers
`client_not_found` / `case_not_found` and writes nothing."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.clients.errors import ClientNotFound
from apps.clients.models import Case
from apps.core.inputs import build
from apps.documents import folders, services
from apps.documents.contracts import DocumentUpdate, DocumentUpload, FolderCreate, FolderUpdate
from apps.documents.models import Document
from apps.tools.dispatcher import dispatch
from tests.documents.factories import DocumentFactory, FolderFactory
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def akte(meier):
    return Case.objects.create(client=meier, reference="2026-0042", subject="Einspruch ESt 2024")


@pytest.fixture
def hidden_client(monkeypatch):
    """A client the visibility rule hides (clients are office-wide today: the one rule is patched)."""
    from apps.clients import visibility

    hidden = ClientFactory(name="Geheim AG")
    original = visibility.visible_clients
    monkeypatch.setattr(visibility, "visible_clients", lambda p: original(p).exclude(pk=hidden.pk))
    return hidden


@pytest.fixture
def hidden_case(monkeypatch, meier):
    from apps.clients import visibility

    hidden = Case.objects.create(client=meier, reference="2026-0666", subject="Geheimsache")
    original = visibility.visible_cases
    monkeypatch.setattr(visibility, "visible_cases", lambda p: original(p).exclude(pk=hidden.pk))
    return hidden


def _upload(principal, **kwargs) -> Document:
    return services.upload_document(
        principal,
        build(DocumentUpload, **kwargs),
        content=SimpleUploadedFile("brief.txt", b"Hallo"),
        filename="brief.txt",
    )


def _client_ids(document) -> list[int]:
    return sorted(Document.objects.get(pk=document.pk).clients.values_list("pk", flat=True))


# --- by hand: tools, service, API ----------------------------------------------------------------
def test_a_case_links_the_document_and_its_client(anna_ctx, akte, meier):
    result = dispatch("documents_create", {"title": "Einspruch", "case_id": akte.pk}, anna_ctx)
    assert result.ok, result.message
    record = result.output["document"]
    assert record["case_id"] == akte.pk and record["case"]["reference"] == "2026-0042"
    assert record["case"]["url"] == reverse("clients:case", args=[akte.pk])
    assert [c["id"] for c in record["clients"]] == [meier.pk]  # the Akte's Mandant comes along
    listed = dispatch("documents_list", {"case_id": akte.pk}, anna_ctx).output
    assert [d["id"] for d in listed["documents"]] == [record["id"]]

    other = ClientFactory(name="Schulz KG")
    # A new client list never drops the case's client; remove_case takes it out of the case.
    changed = dispatch("documents_update", {"document_id": record["id"], "client_ids": [other.pk]}, anna_ctx)
    assert sorted(c["id"] for c in changed.output["document"]["clients"]) == sorted([meier.pk, other.pk])
    out = dispatch("documents_update", {"document_id": record["id"], "remove_case": True}, anna_ctx)
    assert out.ok and out.output["document"]["case"] is None


@pytest.mark.parametrize(
    ("args", "code", "field"),
    [
        ({"client_ids": ["hidden"]}, "client_not_found", "client_ids"),
        ({"client_ids": [987654]}, "client_not_found", "client_ids"),
        ({"case_id": "hidden"}, "case_not_found", "case_id"),
        ({"case_id": 987654}, "case_not_found", "case_id"),
    ],
)
def test_invisible_client_or_case_is_not_found_and_nothing_is_written(
    anna_ctx, hidden_client, hidden_case, media_root, args, code, field
):
    args = {
        k: ([hidden_client.pk] if v == ["hidden"] else hidden_case.pk if v == "hidden" else v)
        for k, v in args.items()
    }
    created = dispatch("documents_create", {"title": "x", **args}, anna_ctx)
    assert (created.ok, created.code) == (False, code)
    assert field in created.output["field_errors"]
    assert not Document.objects.exists()
    document = DocumentFactory(created_by=anna_ctx.principal.user)
    updated = dispatch("documents_update", {"document_id": document.pk, **args}, anna_ctx)
    assert (updated.ok, updated.code) == (False, code)
    document.refresh_from_db()
    assert document.version == 1 and document.case_id is None and not document.clients.exists()


def test_api_links_a_case_and_refuses_a_hidden_one(anna, akte, meier, hidden_case):
    _, token = keys.issue_device_token(anna, "iPhone")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    upload = api.post(
        "/api/v1/documents/",
        {"file": SimpleUploadedFile("a.txt", b"Hallo"), "case_id": str(akte.pk)},
        format="multipart",
    )
    assert upload.status_code == 201, upload.content
    body = upload.json()["document"]
    assert body["case"]["id"] == akte.pk and [c["id"] for c in body["clients"]] == [meier.pk]
    refused = api.patch(f"/api/v1/documents/{body['id']}", {"case_id": hidden_case.pk}, format="json")
    assert refused.status_code == 404 and refused.json()["code"] == "case_not_found"
    cleared = api.patch(f"/api/v1/documents/{body['id']}", {"case_id": None}, format="json")
    assert cleared.status_code == 200 and cleared.json()["document"]["case"] is None


# --- client folders --------------------------------------------------------------------------------
def test_a_client_folder_links_what_is_put_into_it(as_anna, meier, akte):
    folder = folders.create_folder(as_anna, build(FolderCreate, name="Meier GmbH", client_id=meier.pk))
    sub = folders.create_folder(as_anna, build(FolderCreate, name="2026", parent_id=folder.pk))
    inside = _upload(as_anna, folder_id=sub.pk)  # inherited from the nearest client folder up
    assert _client_ids(inside) == [meier.pk]
    outside = _upload(as_anna)
    assert _client_ids(outside) == []
    services.move_document(as_anna, outside.pk, folder_id=folder.pk)
    assert _client_ids(outside) == [meier.pk]
    # Moving out keeps the link (only a person unlinks); the folder's record names its client.
    services.move_document(as_anna, outside.pk, folder_id=None)
    assert _client_ids(outside) == [meier.pk]
    from apps.documents.contracts import FolderOut

    assert FolderOut.record(folders.get_folder(as_anna, folder.pk))["client"]["id"] == meier.pk


def test_making_a_folder_a_client_folder_links_its_subtree(as_anna, meier):
    top = FolderFactory(name="Eingang")
    below = FolderFactory(name="Alt", parent=top)
    documents = [DocumentFactory(folder=top), DocumentFactory(folder=below), DocumentFactory()]
    other = ClientFactory(name="Schulz KG")
    documents[0].clients.set([other])
    folders.update_folder(as_anna, top.pk, build(FolderUpdate, client_id=meier.pk))
    assert [_client_ids(d) for d in documents] == [sorted([other.pk, meier.pk]), [meier.pk], []]
    folders.update_folder(as_anna, top.pk, build(FolderUpdate, remove_client=True))
    assert folders.get_folder(as_anna, top.pk).client is None
    assert _client_ids(documents[1]) == [meier.pk]  # links stay


def test_a_folder_moved_below_a_client_folder_links_its_documents(as_anna, meier):
    client_folder = folders.create_folder(as_anna, build(FolderCreate, name="Meier", client_id=meier.pk))
    loose = FolderFactory(name="Lose")
    document = DocumentFactory(folder=loose)
    folders.update_folder(as_anna, loose.pk, build(FolderUpdate, parent_id=client_folder.pk))
    assert _client_ids(document) == [meier.pk]


def test_a_client_folder_of_an_invisible_client_is_refused(as_anna, anna_ctx, hidden_client):
    with pytest.raises(ClientNotFound):
        folders.create_folder(as_anna, build(FolderCreate, name="Geheim", client_id=hidden_client.pk))
    result = dispatch("documents_create_folder", {"name": "Geheim", "client_id": 987654}, anna_ctx)
    assert (result.ok, result.code) == (False, "client_not_found")
    folder = FolderFactory(name="Offen")
    with pytest.raises(ClientNotFound):
        folders.update_folder(as_anna, folder.pk, build(FolderUpdate, client_id=hidden_client.pk))
    folder.refresh_from_db()
    assert folder.client_id is None and folder.version == 1


def test_folder_page_sets_the_client(client, anna, meier):
    client.force_login(anna)
    folder = FolderFactory(name="Akten Meier")
    response = client.post(reverse("documents:folder-client", args=[folder.pk]), {"client": meier.pk})
    assert response.status_code == 302
    folder.refresh_from_db()
    assert folder.client_id == meier.pk
    page = client.get(reverse("documents:index") + f"?folder={folder.pk}")
    assert "Meier GmbH" in page.content.decode()
    bad = client.post(reverse("documents:folder-client", args=[folder.pk]), {"client": "987654"}, follow=True)
    assert bad.status_code == 200 and "987654" in bad.content.decode()  # the message, no error page
    client.post(reverse("documents:folder-client", args=[folder.pk]), {"client": ""})
    folder.refresh_from_db()
    assert folder.client_id is None


# --- the detail page's links form ------------------------------------------------------------------
def test_detail_page_links_clients_and_a_case(client, anna, meier, akte, hidden_case):
    client.force_login(anna)
    document = DocumentFactory(created_by=anna)
    url = reverse("documents:detail", args=[document.pk])
    page = client.get(url).content.decode()
    assert 'id="doc-clients"' in page and "Meier GmbH (10003)" in page
    client.post(url, {"form": "links", "clients": [meier.pk], "version": "1"})
    assert _client_ids(document) == [meier.pk]
    page = client.get(url).content.decode()
    assert "2026-0042 Einspruch ESt 2024" in page  # the open cases of the linked clients
    assert "Geheimsache" not in page
    client.post(url, {"form": "links", "clients": [meier.pk], "case": akte.pk, "version": "2"})
    document.refresh_from_db()
    assert document.case_id == akte.pk
    assert reverse("clients:case", args=[akte.pk]) in client.get(url).content.decode()
    refused = client.post(
        url, {"form": "links", "clients": [meier.pk], "case": hidden_case.pk, "version": "3"}, follow=True
    )
    assert refused.status_code == 200
    document.refresh_from_db()
    assert document.case_id == akte.pk and document.version == 3


# --- client and case pages -------------------------------------------------------------------------
def test_client_page_lists_documents_of_its_client_folder(client, anna, meier, akte):
    client.force_login(anna)
    from apps.accounts.principal import Principal

    as_anna = Principal.for_user(anna)
    folder = folders.create_folder(as_anna, build(FolderCreate, name="Meier", client_id=meier.pk))
    document = _upload(as_anna, folder_id=folder.pk, title="Vollmacht Meier")
    services.update_document(as_anna, document.pk, build(DocumentUpdate, case_id=akte.pk))
    page = client.get(reverse("clients:detail", args=[meier.pk])).content.decode()
    assert 'id="client-documents"' in page and "Vollmacht Meier" in page
    assert reverse("clients:case", args=[akte.pk]) in page


def test_case_page_lists_its_documents_in_constant_queries(
    client, anna, meier, akte, django_assert_max_num_queries
):
    from apps.accounts.principal import Principal

    client.force_login(anna)
    as_anna = Principal.for_user(anna)
    other_case = Case.objects.create(client=meier, reference="2026-0043", subject="Lohn")
    mine = _upload(as_anna, case_id=akte.pk, title="Einspruchsschreiben")
    _upload(as_anna, case_id=other_case.pk, title="Lohnabrechnung")
    url = reverse("clients:case", args=[akte.pk])
    page = client.get(url).content.decode()
    assert 'id="case-documents"' in page and "Einspruchsschreiben" in page
    assert "Lohnabrechnung" not in page and f'data-record-id="{mine.pk}"' in page

    import re

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        client.get(url)
    for n in range(5):
        _upload(as_anna, case_id=akte.pk, title=f"Anlage {n}", client_ids=[ClientFactory().pk])
    with django_assert_max_num_queries(len(few)):
        many = client.get(url).content.decode()
    assert len(re.findall(r'data-record-id="\d+"><td data-label', many)) >= 6


def test_linking_a_subtree_is_one_live_event_without_a_notice_per_document(
    as_anna, meier, django_capture_on_commit_callbacks
):
    from apps.mutations.models import MutationEvent

    folder = FolderFactory(name="Eingang")
    documents = [DocumentFactory(folder=folder) for _ in range(3)]
    before = MutationEvent.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        folders.update_folder(as_anna, folder.pk, build(FolderUpdate, client_id=meier.pk))
    events = list(MutationEvent.objects.order_by("id")[before:])
    linked = [e for e in events if e.topic == "documents.document.updated"]
    assert len(linked) == 1
    upserts = [a for a in linked[0].ui_actions if a["type"] == "upsert"]
    assert sorted(a["record_id"] for a in upserts) == sorted(str(d.pk) for d in documents)
    assert all(a["record"]["clients"][0]["id"] == meier.pk for a in upserts)
    assert not any("announce_key" in a for a in upserts)


def test_api_makes_a_client_folder_and_an_explicit_null_ends_it(anna, meier):
    _, token = keys.issue_device_token(anna, "iPhone")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    created = api.post("/api/v1/document-folders/", {"name": "Meier", "client_id": meier.pk}, format="json")
    assert created.status_code == 201, created.content
    folder = created.json()["folder"]
    assert folder["client"]["id"] == meier.pk
    refused = api.patch(f"/api/v1/document-folders/{folder['id']}", {"client_id": 987654}, format="json")
    assert refused.status_code == 404 and refused.json()["code"] == "client_not_found"
    ended = api.patch(f"/api/v1/document-folders/{folder['id']}", {"client_id": None}, format="json")
    assert ended.status_code == 200 and ended.json()["folder"]["client"] is None
