"""The endpoints behind the share dialog (templates/core/_share_dialog.html, share-dialog.js).

`share_endpoint` is the one body every domain's share view has: GET answers the current shares,
POST grants or revokes through the domain's service and answers the shares after the change. A
refusal answers `{"code", "message"}` with its status, and nothing changed. `share_view` makes a
domain's view for one kind of record from its three sharing functions:

    share_note = share_view(sharing.note_shares, sharing.grant_note, sharing.revoke_note)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.http import JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from apps.core import sharing
from apps.core.contracts import Input
from apps.core.errors import DomainError, InvalidInput
from apps.core.surfaces.web import error_json, posted, query


class ShareSearch(Input):
    q: str = ""


class ShareChange(Input):
    """What the share dialog posts: grant (with a level, default view) or revoke one target."""

    action: str = ""
    target: str = ""
    level: str = ""


@require_GET
def search(request):
    """People and groups to share with: name, e-mail or group name contains `q`."""
    found = sharing.search(query(request, ShareSearch).q, exclude_user_ids=[request.user.pk])
    return JsonResponse({"results": found})


def share_endpoint(
    request,
    *,
    read: Callable[[Any], dict],
    grant: Callable[[Any, str, str], Any],
    revoke: Callable[[Any, str], Any],
) -> JsonResponse:
    principal = request.principal
    try:
        if request.method == "POST":
            change = posted(request, ShareChange)
            with transaction.atomic():
                if change.action == "grant":
                    grant(principal, change.target, change.level or "view")
                elif change.action == "revoke":
                    revoke(principal, change.target)
                else:
                    raise InvalidInput.field("action", _("must be “grant” or “revoke”"))
        return JsonResponse(read(principal))
    except DomainError as exc:
        return error_json(exc)


share_methods = require_http_methods(["GET", "POST"])


def share_view(
    read: Callable[[Any, int], dict],
    grant: Callable[[Any, int, str, str], Any],
    revoke: Callable[[Any, int, str], Any],
) -> Callable:
    """The share endpoint of one kind of record: `read(principal, id)`, `grant(principal, id,
    target, level)`, `revoke(principal, id, target)`; the URL names the record's id (one
    keyword, `<int:note_id>` …)."""

    @share_methods
    def view(request, **url_kwargs):
        (record_id,) = url_kwargs.values()
        return share_endpoint(
            request,
            read=lambda p: read(p, record_id),
            grant=lambda p, target, level: grant(p, record_id, target, level),
            revoke=lambda p, target: revoke(p, record_id, target),
        )

    return view
