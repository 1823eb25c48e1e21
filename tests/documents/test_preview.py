"""The document page previews PDFs and images inline; everything else keeps downloading.

The attack: an uploaded HTML or SVG file (also one that calls itself .pdf or .png) must never be
served as markup in our origin — only as an attachment of an opaque type with a CSP `sandbox`,
`nosniff`. The inline type is taken from the file's bytes, not from its name or stored type. A
corrupt or password-protected PDF gets a message on the page instead of a frame."""

import base64

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from apps.core.inputs import build
from apps.documents import sharing
from apps.documents.contracts import ShareCreate
from apps.documents.preview import preview_for
from apps.documents.responses import sniff
from tests.documents.factories import DocumentFactory, pdf_bytes

pytestmark = pytest.mark.django_db

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
HTML = (
    b"<!doctype html><html><body><script>fetch('/api/v1/documents/').then(r=>r.text())</script></body></html>"
)
SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.cookie)"><script>alert(1)</script></svg>'
)


def _doc(anna, name: str, mime: str, data: bytes, **kwargs):
    return DocumentFactory(
        created_by=anna,
        original_filename=name,
        mime_type=mime,
        size=len(data),
        file=ContentFile(data, name=name),
        **kwargs,
    )


@pytest.fixture
def web(client, anna):
    client.force_login(anna)
    return client


def _preview(web, document):
    return web.get(reverse("documents:preview", args=[document.pk]))


def test_sniffing_decides_by_content():
    assert sniff(pdf_bytes()[:64]) == "application/pdf"
    assert sniff(PNG[:64]) == "image/png"
    assert sniff(b"\xff\xd8\xff\xe0\x00\x10JFIF") == "image/jpeg"
    assert sniff(b"GIF89a\x01\x00") == "image/gif"
    assert sniff(b"RIFF\x24\x00\x00\x00WEBPVP8 ") == "image/webp"
    for other in (HTML, SVG, b"", b"%PD", b"hello"):
        assert sniff(other[:64]) is None


def test_a_pdf_previews_inline_in_a_sandbox(web, anna):
    document = _doc(anna, "bescheid.pdf", "application/pdf", pdf_bytes(["Seite eins"]))
    response = _preview(web, document)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("inline")
    csp = response["Content-Security-Policy"]
    assert csp.startswith("sandbox;") and "default-src 'none'" in csp and "frame-ancestors 'self'" in csp
    assert "script-src" not in csp  # the page's own policy (with a nonce) is not mixed in
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    page = web.get(reverse("documents:detail", args=[document.pk]))
    body = page.content.decode()
    assert f'<iframe class="preview-frame" src="{reverse("documents:preview", args=[document.pk])}"' in body
    assert "frame-src 'self'" in page["Content-Security-Policy"]  # the detail page may frame it


def test_an_image_previews_inline(web, anna):
    document = _doc(anna, "scan.png", "image/png", PNG)
    response = _preview(web, document)
    assert response["Content-Type"] == "image/png" and response["Content-Disposition"].startswith("inline")
    assert "sandbox" in response["Content-Security-Policy"]
    body = web.get(reverse("documents:detail", args=[document.pk])).content.decode()
    assert 'class="preview-image"' in body


@pytest.mark.parametrize(
    ("name", "mime", "data"),
    [
        ("angriff.html", "text/html", HTML),
        ("angriff.svg", "image/svg+xml", SVG),
        ("bescheid.pdf", "application/pdf", HTML),  # markup that calls itself a PDF
        ("foto.png", "image/png", SVG),  # or an image
        ("notiz.txt", "text/plain", HTML),
    ],
)
def test_markup_is_never_served_inline(web, anna, client, name, mime, data):
    """The XSS attack: whatever the name or stored type says, markup is a sandboxed download of
    an opaque type — on the preview, the download and the public link's ?inline=1."""
    document = _doc(anna, name, mime, data)
    _, token, _ = sharing.create_share(sharing_principal(anna), document.pk, build(ShareCreate))
    for response in (
        _preview(web, document),
        web.get(reverse("documents:download", args=[document.pk])),
        client.get(reverse("documents:public-share-file", args=[token]) + "?inline=1"),
    ):
        assert response.status_code == 200
        assert response["Content-Disposition"].startswith("attachment")
        content_type = response["Content-Type"]
        assert not content_type.startswith(("text/html", "image/svg", "application/xhtml", "text/xml"))
        assert "sandbox" in response["Content-Security-Policy"]
        assert response["X-Content-Type-Options"] == "nosniff"
    body = web.get(reverse("documents:detail", args=[document.pk])).content.decode()
    assert "preview-frame" not in body and "preview-image" not in body
    if mime in ("application/pdf", "image/png"):  # a preview was expected: say why there is none
        assert 'data-preview-problem="mismatch"' in body


def sharing_principal(user):
    from apps.accounts.principal import Principal

    return Principal.for_user(user)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"%PDF-1.7\n" + b"\x00garbage" * 200, "corrupt"),
        (pdf_bytes()[: len(pdf_bytes()) // 3], "corrupt"),  # a truncated upload
        (pdf_bytes(password="geheim"), "encrypted"),
    ],
)
def test_a_broken_pdf_shows_a_message_not_a_frame(web, anna, data, problem):
    document = _doc(
        anna,
        "kaputt.pdf",
        "application/pdf",
        data,
        extraction_status="pending",
        extracted_text="",
        page_count=None,
    )
    assert preview_for(document).problem == problem
    page = web.get(reverse("documents:detail", args=[document.pk]))
    assert page.status_code == 200
    body = page.content.decode()
    assert f'data-preview-problem="{problem}"' in body and "preview-frame" not in body
    assert reverse("documents:download", args=[document.pk]) in body  # still downloadable


def test_a_pdf_the_extraction_found_corrupt_is_not_opened_again(anna, monkeypatch):
    document = _doc(
        anna, "kaputt.pdf", "application/pdf", b"%PDF-1.4 broken", extraction_status="extraction_failed"
    )
    document.extraction_error = "corrupt"
    import pypdf

    monkeypatch.setattr(pypdf, "PdfReader", None)  # would fail if used
    assert preview_for(document).problem == "corrupt"


def test_no_preview_for_other_types_and_a_missing_file_is_a_404(web, anna):
    document = _doc(anna, "notiz.txt", "text/plain", b"Hallo")
    body = web.get(reverse("documents:detail", args=[document.pk])).content.decode()
    assert 'id="document-preview"' not in body
    gone = _doc(anna, "weg.pdf", "application/pdf", pdf_bytes())
    gone.file.storage.delete(gone.file.name)
    assert _preview(web, gone).status_code == 404
    assert web.get(reverse("documents:detail", args=[gone.pk])).status_code == 200


def test_preview_of_an_invisible_document_is_a_404(client, ben, anna):
    from apps.documents import folders

    home = folders.ensure_home_folder(sharing_principal(anna))
    private = _doc(anna, "privat.pdf", "application/pdf", pdf_bytes(), folder=home)
    client.force_login(ben)
    assert client.get(reverse("documents:preview", args=[private.pk])).status_code == 404
    client.logout()
    assert client.get(reverse("documents:preview", args=[private.pk])).status_code == 302
