"""The Notizen page's share dialog endpoints for notes and folders (see apps.core.share_views)."""

from django.contrib.auth.decorators import login_required

from apps.core.share_views import share_endpoint, share_methods
from apps.notes import sharing


@share_methods
@login_required
def share_note(request, note_id: int):
    return share_endpoint(
        request,
        read=lambda p: sharing.note_shares(p, note_id),
        grant=lambda p, target, level: sharing.grant_note(p, note_id, target, level),
        revoke=lambda p, target: sharing.revoke_note(p, note_id, target),
    )


@share_methods
@login_required
def share_folder(request, folder_id: int):
    return share_endpoint(
        request,
        read=lambda p: sharing.folder_shares(p, folder_id),
        grant=lambda p, target, level: sharing.grant_folder(p, folder_id, target, level),
        revoke=lambda p, target: sharing.revoke_folder(p, folder_id, target),
    )
