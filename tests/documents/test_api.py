"""The mobile REST API under /api/v1/documents/ and /api/v1/document-folders/."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.documents import folders
from apps.documents.models import Document, Folder
from tests.documents.factories import DocumentFactory, docx_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(anna):
    _, token = keys.issue_device_token(anna, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_upload_detail_download_delete(api, django_capture_on_commit_callbacks):
    folder = api.post("/api/v1/document-folders/", {"name": "Meier"}, format="json").json()["folder"]
    with django_capture_on_commit_callbacks(execute=True):
        created = api.post(
            "/api/v1/documents/",
            {"file": SimpleUploadedFile("../Bescheid.docx", docx_bytes()), "folder_id": folder["id"]},
            format="multipart",
        )
    assert created.status_code == 201, created.content
    doc = created.json()["document"]
    assert doc["filename"] == "Bescheid.docx" and doc["folder"]["id"] == folder["id"]
    detail = api.get(f"/api/v1/documents/{doc['id']}").json()
    assert detail["document"]["extraction"]["status"] == "done"
    assert "indexing" in detail["document"] and detail["share"] is None
    download = api.get(f"/api/v1/documents/{doc['id']}/download")
    assert download.status_code == 200 and download["X-Content-Type-Options"] == "nosniff"
    assert b"".join(download.streaming_content)[:2] == b"PK"
    patched = api.patch(
        f"/api/v1/documents/{doc['id']}",
        {"title": "Bescheid 2024", "expected_version": detail["document"]["version"]},
        format="json",
    )
    assert patched.status_code == 200 and patched.json()["document"]["title"] == "Bescheid 2024"
    stale = api.patch(f"/api/v1/documents/{doc['id']}", {"title": "x", "expected_version": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["code"] == "version_conflict"
    share = api.post(f"/api/v1/documents/{doc['id']}/share", {}, format="json")
    assert share.status_code == 201 and share.json()["share"]["url"].startswith("/s/")
    assert api.post(f"/api/v1/documents/{doc['id']}/share", {}, format="json").status_code == 200
    assert api.delete(f"/api/v1/documents/{doc['id']}/share").status_code == 204
    conflict = api.delete(f"/api/v1/document-folders/{folder['id']}")
    assert conflict.status_code == 409 and conflict.json()["code"] == "folder_not_empty"
    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete(f"/api/v1/documents/{doc['id']}").status_code == 204
    assert api.get(f"/api/v1/documents/{doc['id']}").status_code == 404
    assert api.delete(f"/api/v1/document-folders/{folder['id']}").status_code == 204


def test_list_filters_and_pagination(api):
    for i in range(5):
        DocumentFactory(title=f"Beleg {i}")
    DocumentFactory(title="Einspruch Meier")
    data = api.get("/api/v1/documents/", {"limit": 2, "offset": 2}).json()
    assert data["total"] == 6 and len(data["documents"]) == 2
    assert api.get("/api/v1/documents/", {"q": "einspruch"}).json()["total"] == 1
    folder_names = [f["name"] for f in api.get("/api/v1/document-folders/").json()["folders"]]
    assert "Persönlich" in folder_names


@pytest.mark.parametrize(
    ("method", "url", "body", "status", "code"),
    [
        ("post", "/api/v1/documents/", {}, 400, "invalid_request"),
        ("post", "/api/v1/documents/", {"file": "empty"}, 400, "empty_file"),
        ("get", "/api/v1/documents/?limit=5000", None, 400, "invalid_request"),
        ("get", "/api/v1/documents/999999", None, 404, "document_not_found"),
        ("patch", "/api/v1/documents/999999", {"title": "x"}, 404, "document_not_found"),
        ("post", "/api/v1/document-folders/", {"name": ""}, 400, "invalid_request"),
        ("post", "/api/v1/document-folders/", {"name": "x", "parent_id": 999999}, 404, "folder_not_found"),
    ],
)
def test_bad_input(api, method, url, body, status, code):
    if body == {"file": "empty"}:
        response = api.post(url, {"file": SimpleUploadedFile("leer.pdf", b"")}, format="multipart")
    elif body is None:
        response = api.get(url)
    else:
        response = getattr(api, method)(
            url, body, format="multipart" if url.endswith("documents/") else "json"
        )
    assert response.status_code == status, response.content
    assert response.json()["code"] == code
    assert not Document.objects.exists()
    assert not Folder.objects.filter(is_home=False).exists()


def test_private_document_of_another_user_is_404(api, ben):
    from apps.accounts.principal import Principal

    home = folders.ensure_home_folder(Principal.for_user(ben))
    doc = DocumentFactory(folder=home)
    for url in (f"/api/v1/documents/{doc.pk}", f"/api/v1/documents/{doc.pk}/download"):
        assert api.get(url).status_code == 404
    assert api.delete(f"/api/v1/documents/{doc.pk}").status_code == 404
    assert api.get(f"/api/v1/document-folders/{home.pk}").status_code == 404
    assert Document.objects.filter(pk=doc.pk).exists()


def test_api_key_without_scope_and_anonymous_are_refused(anna):
    from apps.accounts.principal import Principal
    from tests.factories import UserFactory

    admin = UserFactory(role="admin", is_superuser=True)
    _, plaintext = keys.create_api_key(Principal.for_user(admin), name="k", scopes=["tools:execute"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    assert client.get("/api/v1/documents/").status_code == 403
    assert APIClient().get("/api/v1/documents/").status_code in (401, 403)


def test_oversized_uploads_are_refused_with_413(api):
    from apps.core.services import set_setting
    from apps.documents import storage

    set_setting(storage.MAX_SETTING, 1000)
    small_over = api.post(
        "/api/v1/documents/", {"file": SimpleUploadedFile("a.txt", b"x" * 1001)}, format="multipart"
    )
    assert small_over.status_code == 413 and small_over.json()["code"] == "file_too_large"
    huge = api.post(
        "/api/v1/documents/",
        {"file": SimpleUploadedFile("b.txt", b"x" * (1024 * 1024 + 2000))},
        format="multipart",
    )
    assert huge.status_code == 413 and huge.json()["code"] == "file_too_large"
    assert not Document.objects.exists()
