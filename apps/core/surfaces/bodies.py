"""Request bodies are judged by the bytes actually received, never by what the client announced.

Django's ASGI handler reads the whole body into a (spooled) file before the request exists, but
takes CONTENT_LENGTH only from the client's header. A body sent with `Transfer-Encoding: chunked`
has none, so DRF read it as empty, the multipart parser found no file, and every limit that looks
at CONTENT_LENGTH (DATA_UPLOAD_MAX_MEMORY_SIZE, the tool payload limit, the upload limit) let any
size through. `BodyMeasuringASGIHandler` (the project's ASGI app, `clapilot.asgi`):

* sets CONTENT_LENGTH to the number of bytes received, for every request with a body;
* refuses a body over DATA_UPLOAD_MAX_MEMORY_SIZE with 413 `payload_too_large` before any view
  runs, except multipart uploads, which their views hold to the upload limit (they now see the
  real size; `apps.documents.storage.declared_too_large`).

Endpoints with a smaller limit keep checking CONTENT_LENGTH themselves (the tool execute endpoint:
CLAPILOT_TOOL_PAYLOAD_MAX_BYTES, in its result envelope).

`leave_forms_to_django()` (called by `clapilot.asgi`): daphne's Twisted request parsed every POST
form body itself (into `args`, which daphne never reads) and answered a malformed multipart body
with a bare 400 and a closed connection before Django saw it; Django parses it and answers in the
project's error shape.
"""

from __future__ import annotations

import os

from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.http import JsonResponse
from django.utils.translation import gettext as _

from apps.core.errors import PayloadTooLarge
from apps.core.surfaces.resolving import RememberedResolution
from apps.core.surfaces.slots import BoundedViews


def body_size(body_file) -> int:
    """The size of the body file `ASGIHandler.read_body` filled (left at its start)."""
    body_file.seek(0, os.SEEK_END)
    size = body_file.tell()
    body_file.seek(0)
    return size


def with_content_length(scope: dict, size: int) -> dict:
    """The scope with exactly one content-length header, the received size (none for an empty
    body that announced none)."""
    headers = [(name, value) for name, value in scope.get("headers", []) if name.lower() != b"content-length"]
    if size or len(headers) != len(scope.get("headers", [])):
        headers.append((b"content-length", str(size).encode("ascii")))
    return {**scope, "headers": headers}


def _content_type(scope: dict) -> str:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-type":
            return value.decode("latin1").strip().lower()
    return ""


def too_large(limit: int) -> JsonResponse:
    error = PayloadTooLarge(
        _("The request is larger than %(n)d bytes.") % {"n": limit}, details={"max_bytes": limit}
    )
    return JsonResponse(
        {"code": error.code, "message": error.message, "details": error.details}, status=error.http_status
    )


class BodyMeasuringASGIHandler(RememberedResolution, BoundedViews, ASGIHandler):
    """The web process's handler (clapilot/asgi.py); resolved paths remembered (resolving.py),
    a bounded number of views at once (slots.py)."""

    def create_request(self, scope, body_file):
        size = body_size(body_file)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and size > limit and not _content_type(scope).startswith("multipart/form-data"):
            return None, too_large(limit)
        return super().create_request(with_content_length(scope, size), body_file)


def leave_forms_to_django() -> None:
    """Daphne's requests skip Twisted's own form parsing (see the module docstring)."""
    try:
        from daphne.http_protocol import WebRequest
    except ImportError:  # not served by daphne
        return
    if getattr(WebRequest, "_forms_left_to_django", False):
        return
    created = WebRequest.__init__

    def __init__(self, *args, **kwargs) -> None:
        created(self, *args, **kwargs)
        self._parsePOSTFormSubmission = False  # Twisted's switch (set per request in __init__)

    WebRequest.__init__ = __init__
    WebRequest._forms_left_to_django = True
