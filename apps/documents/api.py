"""REST API of the documents for mobile clients (`/api/v1/documents/…`, `/api/v1/document-folders/…`):
thin typed adapters over the same services, input models and records as the tools and pages (see
`apps.core.surfaces.api.endpoint`). The upload is multipart: its metadata is validated through the same
input model, the file is read here; the download answers the file itself (binary in OpenAPI)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response

from apps.core.surfaces.api import ApiView, RequestInvalid, endpoint, listed, parse, refusal
from apps.documents import contracts as c
from apps.documents import folders, services, sharing, storage
from apps.documents.records import detailed_record, share_record
from apps.documents.responses import file_response


class DocumentListView(ApiView):
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    @endpoint(query=c.DocumentFilter, output=c.DocumentPage, operation_id="documents_list")
    def get(self, request, query: c.DocumentFilter):
        """List documents (search, folder, client, pagination, total)"""
        found = services.list_documents(request.principal, query)
        return listed("documents", c.DocumentOut.record, found, query)

    @endpoint(
        output=c.DocumentResult,
        status=201,
        operation_id="documents_upload",
        request={"multipart/form-data": c.DocumentUploadForm},
    )
    def post(self, request):
        """Upload a file (multipart field `file`); text extraction starts in the background"""
        storage.refuse_declared_too_large(request._request)  # before the body is read
        upload = request.FILES.get("file")
        if upload is None:
            raise RequestInvalid({"file": [_("No file was submitted.")]})
        metadata = parse(c.DocumentUpload, _form_values(request.data))
        document = services.upload_document(request.principal, metadata, content=upload, filename=upload.name)
        return {"document": detailed_record(document)}


def _form_values(data) -> dict:
    """The upload's metadata as the input model expects it: repeated `client_ids` fields (or a
    JSON list), and an empty form field meaning "not given"."""
    values = {
        key: data.get(key) for key in ("title", "folder_id", "case_id") if data.get(key) not in (None, "")
    }
    ids = data.getlist("client_ids") if hasattr(data, "getlist") else data.get("client_ids")
    if ids:
        values["client_ids"] = [i for i in ids if i != ""] if isinstance(ids, list) else ids
    return values


class DocumentDetailView(ApiView):
    @endpoint(output=c.DocumentDetail, operation_id="documents_retrieve")
    def get(self, request, document_id: int):
        """One document with its extraction and indexing state"""
        document = services.get_document(request.principal, document_id)
        share = sharing.active_share(document)
        return {
            "document": detailed_record(document),
            "share": share_record(share, sharing.token_for(share)) if share else None,
        }

    @endpoint(body=c.DocumentUpdate, output=c.DocumentResult, operation_id="documents_partial_update")
    def patch(self, request, document_id: int, body: c.DocumentUpdate):
        """Change metadata (partial); optional expected_version"""
        return {"document": detailed_record(services.update_document(request.principal, document_id, body))}

    @endpoint(output=None, status=204, operation_id="documents_destroy")
    def delete(self, request, document_id: int):
        """Delete a document and its file"""
        services.delete_document(request.principal, document_id)


class DocumentDownloadView(ApiView):
    @endpoint(output=None, operation_id="documents_download", extra_responses={200: OpenApiTypes.BINARY})
    def get(self, request, document_id: int):
        """The file"""
        document = services.get_document(request.principal, document_id, with_text=False)
        return file_response(document, as_attachment=True)


class DocumentShareView(ApiView):
    @endpoint(
        body=c.ShareCreate,
        output=c.ShareResult,
        status=201,
        operation_id="documents_share_create",
        extra_responses={200: c.ShareResult},
    )
    def post(self, request, document_id: int, body: c.ShareCreate):
        """Create the public share link (201), or return the active one (200)"""
        share, token, created = sharing.create_share(request.principal, document_id, body)
        result = c.ShareResult(share=share_record(share, token), created=created)
        return Response(result.model_dump(mode="json"), status=201 if created else 200)

    @endpoint(output=None, status=204, operation_id="documents_share_revoke")
    def delete(self, request, document_id: int):
        """Revoke the share link"""
        sharing.revoke_share(request.principal, document_id)


class FolderListView(ApiView):
    @endpoint(output=c.FolderList, operation_id="document_folders_list")
    def get(self, request):
        """Folders"""
        return {"folders": [c.FolderOut.record(f) for f in folders.list_folders(request.principal)]}

    @endpoint(
        body=c.FolderCreate,
        output=c.FolderResult,
        status=201,
        operation_id="document_folders_create",
        extra_responses={409: refusal("`folder_name_taken`: the parent holds a folder of that name.")},
    )
    def post(self, request, body: c.FolderCreate):
        """Create a folder"""
        return {"folder": c.FolderOut.record(folders.create_folder(request.principal, body))}


class FolderDetailView(ApiView):
    @endpoint(output=c.FolderResult, operation_id="document_folders_retrieve")
    def get(self, request, folder_id: int):
        """A folder"""
        return {"folder": c.FolderOut.record(folders.get_folder(request.principal, folder_id))}

    @endpoint(
        body=c.FolderUpdate,
        output=c.FolderResult,
        operation_id="document_folders_partial_update",
        extra_responses={
            409: refusal("`folder_name_taken`, or `folder_protected` (your “Persönlich” folder).")
        },
    )
    def patch(self, request, folder_id: int, body: c.FolderUpdate):
        """Rename or move (parent_id null: to the top level)"""
        return {"folder": c.FolderOut.record(folders.update_folder(request.principal, folder_id, body))}

    @endpoint(
        query=c.FolderDelete,
        output=None,
        status=204,
        operation_id="document_folders_destroy",
        extra_responses={
            409: refusal("`folder_not_empty` (without ?recursive=true), or `folder_protected`.")
        },
    )
    def delete(self, request, folder_id: int, query: c.FolderDelete):
        """Delete a folder (?recursive=true for a non-empty one)"""
        folders.delete_folder(request.principal, folder_id, recursive=query.recursive)
