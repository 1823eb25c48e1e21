"""REST API of Notizen for mobile clients (`/api/v1/notes/…`). Same services, same records as the
tools and the page; domain errors map to HTTP in `apps.core.api`."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import page, principal, validated
from apps.notes import services
from apps.notes.models import FOLDER_NAME_MAX, NOTE_NAME_MAX, PAGE_HTML_MAX, PAGE_TITLE_MAX, Visibility
from apps.notes.records import folder_record, note_record, page_record


def _rich(**kwargs):
    return serializers.CharField(
        max_length=PAGE_HTML_MAX, required=False, allow_blank=True, trim_whitespace=False, **kwargs
    )


class NoteFolderSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=FOLDER_NAME_MAX)
    parent_id = serializers.IntegerField(required=False, allow_null=True)
    visibility = serializers.ChoiceField(choices=Visibility.values, required=False)


class NoteFolderPatchSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=FOLDER_NAME_MAX, required=False)
    parent_id = serializers.IntegerField(required=False, allow_null=True)
    expected_version = serializers.IntegerField(required=False, min_value=1)


class NoteFilterSerializer(serializers.Serializer):
    folder = serializers.IntegerField(required=False)
    q = serializers.CharField(required=False, max_length=200)
    limit = serializers.IntegerField(required=False, min_value=1, max_value=services.MAX_PAGE, default=50)
    offset = serializers.IntegerField(required=False, min_value=0, default=0)


class NoteWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=NOTE_NAME_MAX)
    folder_id = serializers.IntegerField(required=False, allow_null=True)
    visibility = serializers.ChoiceField(choices=Visibility.values, required=False)
    page_title = serializers.CharField(max_length=PAGE_TITLE_MAX, required=False, allow_blank=True)
    html = _rich()
    text = _rich()


class NotePatchSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=NOTE_NAME_MAX, required=False)
    folder_id = serializers.IntegerField(required=False, allow_null=True)
    visibility = serializers.ChoiceField(choices=Visibility.values, required=False)
    expected_version = serializers.IntegerField(required=False, min_value=1)


class NotePageWriteSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=PAGE_TITLE_MAX, required=False, allow_blank=True)
    html = _rich()
    text = _rich()
    font_family = serializers.CharField(max_length=60, required=False, allow_blank=True, allow_null=True)
    font_size = serializers.IntegerField(required=False, allow_null=True)
    # Structure is checked by the services (one set of rules and messages for every surface).
    asset_items = serializers.JSONField(required=False)
    audio_attachments = serializers.JSONField(required=False)


class NotePageCreateSerializer(NotePageWriteSerializer):
    position = serializers.IntegerField(required=False, min_value=0)


class NotePagePatchSerializer(NotePageWriteSerializer):
    expected_version = serializers.IntegerField(required=False, min_value=1)


@extend_schema(tags=["notes"])
class FolderListView(APIView):
    @extend_schema(
        operation_id="notes_folders_list", responses={200: OpenApiTypes.OBJECT}, summary="Note folders"
    )
    def get(self, request):
        return Response({"folders": [folder_record(f) for f in services.list_folders(principal(request))]})

    @extend_schema(
        operation_id="notes_folders_create",
        responses={201: OpenApiTypes.OBJECT},
        summary="Create a folder",
        request=NoteFolderSerializer,
    )
    def post(self, request):
        folder = services.create_folder(principal(request), **validated(NoteFolderSerializer, request.data))
        return Response({"folder": folder_record(folder)}, status=201)


@extend_schema(tags=["notes"])
class FolderDetailView(APIView):
    @extend_schema(
        operation_id="notes_folders_partial_update",
        responses={200: OpenApiTypes.OBJECT},
        summary="Rename or move a folder",
        request=NoteFolderPatchSerializer,
    )
    def patch(self, request, folder_id: int):
        data = validated(NoteFolderPatchSerializer, request.data)
        expected = data.pop("expected_version", None)
        folder = services.update_folder(principal(request), folder_id, data, expected_version=expected)
        return Response({"folder": folder_record(folder)})

    @extend_schema(
        operation_id="notes_folders_destroy", responses={204: None}, summary="Delete an empty folder"
    )
    def delete(self, request, folder_id: int):
        services.delete_folder(principal(request), folder_id)
        return Response(status=204)


@extend_schema(tags=["notes"])
class NoteListView(APIView):
    @extend_schema(
        operation_id="notes_list",
        responses={200: OpenApiTypes.OBJECT},
        summary="List notes (folder, search, pagination, total)",
        parameters=[NoteFilterSerializer],
    )
    def get(self, request):
        f = validated(NoteFilterSerializer, request.query_params)
        notes, total = services.list_notes(
            principal(request),
            folder_id=f.get("folder"),
            query=f.get("q"),
            limit=f["limit"],
            offset=f["offset"],
        )
        return page("notes", [note_record(n) for n in notes], total, f["limit"], f["offset"])

    @extend_schema(
        operation_id="notes_create",
        responses={201: OpenApiTypes.OBJECT},
        summary="Create a note with its first page",
        request=NoteWriteSerializer,
    )
    def post(self, request):
        note, first = services.create_note(principal(request), **validated(NoteWriteSerializer, request.data))
        return Response({"note": note_record(note), "page": page_record(first)}, status=201)


@extend_schema(tags=["notes"])
class NoteDetailView(APIView):
    @extend_schema(
        operation_id="notes_retrieve", responses={200: OpenApiTypes.OBJECT}, summary="A note with its pages"
    )
    def get(self, request, note_id: int):
        note = services.get_note(principal(request), note_id)
        return Response(
            {"note": note_record(note), "pages": [page_record(p) for p in services.note_pages(note)]}
        )

    @extend_schema(
        operation_id="notes_partial_update",
        responses={200: OpenApiTypes.OBJECT},
        summary="Rename, move or change visibility (partial); optional expected_version",
        request=NotePatchSerializer,
    )
    def patch(self, request, note_id: int):
        data = validated(NotePatchSerializer, request.data)
        expected = data.pop("expected_version", None)
        note = services.update_note(principal(request), note_id, data, expected_version=expected)
        return Response({"note": note_record(note)})

    @extend_schema(operation_id="notes_destroy", responses={204: None}, summary="Delete a note")
    def delete(self, request, note_id: int):
        services.delete_note(principal(request), note_id)
        return Response(status=204)


@extend_schema(tags=["notes"])
class PageListView(APIView):
    @extend_schema(
        operation_id="notes_pages_list", responses={200: OpenApiTypes.OBJECT}, summary="Pages of a note"
    )
    def get(self, request, note_id: int):
        note = services.get_note(principal(request), note_id)
        return Response({"pages": [page_record(p) for p in services.note_pages(note)]})

    @extend_schema(
        operation_id="notes_pages_create",
        responses={201: OpenApiTypes.OBJECT},
        summary="Add a page",
        request=NotePageCreateSerializer,
    )
    def post(self, request, note_id: int):
        created = services.create_page(
            principal(request), note_id, **validated(NotePageCreateSerializer, request.data)
        )
        return Response({"page": page_record(created)}, status=201)


@extend_schema(tags=["notes"])
class PageDetailView(APIView):
    @extend_schema(
        operation_id="notes_pages_retrieve", responses={200: OpenApiTypes.OBJECT}, summary="One page"
    )
    def get(self, request, page_id: int):
        return Response({"page": page_record(services.get_page(principal(request), page_id))})

    @extend_schema(
        operation_id="notes_pages_partial_update",
        responses={200: OpenApiTypes.OBJECT},
        summary="Change a page (partial; html is sanitized); optional expected_version",
        request=NotePagePatchSerializer,
    )
    def patch(self, request, page_id: int):
        data = validated(NotePagePatchSerializer, request.data)
        expected = data.pop("expected_version", None)
        updated = services.update_page(principal(request), page_id, data, expected_version=expected)
        return Response({"page": page_record(updated)})

    @extend_schema(operation_id="notes_pages_destroy", responses={204: None}, summary="Delete a page")
    def delete(self, request, page_id: int):
        services.delete_page(principal(request), page_id)
        return Response(status=204)
