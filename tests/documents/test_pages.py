"""The documents pages and the public share view: render, upload, write through the services,
constant query counts, and a share view that trusts nobody."""

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from apps.core.inputs import build
from apps.documents import folders, sharing
from apps.documents.contracts import ShareCreate
from apps.documents.models import Document, Folder
from tests.documents.factories import DocumentFactory, FolderFactory, pdf_bytes

pytestmark = pytest.mark.django_db


def test_index_renders_tree_list_and_empty_state(web, anna):
    body = web.get(reverse("documents:index")).content.decode()
    assert "Persönlich" in body and 'id="upload-zone"' in body
    assert "upload-list" in body and "empty" in body


def test_index_lists_searches_and_paginates(web):
    shared = FolderFactory(name="Steuern")
    for i in range(30):
        DocumentFactory(title=f"Beleg {i:02d}", folder=shared if i % 2 else None)
    DocumentFactory(title="Einspruch Meier")
    first = web.get(reverse("documents:index")).content.decode()
    assert "Einspruch Meier" in first and "Beleg 00" not in first
    second = web.get(reverse("documents:index"), {"page": 2}).content.decode()
    assert "Beleg 00" in second
    found = web.get(reverse("documents:index"), {"q": "einspruch"}).content.decode()
    assert "Einspruch Meier" in found and "Beleg 01" not in found
    in_folder = web.get(reverse("documents:index"), {"folder": shared.pk}).content.decode()
    assert "Beleg 01" in in_folder and "Einspruch Meier" not in in_folder
    partial = web.get(
        reverse("documents:index"), {"q": "meier"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="document-rows"
    )
    assert b"<html" not in partial.content and b"Einspruch Meier" in partial.content


def test_index_query_count_is_constant(web, django_assert_max_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    shared = FolderFactory(name="Steuern")
    DocumentFactory(folder=shared)
    with CaptureQueriesContext(connection) as few:
        web.get(reverse("documents:index"))
    for i in range(24):
        DocumentFactory(folder=shared if i % 2 else None)
        FolderFactory(parent=shared)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert web.get(reverse("documents:index")).status_code == 200


def test_upload_endpoint_and_errors(web, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        ok = web.post(
            reverse("documents:upload"), {"file": SimpleUploadedFile("b.pdf", pdf_bytes(["Bescheid"]))}
        )
    assert ok.status_code == 201, ok.content
    doc = Document.objects.get()
    assert doc.extraction_status == "done" and "Bescheid" in doc.extracted_text
    empty = web.post(reverse("documents:upload"), {"file": SimpleUploadedFile("leer.txt", b"")})
    assert empty.status_code == 400 and empty.json()["code"] == "empty_file"
    missing = web.post(reverse("documents:upload"), {})
    assert missing.status_code == 400
    other = web.post(
        reverse("documents:upload"), {"file": SimpleUploadedFile("a.txt", b"a"), "folder": "999999"}
    )
    assert other.status_code == 404 and other.json()["code"] == "folder_not_found"
    assert Document.objects.count() == 1


def test_detail_shows_status_preview_share_and_failure(web, as_anna, django_capture_on_commit_callbacks):
    doc = DocumentFactory(extracted_text="Sehr geehrte Frau Hoffmann")
    body = web.get(reverse("documents:detail", args=[doc.pk])).content.decode()
    assert "Sehr geehrte Frau Hoffmann" in body and "extraction-status" in body
    failed = DocumentFactory(
        extraction_status="extraction_failed", extraction_error="encrypted", extracted_text=""
    )
    body = web.get(reverse("documents:detail", args=[failed.pk])).content.decode()
    assert "extraction-extraction_failed" in body
    assert "password" in body.lower() or "passwort" in body.lower()
    web.post(reverse("documents:share", args=[doc.pk]), {"expires_in_days": "7"})
    body = web.get(reverse("documents:detail", args=[doc.pk])).content.decode()
    assert "/s/" in body and 'id="share-copy"' in body
    web.post(reverse("documents:revoke-share", args=[doc.pk]))
    assert sharing.active_share(doc) is None
    assert web.get(reverse("documents:status", args=[doc.pk])).status_code == 200


def test_detail_edit_move_and_delete(web, django_capture_on_commit_callbacks):
    doc = DocumentFactory(title="Alt")
    folder = FolderFactory(name="Neu")
    response = web.post(
        reverse("documents:detail", args=[doc.pk]),
        {"title": "Neu", "folder": folder.pk, "version": doc.version},
    )
    assert response.status_code == 302
    doc.refresh_from_db()
    assert (doc.title, doc.folder_id) == ("Neu", folder.pk)
    with django_capture_on_commit_callbacks(execute=True):
        web.post(reverse("documents:delete", args=[doc.pk]))
    assert not Document.objects.exists()


def test_other_peoples_private_documents_are_404(web, as_ben):
    home = folders.ensure_home_folder(as_ben)
    doc = DocumentFactory(folder=home)
    for name in ("detail", "download", "status"):
        assert web.get(reverse(f"documents:{name}", args=[doc.pk])).status_code == 404
    assert web.post(reverse("documents:delete", args=[doc.pk])).status_code == 404
    assert web.post(reverse("documents:share", args=[doc.pk])).status_code == 404
    assert Document.objects.filter(pk=doc.pk).exists()


def test_folder_pages(web):
    web.post(reverse("documents:create-folder"), {"name": "Steuern"})
    folder = Folder.objects.get(name="Steuern")
    web.post(reverse("documents:rename-folder", args=[folder.pk]), {"name": "Steuern 2026"})
    DocumentFactory(folder=folder)
    web.post(reverse("documents:delete-folder", args=[folder.pk]))
    assert Folder.objects.filter(pk=folder.pk, name="Steuern 2026").exists()  # not empty: refused
    web.post(reverse("documents:delete-folder", args=[folder.pk]), {"recursive": "1"})
    assert not Folder.objects.filter(pk=folder.pk).exists()


def test_download_headers(web):
    doc = DocumentFactory(original_filename='evil"\r\nname.html', mime_type="text/html")
    response = web.get(reverse("documents:download", args=[doc.pk]))
    assert response.status_code == 200
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Disposition"].startswith("attachment")
    assert "\r" not in response["Content-Disposition"] and "\n" not in response["Content-Disposition"]
    assert "sandbox" in response["Content-Security-Policy"]


def test_public_share_view_trusts_nobody(client, as_anna, django_capture_on_commit_callbacks):
    doc = DocumentFactory(
        original_filename="bescheid.pdf",
        mime_type="application/pdf",
        file=ContentFile(pdf_bytes(), name="bescheid.pdf"),  # inline only for what really is a PDF
    )
    _, token, _ = sharing.create_share(as_anna, doc.pk, build(ShareCreate))
    page = client.get(reverse("documents:public-share", args=[token]))
    assert page.status_code == 200 and doc.title.encode() in page.content
    assert page["X-Content-Type-Options"] == "nosniff" and "noindex" in page["X-Robots-Tag"]
    assert b"/dokumente/" not in page.content  # no links into the office
    file = client.get(reverse("documents:public-share-file", args=[token]))
    assert file.status_code == 200 and file["Content-Type"] == "application/pdf"
    assert file["Content-Disposition"].startswith("attachment")
    inline = client.get(reverse("documents:public-share-file", args=[token]) + "?inline=1")
    assert inline["Content-Disposition"].startswith("inline")
    for bad in ("x" * 43, token[:-2] + "zz", "abc"):
        assert client.get(reverse("documents:public-share", args=[bad])).status_code == 404
        assert client.get(reverse("documents:public-share-file", args=[bad])).status_code == 404
    sharing.revoke_share(as_anna, doc.pk)
    assert client.get(reverse("documents:public-share", args=[token])).status_code == 404
    assert client.get(reverse("documents:public-share-file", args=[token])).status_code == 404


def test_public_html_is_never_served_inline(client, as_anna):
    doc = DocumentFactory(original_filename="x.html", mime_type="text/html")
    _, token, _ = sharing.create_share(as_anna, doc.pk, build(ShareCreate))
    response = client.get(reverse("documents:public-share-file", args=[token]) + "?inline=1")
    assert response["Content-Disposition"].startswith("attachment")
    assert (
        response["Content-Type"] == "application/octet-stream"
        or "sandbox" in response["Content-Security-Policy"]
    )


def test_pages_need_login(client):
    assert client.get(reverse("documents:index")).status_code == 302
