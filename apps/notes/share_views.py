"""The Notizen page's share dialog endpoints for notes and folders (see apps.core.sharing.views)."""

from apps.core.sharing.views import share_view
from apps.notes import sharing

share_note = share_view(sharing.note_shares, sharing.grant_note, sharing.revoke_note)
share_folder = share_view(sharing.folder_shares, sharing.grant_folder, sharing.revoke_folder)
