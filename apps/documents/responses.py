"""Serving stored files without trusting them: inline only for PDFs and raster images whose bytes
say so (the stored type comes from the upload and its name), `nosniff`, a sandboxing CSP, and a
Content-Disposition built by Django (RFC 6266 / 5987 encoding of the file name).

Everything else (HTML, SVG, XML, scripts, text …) is always an attachment of a fixed type: it
must never render, let alone run, in our origin."""

from __future__ import annotations

from django.http import FileResponse, Http404

from apps.documents.models import Document

PDF = "application/pdf"
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
INLINE_TYPES = frozenset({PDF, *IMAGE_TYPES})
SNIFF_BYTES = 64

# The file's own document may show nothing active: no script, no form, no plugin, no navigation
# of its embedder (`sandbox` without tokens); Chromium's PDF viewer still renders it in an
# <iframe> of our pages (checked by tests/e2e/test_document_preview.py). Images may be framed
# the same way; only our own pages may embed either.
INLINE_CSP = (
    "sandbox; default-src 'none'; img-src 'self' data: blob:; style-src 'unsafe-inline'; "
    "frame-ancestors 'self'; form-action 'none'; base-uri 'none'"
)
ATTACHMENT_CSP = "sandbox; default-src 'none'; frame-ancestors 'none'"


def sniff(head: bytes) -> str | None:
    """The inline type the first bytes prove, or None (the bytes decide, never the name)."""
    if head.startswith(b"%PDF-"):
        return PDF
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def inline_type(document: Document) -> str | None:
    """The type a preview serves the document as: stored type and content must agree."""
    if document.mime_type not in INLINE_TYPES:
        return None
    try:
        with document.file.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except (FileNotFoundError, OSError, ValueError):
        return None
    found = sniff(head)
    return found if found == document.mime_type else None


def _open(document: Document):
    try:
        return document.file.open("rb")
    except (FileNotFoundError, OSError, ValueError):
        raise Http404 from None


def _secured(response: FileResponse, csp: str) -> FileResponse:
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = csp
    response["Cross-Origin-Resource-Policy"] = "same-origin"
    response["Cache-Control"] = "private, no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


def file_response(document: Document, *, as_attachment: bool) -> FileResponse:
    """The file as a download, or (not `as_attachment`) inline when it is a real PDF or image;
    anything else asked for inline is still a download."""
    inline = None if as_attachment else inline_type(document)
    if inline is None:
        return attachment_response(document)
    response = FileResponse(
        _open(document), as_attachment=False, filename=document.original_filename, content_type=inline
    )
    response = _secured(response, INLINE_CSP)
    response["X-Frame-Options"] = "SAMEORIGIN"  # the detail page frames it; nobody else
    return response


def attachment_response(document: Document) -> FileResponse:
    # A download keeps its type for the person's own program, except markup a browser would
    # render if it ever displayed the response anyway: that becomes opaque bytes.
    content_type = document.mime_type or "application/octet-stream"
    if _active_markup(content_type):
        content_type = "application/octet-stream"
    elif content_type.startswith("text/"):
        content_type += "; charset=utf-8"
    response = FileResponse(
        _open(document), as_attachment=True, filename=document.original_filename, content_type=content_type
    )
    return _secured(response, ATTACHMENT_CSP)


def _active_markup(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind in {"text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/xml"} or (
        kind.endswith("+xml") or "javascript" in kind or kind == "text/xsl"
    )
