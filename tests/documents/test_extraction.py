"""Extraction per format (fixtures made here), hostile input, explicit end states."""

import pytest

from apps.documents import extraction
from apps.documents.models import Document
from tests.documents.factories import EML, docx_bytes, pdf_bytes
from tests.documents.helpers import upload

pytestmark = pytest.mark.django_db


def test_pdf_pages_become_sections(as_anna, django_capture_on_commit_callbacks):
    doc = upload(as_anna, "bescheid.pdf", pdf_bytes(["Seite eins Bescheid", "Seite zwei Einspruch"]),
                 django_capture_on_commit_callbacks)  # fmt: skip
    assert doc.mime_type == "application/pdf"
    assert doc.extraction_status == "done", doc.extraction_error
    assert doc.page_count == 2
    assert [s["page"] for s in doc.sections] == [1, 2]
    assert "Einspruch" in doc.extracted_text


def test_encrypted_pdf_fails_with_reason(as_anna, django_capture_on_commit_callbacks):
    doc = upload(
        as_anna,
        "geheim.pdf",
        pdf_bytes(["vertraulich"], password="s3cret"),
        django_capture_on_commit_callbacks,
    )
    assert (doc.extraction_status, doc.extraction_error) == ("extraction_failed", "encrypted")
    assert doc.extracted_text == ""


def test_pdf_page_limit_guards_against_bombs():
    with pytest.raises(extraction.ExtractionFailed) as exc:
        extraction.extract(pdf_bytes(["a", "b", "c"]), extraction.PDF, max_pages=2)
    assert exc.value.reason == "too_large"


def test_text_size_limit():
    with pytest.raises(extraction.ExtractionFailed) as exc:
        extraction.extract(b"x" * 5000, "text/plain", max_chars=1000)
    assert exc.value.reason == "too_large"


def test_time_limit():
    with pytest.raises(extraction.ExtractionFailed) as exc:
        extraction.extract(pdf_bytes(["a", "b"]), extraction.PDF, max_seconds=-1)
    assert exc.value.reason == "timeout"


def test_corrupt_pdf_is_extraction_failed(as_anna, django_capture_on_commit_callbacks):
    doc = upload(
        as_anna, "kaputt.pdf", b"%PDF-1.7\n garbage without xref", django_capture_on_commit_callbacks
    )
    assert (doc.extraction_status, doc.extraction_error) == ("extraction_failed", "corrupt")


def test_docx_headings_become_sections(as_anna, django_capture_on_commit_callbacks):
    doc = upload(as_anna, "bescheid.docx", docx_bytes(), django_capture_on_commit_callbacks)
    assert doc.extraction_status == "done", doc.extraction_error
    assert [s["title"] for s in doc.sections] == ["Bescheid 2024", "Begründung"]
    assert "1.234 Euro" in doc.extracted_text


def test_corrupt_docx(as_anna, django_capture_on_commit_callbacks):
    doc = upload(as_anna, "kaputt.docx", b"PK\x03\x04 not really a zip", django_capture_on_commit_callbacks)
    assert (doc.extraction_status, doc.extraction_error) == ("extraction_failed", "corrupt")


def test_plain_text_in_cp1252(as_anna, django_capture_on_commit_callbacks):
    doc = upload(
        as_anna, "notiz.txt", "Grüße aus München".encode("cp1252"), django_capture_on_commit_callbacks
    )
    assert doc.extraction_status == "done" and doc.extracted_text == "Grüße aus München"


def test_markdown_headings(as_anna, django_capture_on_commit_callbacks):
    doc = upload(
        as_anna, "plan.md", b"# Plan\nErst dies\n## Danach\nDann das", django_capture_on_commit_callbacks
    )
    assert [s["title"] for s in doc.sections] == ["Plan", "Danach"]


def test_html_is_sanitized_to_text(as_anna, django_capture_on_commit_callbacks):
    markup = b"<html><script>alert('x')</script><h1>Mandantenbrief</h1><p>Liebe &amp; gute <b>Nachricht</b></p></html>"
    doc = upload(as_anna, "brief.html", markup, django_capture_on_commit_callbacks)
    assert doc.extraction_status == "done"
    assert "alert" not in doc.extracted_text and "<" not in doc.extracted_text
    assert "Liebe & gute Nachricht" in doc.extracted_text
    assert doc.sections[0]["title"] == "Mandantenbrief"


def test_eml_headers_and_body(as_anna, django_capture_on_commit_callbacks):
    doc = upload(as_anna, "mail.eml", EML, django_capture_on_commit_callbacks)
    assert doc.extraction_status == "done", doc.extraction_error
    assert "Subject: Belege für 2025" in doc.extracted_text
    assert "Kinderbetreuungskosten" in doc.extracted_text


def test_unsupported_and_empty_are_explicit(as_anna, django_capture_on_commit_callbacks):
    zipped = upload(as_anna, "archiv.zip", b"PK\x05\x06" + b"\x00" * 18, django_capture_on_commit_callbacks)
    assert zipped.extraction_status == "unsupported_format"
    blank = upload(as_anna, "leer.txt", b"   \n\n ", django_capture_on_commit_callbacks)
    assert (blank.extraction_status, blank.extraction_error) == ("empty", "no_text")


def test_text_ready_signal_and_progress_events(as_anna, django_capture_on_commit_callbacks):
    from apps.documents.signals import document_text_ready
    from apps.mutations.models import MutationEvent

    seen = []

    def receiver(sender, document, **kwargs):
        seen.append(document.knowledge_payload())

    document_text_ready.connect(receiver)
    try:
        doc = upload(as_anna, "notiz.txt", b"Frist 31.12.", django_capture_on_commit_callbacks)
    finally:
        document_text_ready.disconnect(receiver)
    assert len(seen) == 1
    payload = seen[0]
    assert payload["text"] == "Frist 31.12." and payload["scope"] == "instance"
    assert payload["path"] == "" and payload["content_hash"] == doc.content_hash
    topics = list(MutationEvent.objects.values_list("topic", flat=True))
    assert topics.count("documents.extraction.progress") >= 2


def test_deleted_while_extracting_is_left_alone(as_anna, django_capture_on_commit_callbacks):
    from apps.documents import processing

    doc = upload(as_anna, "notiz.txt", b"x", django_capture_on_commit_callbacks)
    pk = doc.pk
    Document.objects.filter(pk=pk).delete()
    assert processing.run_extraction(pk) is None


def test_compression_bomb_page_is_too_large():
    """A 100 MB content stream that compresses to ~100 KB: pypdf's stream cap ends it."""
    import io
    import zlib

    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import DictionaryObject, NameObject, StreamObject

    writer = PdfWriter()
    page = writer.add_blank_page(width=100, height=100)
    bomb = StreamObject()
    bomb._data = zlib.compress(b" " * 100_000_000, 9)
    bomb[NameObject("/Filter")] = NameObject("/FlateDecode")
    page[NameObject("/Contents")] = writer._add_object(bomb)
    page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject()})
    out = io.BytesIO()
    writer.write(out)
    assert len(out.getvalue()) < 1_000_000
    assert len(PdfReader(io.BytesIO(out.getvalue())).pages) == 1
    with pytest.raises(extraction.ExtractionFailed) as exc:
        extraction.extract(out.getvalue(), extraction.PDF)
    assert exc.value.reason == "too_large"


def test_docx_zip_bomb_is_too_large():
    import io
    import zipfile

    out = io.BytesIO()
    chunk = b"\x00" * (1024 * 1024)
    with (
        zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive,
        archive.open("word/document.xml", "w", force_zip64=True) as member,
    ):
        for _ in range(extraction.MAX_UNPACKED_BYTES // len(chunk) + 1):
            member.write(chunk)
    assert len(out.getvalue()) < 2_000_000
    with pytest.raises(extraction.ExtractionFailed) as exc:
        extraction.extract(out.getvalue(), extraction.DOCX)
    assert exc.value.reason == "too_large"
