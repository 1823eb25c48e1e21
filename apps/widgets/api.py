"""REST API of widgets for mobile clients (`/api/v1/widgets/…`): the same services and records as
the tools; domain errors map to HTTP in `apps.core.api`."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import principal, validated
from apps.widgets import services
from apps.widgets.models import DESCRIPTION_MAX, SLUG_MAX, TITLE_MAX
from apps.widgets.records import widget_record


class ListFilterSerializer(serializers.Serializer):
    dashboard_only = serializers.BooleanField(required=False, default=False)
    q = serializers.CharField(required=False, max_length=200)


class WidgetWriteSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=TITLE_MAX)
    description = serializers.CharField(max_length=DESCRIPTION_MAX, required=False, allow_blank=True)
    slug = serializers.CharField(max_length=SLUG_MAX, required=False, allow_blank=True)
    widget_definition = serializers.JSONField(required=False, allow_null=True)
    latest_data = serializers.JSONField(required=False, allow_null=True)
    show_on_dashboard = serializers.BooleanField(required=False, default=True)


class WidgetPatchSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=TITLE_MAX, required=False)
    description = serializers.CharField(max_length=DESCRIPTION_MAX, required=False, allow_blank=True)
    widget_definition = serializers.JSONField(required=False)
    latest_data = serializers.JSONField(required=False, allow_null=True)
    show_on_dashboard = serializers.BooleanField(required=False)
    position = serializers.IntegerField(required=False, min_value=0)
    expected_version = serializers.IntegerField(required=False, min_value=1)


@extend_schema(tags=["widgets"])
class WidgetListView(APIView):
    @extend_schema(
        operation_id="widgets_list",
        responses={200: OpenApiTypes.OBJECT},
        summary="Your widgets",
        parameters=[ListFilterSerializer],
    )
    def get(self, request):
        f = validated(ListFilterSerializer, request.query_params)
        widgets = services.list_widgets(
            principal(request), dashboard_only=f["dashboard_only"], query=f.get("q")
        )
        return Response({"widgets": [widget_record(w) for w in widgets], "count": len(widgets)})

    @extend_schema(
        operation_id="widgets_create",
        responses={201: OpenApiTypes.OBJECT},
        summary="Create a widget (type inferred from latest_data without a widget_definition)",
        request=WidgetWriteSerializer,
    )
    def post(self, request):
        data = validated(WidgetWriteSerializer, request.data)
        widget = services.create_widget(
            principal(request),
            title=data["title"],
            description=data.get("description", ""),
            slug=data.get("slug") or None,
            definition=data.get("widget_definition"),
            data=data.get("latest_data"),
            show_on_dashboard=data["show_on_dashboard"],
        )
        return Response({"widget": widget_record(widget)}, status=201)


@extend_schema(tags=["widgets"])
class WidgetDetailView(APIView):
    @extend_schema(
        operation_id="widgets_retrieve", responses={200: OpenApiTypes.OBJECT}, summary="One widget"
    )
    def get(self, request, widget_id: int):
        return Response(
            {"widget": widget_record(services.get_widget(principal(request), widget_id=widget_id))}
        )

    @extend_schema(
        operation_id="widgets_partial_update",
        responses={200: OpenApiTypes.OBJECT},
        summary="Change some fields and/or replace the latest data; optional expected_version",
        request=WidgetPatchSerializer,
    )
    def patch(self, request, widget_id: int):
        data = dict(validated(WidgetPatchSerializer, request.data))
        expected = data.pop("expected_version", None)
        has_data = "latest_data" in data
        latest = data.pop("latest_data", None)
        if "widget_definition" in data:
            data["definition"] = data.pop("widget_definition")
        who = principal(request)
        widget = None
        if data:
            widget = services.update_widget(who, data, widget_id=widget_id, expected_version=expected)
            expected = None
        if has_data:
            widget = services.update_data(who, latest, widget_id=widget_id, expected_version=expected)
        if widget is None:
            widget = services.get_widget(who, widget_id=widget_id)
        return Response({"widget": widget_record(widget)})

    @extend_schema(operation_id="widgets_destroy", responses={204: None}, summary="Remove a widget")
    def delete(self, request, widget_id: int):
        services.delete_widget(principal(request), widget_id=widget_id)
        return Response(status=204)
