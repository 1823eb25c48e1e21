"""Files on disk: what a client sends never becomes a path. The stored name is generated
(`documents/<yyyy>/<mm>/<random>.<ext>`); the client's file name is kept, sanitized, for display
and downloads only."""

from __future__ import annotations

import hashlib
import mimetypes
import re
import unicodedata
import uuid

from django.conf import settings
from django.core.files.base import File
from django.core.files.storage import default_storage
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.documents.errors import FileTooLarge
from apps.documents.models import FILENAME_MAX

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
MAX_SETTING = "documents_max_upload_bytes"
_EXT = re.compile(r"^[a-z0-9]{1,10}$")
_UNSAFE = re.compile(r'[\x00-\x1f\x7f<>:"|?*]')

# Content types by extension for what the extraction understands; everything else is sniffed.
KNOWN_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "txt": "text/plain",
    "md": "text/markdown",
    "markdown": "text/markdown",
    "html": "text/html",
    "htm": "text/html",
    "eml": "message/rfc822",
    "csv": "text/csv",
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


def max_upload_bytes() -> int:
    """The instance setting (admin-editable) wins over the deployment default."""
    from apps.core.services import get_setting

    default = getattr(settings, "CLAPILOT_DOCUMENTS_MAX_UPLOAD_BYTES", DEFAULT_MAX_BYTES)
    try:
        return int(get_setting(MAX_SETTING, default))
    except (TypeError, ValueError):
        return default


def sanitize_filename(name: str | None) -> str:
    """The last path component only, without control or reserved characters, no leading dots."""
    name = unicodedata.normalize("NFC", str(name or ""))
    name = re.split(r"[\\/]", name)[-1]
    name = _UNSAFE.sub("", name).strip().lstrip(".").strip()
    if len(name) > FILENAME_MAX:
        stem, dot, ext = name.rpartition(".")
        name = (
            (stem[: FILENAME_MAX - len(ext) - 1] + dot + ext)
            if dot and len(ext) <= 10
            else name[:FILENAME_MAX]
        )
    return name or "dokument"


def extension(filename: str) -> str:
    ext = filename.rpartition(".")[2].lower() if "." in filename else ""
    return ext if _EXT.match(ext) else ""


def sniff_mime(filename: str, head: bytes) -> str:
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    ext = extension(filename)
    if ext in KNOWN_TYPES:
        return KNOWN_TYPES[ext]
    guessed = mimetypes.guess_type(f"x.{ext}")[0] if ext else None
    return guessed or "application/octet-stream"


def store(content: File, filename: str) -> tuple[str, str, int, str]:
    """Write the content under a generated name. Returns (stored name, sha256, size, mime)."""
    digest = hashlib.sha256()
    size = 0
    head = b""
    content.seek(0)
    for chunk in content.chunks():
        if not head:
            head = chunk[:16]
        digest.update(chunk)
        size += len(chunk)
    content.seek(0)
    ext = extension(filename)
    now = timezone.now()
    target = f"documents/{now:%Y/%m}/{uuid.uuid4().hex}{'.' + ext if ext else ''}"
    stored = default_storage.save(target, content)
    return stored, digest.hexdigest(), size, sniff_mime(filename, head)


def remove(name: str) -> None:
    if name:
        default_storage.delete(name)


def declared_too_large(request) -> bool:
    """Refuse a body that announces more than the limit before Django reads it (plus room for
    the multipart envelope); the service checks the real size again."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    return declared > max_upload_bytes() + 1024 * 1024


def refuse_declared_too_large(request) -> None:
    """An upload endpoint's first check (page, API, chat attachment): `FileTooLarge` with
    `details.max_bytes` when the body announces more than the limit, before it is read."""
    if declared_too_large(request):
        limit = max_upload_bytes()
        raise FileTooLarge(
            _("The file is larger than %(mb)d MB.") % {"mb": limit // (1024 * 1024)},
            details={"max_bytes": limit},
        )


def sweep_orphan_files(min_age_seconds: int = 24 * 3600, batch: int = 500) -> int:
    """Delete stored files no document row points to. A file is written before its row commits;
    when the surrounding transaction rolls back (or the process dies) the file stays behind.
    Only files older than `min_age_seconds` are touched, so uploads in flight are safe."""
    import os
    import time

    from apps.documents.models import Document

    try:
        root = default_storage.path("documents")
    except NotImplementedError:  # remote storages keep their own lifecycle rules
        return 0
    if not os.path.isdir(root):
        return 0
    cutoff = time.time() - min_age_seconds
    candidates: list[str] = []
    removed = 0

    def flush() -> int:
        known = set(Document.objects.filter(file__in=candidates).values_list("file", flat=True))
        gone = [name for name in candidates if name not in known]
        for name in gone:
            default_storage.delete(name)
        candidates.clear()
        return len(gone)

    base = os.path.dirname(root)
    for directory, _dirs, files in os.walk(root):
        for filename in files:
            full = os.path.join(directory, filename)
            if os.path.getmtime(full) < cutoff:
                candidates.append(os.path.relpath(full, base).replace(os.sep, "/"))
            if len(candidates) >= batch:
                removed += flush()
    return removed + (flush() if candidates else 0)
