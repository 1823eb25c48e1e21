"""Documents test data. Files are made in code: tiny PDFs with pypdf, DOCX with python-docx."""

from __future__ import annotations

import io

import factory
from django.core.files.base import ContentFile

from apps.documents.models import Document, Folder


class FolderFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Folder
        # `_path` saves the one field it sets; factory_boy's extra save afterwards is not needed.
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Ordner {n}")
    kind = Folder.Kind.SHARED

    @factory.post_generation
    def _path(obj, create, extracted, **kwargs):
        if create:
            parent = obj.parent.tree_path if obj.parent_id else "/"
            obj.tree_path = f"{parent}{obj.pk}/"
            obj.save(update_fields=["tree_path"])


class DocumentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Document

    title = factory.Sequence(lambda n: f"Dokument {n}")
    original_filename = "notiz.txt"
    file = factory.LazyFunction(lambda: ContentFile(b"Hallo Welt", name="notiz.txt"))
    content_hash = "0" * 64
    mime_type = "text/plain"
    size = 10
    extraction_status = Document.Extraction.DONE
    extracted_text = "Hallo Welt"


def pdf_bytes(pages: list[str] | None = None, *, password: str | None = None) -> bytes:
    """A real PDF with one text line per page (pypdf writes the content streams)."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    for text in pages if pages is not None else ["Hallo"]:
        page = writer.add_blank_page(width=300, height=200)
        stream = DecodedStreamObject()
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream.set_data(f"BT /F1 12 Tf 20 100 Td ({escaped}) Tj ET".encode("latin-1"))
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
        )
    if password:
        writer.encrypt(password, algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx_bytes() -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("Bescheid 2024", level=1)
    document.add_paragraph("Die Einkommensteuer wird auf 1.234 Euro festgesetzt.")
    document.add_heading("Begründung", level=2)
    document.add_paragraph("Werbungskosten wurden anerkannt.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


EML = (
    b"From: Frau Hoffmann <hoffmann@example.de>\r\n"
    b"To: kanzlei@example.de\r\n"
    b"Subject: =?utf-8?q?Belege_f=C3=BCr_2025?=\r\n"
    b"Date: Mon, 1 Dec 2025 10:00:00 +0100\r\n"
    b"MIME-Version: 1.0\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    b"Content-Transfer-Encoding: 8bit\r\n\r\n"
    b"Anbei die Kinderbetreuungskosten.\r\n"
)
