"""Public share links: one active link per document, revocable, optionally expiring.

The token is an HMAC of a random nonce under the server secret: the database keeps the nonce
and a SHA-256 of the token (for the lookup), so a leaked table alone opens nothing, and "give me
the active link" can still hand the same token back. A token that is unknown, revoked or expired
answers exactly like one that never existed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.documents import events
from apps.documents.contracts import ShareCreate
from apps.documents.errors import ShareNotFound
from apps.documents.models import Document, ShareLink
from apps.documents.records import active_share_q
from apps.documents.services import get_document

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,100}$")


def token_for(share: ShareLink) -> str:
    mac = salted_hmac("clapilot.documents.share", share.nonce, algorithm="sha256").digest()
    import base64

    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def active_share(document: Document) -> ShareLink | None:
    return ShareLink.objects.filter(active_share_q(), document=document).first()


@transaction.atomic
def create_share(principal: Principal, document_id: int, data: ShareCreate) -> tuple[ShareLink, str, bool]:
    """Returns (link, token, created). An active link is returned as it is (not extended); a new
    one expires after `data.expires_in_days` (the contract bounds it), or never."""
    document = get_document(principal, document_id, action="change", for_update=True, with_text=False)
    existing = active_share(document)
    if existing is not None:
        return existing, token_for(existing), False
    expires_at = None
    if data.expires_in_days is not None:
        expires_at = timezone.now() + dt.timedelta(days=data.expires_in_days)
    # An expired link still holds the one-active slot until it is closed here.
    ShareLink.objects.filter(document=document, revoked_at__isnull=True).update(revoked_at=timezone.now())
    share = ShareLink(document=document, nonce=secrets.token_hex(32), expires_at=expires_at)
    share.created_by = principal.audit_actor
    token = token_for(share)
    share.token_hash = _hash(token)
    try:
        with transaction.atomic():
            share.save()
    except IntegrityError:  # a concurrent create won: hand out that one
        share = ShareLink.objects.get(document=document, revoked_at__isnull=True)
        return share, token_for(share), False
    _changed(principal, document.pk, "documents.share.created")
    return share, token, True


@transaction.atomic
def revoke_share(principal: Principal, document_id: int) -> int:
    document = get_document(principal, document_id, action="change", for_update=True, with_text=False)
    revoked = ShareLink.objects.filter(document=document, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    if not revoked:
        raise ShareNotFound(
            _("The document “%(title)s” has no active share link.") % {"title": document.title}
        )
    _changed(principal, document.pk, "documents.share.revoked")
    return document.pk


def _changed(principal: Principal, document_id: int, announce_key: str) -> None:
    document = get_document(principal, document_id, with_text=False)
    document.version += 1
    Document.objects.filter(pk=document.pk).update(version=document.version)
    events.document_changed(document, announce_key)


def resolve_public(token: str) -> Document | None:
    """The document behind an active token, or None (for every kind of invalid token alike)."""
    if not isinstance(token, str) or not _TOKEN.match(token):
        return None
    share = (
        ShareLink.objects.filter(active_share_q(), token_hash=_hash(token))
        .select_related("document")
        .defer("document__search", "document__extracted_text", "document__sections")
        .first()
    )
    if share is None or not secrets.compare_digest(token_for(share), token):
        return None
    return share.document
