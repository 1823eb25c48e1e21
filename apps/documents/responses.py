"""Serving stored files without trusting them: a fixed content type from the upload's sniffed
type, inline only for types a browser shows harmlessly, `nosniff`, a sandboxing CSP, and a
Content-Disposition built by Django (RFC 6266 / 5987 encoding of the file name)."""

from __future__ import annotations

from django.http import FileResponse, Http404

from apps.documents.models import Document

# Everything else (HTML, SVG, XML, scripts …) is always a download: it must never run in our origin.
INLINE_TYPES = frozenset(
    {
        "application/pdf",
        "text/plain",
        "text/markdown",
        "text/csv",
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
    }
)


def file_response(document: Document, *, as_attachment: bool) -> FileResponse:
    try:
        handle = document.file.open("rb")
    except (FileNotFoundError, OSError):
        raise Http404 from None
    inline = not as_attachment and document.mime_type in INLINE_TYPES
    content_type = (
        document.mime_type
        if document.mime_type in INLINE_TYPES or as_attachment
        else "application/octet-stream"
    )
    if content_type.startswith("text/"):
        content_type += "; charset=utf-8"
    response = FileResponse(
        handle, as_attachment=not inline, filename=document.original_filename, content_type=content_type
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "sandbox; default-src 'none'"
    response["Cache-Control"] = "private, no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response
