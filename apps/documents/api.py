"""REST API of the documents for mobile clients (`/api/v1/documents/…`, `/api/v1/document-folders/…`).
Same services, same records as the tools and pages; domain errors map to HTTP in `apps.core.api`."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import page, principal, validated
from apps.documents import folders, services, sharing, storage
from apps.documents.errors import FileTooLarge
from apps.documents.models import FOLDER_NAME_MAX, TITLE_MAX, Document
from apps.documents.records import detailed_record, document_record, folder_record, share_record
from apps.documents.responses import file_response


class DocumentFilterSerializer(serializers.Serializer):
    q = serializers.CharField(required=False, max_length=200)
    folder = serializers.IntegerField(required=False)
    client = serializers.IntegerField(required=False)
    extraction_status = serializers.ChoiceField(choices=Document.Extraction.values, required=False)
    limit = serializers.IntegerField(required=False, min_value=1, max_value=services.MAX_PAGE, default=50)
    offset = serializers.IntegerField(required=False, min_value=0, default=0)


class UploadSerializer(serializers.Serializer):
    file = serializers.FileField(allow_empty_file=True)
    title = serializers.CharField(required=False, max_length=TITLE_MAX, allow_blank=True)
    folder_id = serializers.IntegerField(required=False, allow_null=True)
    client_ids = serializers.ListField(child=serializers.IntegerField(), required=False)


class DocumentPatchSerializer(serializers.Serializer):
    title = serializers.CharField(required=False, max_length=TITLE_MAX)
    folder_id = serializers.IntegerField(required=False, allow_null=True)
    client_ids = serializers.ListField(child=serializers.IntegerField(), required=False)
    tax_fields = serializers.DictField(required=False)
    expected_version = serializers.IntegerField(required=False, min_value=1)


class ShareSerializer(serializers.Serializer):
    expires_in_days = serializers.IntegerField(required=False, min_value=1, max_value=sharing.MAX_EXPIRY_DAYS)


class FolderSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=FOLDER_NAME_MAX)
    parent_id = serializers.IntegerField(required=False, allow_null=True)


class FolderPatchSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, max_length=FOLDER_NAME_MAX)
    parent_id = serializers.IntegerField(required=False, allow_null=True)
    expected_version = serializers.IntegerField(required=False, min_value=1)


def _detail(document: Document) -> dict:
    return {"document": detailed_record(document)}


@extend_schema(tags=["documents"])
class DocumentListView(APIView):
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    @extend_schema(
        operation_id="documents_list",
        responses={200: OpenApiTypes.OBJECT},
        summary="List documents (search, folder, client, pagination, total)",
        parameters=[DocumentFilterSerializer],
    )
    def get(self, request):
        f = validated(DocumentFilterSerializer, request.query_params)
        found, total = services.list_documents(
            principal(request),
            query=f.get("q"),
            folder_id=f.get("folder"),
            client_id=f.get("client"),
            extraction_status=f.get("extraction_status"),
            limit=f["limit"],
            offset=f["offset"],
        )
        return page("documents", [document_record(d) for d in found], total, f["limit"], f["offset"])

    @extend_schema(
        operation_id="documents_upload",
        request={"multipart/form-data": UploadSerializer},
        responses={201: OpenApiTypes.OBJECT},
        summary="Upload a file (multipart field `file`); text extraction starts in the background",
    )
    def post(self, request):
        if storage.declared_too_large(request._request):
            limit = storage.max_upload_bytes()
            raise FileTooLarge(
                _("The file is larger than %(mb)d MB.") % {"mb": limit // (1024 * 1024)},
                details={"max_bytes": limit},
            )
        data = validated(UploadSerializer, request.data)
        upload = data["file"]
        client_ids = request.data.getlist("client_ids") if hasattr(request.data, "getlist") else None
        document = services.upload_document(
            principal(request),
            content=upload,
            filename=upload.name,
            title=data.get("title") or None,
            folder_id=data.get("folder_id"),
            client_ids=client_ids or data.get("client_ids"),
        )
        return Response(_detail(document), status=201)


@extend_schema(tags=["documents"])
class DocumentDetailView(APIView):
    @extend_schema(
        operation_id="documents_retrieve",
        responses={200: OpenApiTypes.OBJECT},
        summary="One document with its extraction and indexing state",
    )
    def get(self, request, document_id: int):
        document = services.get_document(principal(request), document_id)
        share = sharing.active_share(document)
        body = _detail(document)
        body["share"] = share_record(share, sharing.token_for(share)) if share else None
        return Response(body)

    @extend_schema(
        operation_id="documents_partial_update",
        request=DocumentPatchSerializer,
        responses={200: OpenApiTypes.OBJECT},
        summary="Change metadata (partial); optional expected_version",
    )
    def patch(self, request, document_id: int):
        data = validated(DocumentPatchSerializer, request.data)
        expected = data.pop("expected_version", None)
        return Response(
            _detail(
                services.update_document(principal(request), document_id, data, expected_version=expected)
            )
        )

    @extend_schema(
        operation_id="documents_destroy", responses={204: None}, summary="Delete a document and its file"
    )
    def delete(self, request, document_id: int):
        services.delete_document(principal(request), document_id)
        return Response(status=204)


@extend_schema(tags=["documents"])
class DocumentDownloadView(APIView):
    @extend_schema(
        operation_id="documents_download", responses={200: OpenApiTypes.BINARY}, summary="The file"
    )
    def get(self, request, document_id: int):
        document = services.get_document(principal(request), document_id, with_text=False)
        return file_response(document, as_attachment=True)


@extend_schema(tags=["documents"])
class DocumentShareView(APIView):
    @extend_schema(
        operation_id="documents_share_create",
        request=ShareSerializer,
        responses={200: OpenApiTypes.OBJECT, 201: OpenApiTypes.OBJECT},
        summary="Create the public share link, or return the active one",
    )
    def post(self, request, document_id: int):
        data = validated(ShareSerializer, request.data)
        share, token, created = sharing.create_share(principal(request), document_id, **data)
        return Response(
            {"share": share_record(share, token), "created": created}, status=201 if created else 200
        )

    @extend_schema(
        operation_id="documents_share_revoke", responses={204: None}, summary="Revoke the share link"
    )
    def delete(self, request, document_id: int):
        sharing.revoke_share(principal(request), document_id)
        return Response(status=204)


@extend_schema(tags=["documents"])
class FolderListView(APIView):
    @extend_schema(
        operation_id="document_folders_list", responses={200: OpenApiTypes.OBJECT}, summary="Folders"
    )
    def get(self, request):
        return Response({"folders": [folder_record(f) for f in folders.list_folders(principal(request))]})

    @extend_schema(
        operation_id="document_folders_create",
        request=FolderSerializer,
        responses={201: OpenApiTypes.OBJECT},
        summary="Create a folder",
    )
    def post(self, request):
        folder = folders.create_folder(principal(request), **validated(FolderSerializer, request.data))
        return Response({"folder": folder_record(folder)}, status=201)


@extend_schema(tags=["documents"])
class FolderDetailView(APIView):
    @extend_schema(
        operation_id="document_folders_retrieve", responses={200: OpenApiTypes.OBJECT}, summary="A folder"
    )
    def get(self, request, folder_id: int):
        return Response({"folder": folder_record(folders.get_folder(principal(request), folder_id))})

    @extend_schema(
        operation_id="document_folders_partial_update",
        request=FolderPatchSerializer,
        responses={200: OpenApiTypes.OBJECT},
        summary="Rename or move (parent_id null: to the top level)",
    )
    def patch(self, request, folder_id: int):
        data = validated(FolderPatchSerializer, request.data)
        move_to_root = "parent_id" in data and data["parent_id"] is None
        folder = folders.update_folder(
            principal(request),
            folder_id,
            name=data.get("name"),
            parent_id=data.get("parent_id"),
            move_to_root=move_to_root,
            expected_version=data.get("expected_version"),
        )
        return Response({"folder": folder_record(folder)})

    @extend_schema(
        operation_id="document_folders_destroy",
        responses={204: None},
        summary="Delete a folder (?recursive=true for a non-empty one)",
    )
    def delete(self, request, folder_id: int):
        recursive = request.query_params.get("recursive", "").lower() in ("1", "true", "yes")
        folders.delete_folder(principal(request), folder_id, recursive=recursive)
        return Response(status=204)
