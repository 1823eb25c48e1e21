"""The documents pages' share dialog endpoints for personal folders and documents
(see apps.core.sharing.views)."""

from apps.core.sharing.views import share_view
from apps.documents import grants

share_document = share_view(grants.document_shares, grants.grant_document, grants.revoke_document)
share_folder = share_view(grants.folder_shares, grants.grant_folder, grants.revoke_folder)
