"""The documents pages' share dialog endpoints for personal folders and documents
(see apps.core.share_views)."""

from django.contrib.auth.decorators import login_required

from apps.core.share_views import share_endpoint, share_methods
from apps.documents import grants


@share_methods
@login_required
def share_document(request, document_id: int):
    return share_endpoint(
        request,
        read=lambda p: grants.document_shares(p, document_id),
        grant=lambda p, target, level: grants.grant_document(p, document_id, target, level),
        revoke=lambda p, target: grants.revoke_document(p, document_id, target),
    )


@share_methods
@login_required
def share_folder(request, folder_id: int):
    return share_endpoint(
        request,
        read=lambda p: grants.folder_shares(p, folder_id),
        grant=lambda p, target, level: grants.grant_folder(p, folder_id, target, level),
        revoke=lambda p, target: grants.revoke_folder(p, folder_id, target),
    )
