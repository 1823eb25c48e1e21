"""REST API of the Kalender for mobile clients (`/api/v1/calendar/…`). Same services, same
records, same filters as the tools and pages; domain errors map to HTTP in `apps.core.api`."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.calendar import services
from apps.calendar.models import DESCRIPTION_MAX, RRULE_MAX, TITLE_MAX, CalendarEvent
from apps.calendar.records import event_record
from apps.core.api import page, principal, validated


class WindowSerializer(serializers.Serializer):
    start = serializers.CharField(required=False, max_length=40)
    end = serializers.CharField(required=False, max_length=40)
    kind = serializers.ChoiceField(choices=CalendarEvent.Kind.values, required=False)
    q = serializers.CharField(required=False, max_length=200)
    client_id = serializers.IntegerField(required=False)
    limit = serializers.IntegerField(required=False, min_value=1, max_value=services.MAX_PAGE, default=50)
    offset = serializers.IntegerField(required=False, min_value=0, default=0)


class EventWriteSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=TITLE_MAX)
    start = serializers.CharField(max_length=40)
    end = serializers.CharField(max_length=40, required=False, allow_null=True)
    kind = serializers.ChoiceField(choices=CalendarEvent.Kind.values, required=False)
    all_day = serializers.BooleanField(required=False)
    time_zone = serializers.CharField(max_length=64, required=False)
    description = serializers.CharField(max_length=DESCRIPTION_MAX, required=False, allow_blank=True)
    location = serializers.CharField(max_length=300, required=False, allow_blank=True)
    visibility = serializers.ChoiceField(choices=CalendarEvent.Visibility.values, required=False)
    attendee_ids = serializers.ListField(child=serializers.IntegerField(), required=False)
    conference_url = serializers.CharField(max_length=500, required=False, allow_blank=True)
    conference_provider = serializers.CharField(max_length=60, required=False, allow_blank=True)
    legal_basis = serializers.CharField(max_length=300, required=False, allow_blank=True)
    criticality = serializers.ChoiceField(choices=CalendarEvent.Criticality.values, required=False)
    source_label = serializers.CharField(max_length=200, required=False, allow_blank=True)
    client_id = serializers.IntegerField(required=False, allow_null=True)
    rrule = serializers.CharField(max_length=RRULE_MAX, required=False, allow_blank=True)
    recurrence_until = serializers.CharField(max_length=40, required=False)
    remind_minutes_before = serializers.IntegerField(required=False, allow_null=True, min_value=0)


class DeadlineFilterSerializer(serializers.Serializer):
    q = serializers.CharField(required=False, max_length=200)
    client_id = serializers.IntegerField(required=False)


class EventPatchSerializer(EventWriteSerializer):
    title = serializers.CharField(max_length=TITLE_MAX, required=False)
    start = serializers.CharField(max_length=40, required=False)
    expected_version = serializers.IntegerField(required=False, min_value=1)


@extend_schema(tags=["calendar"])
class EventListView(APIView):
    @extend_schema(
        operation_id="calendar_events_list",
        responses={200: OpenApiTypes.OBJECT},
        summary="Occurrences in a window (series expanded), with total",
        parameters=[WindowSerializer],
    )
    def get(self, request):
        f = validated(WindowSerializer, request.query_params)
        found, total = services.list_events(
            principal(request),
            start=f.get("start"),
            end=f.get("end"),
            kind=f.get("kind"),
            query=f.get("q"),
            client_id=f.get("client_id"),
            limit=f["limit"],
            offset=f["offset"],
        )
        return page("events", [event_record(o.event, o) for o in found], total, f["limit"], f["offset"])

    @extend_schema(
        operation_id="calendar_events_create",
        responses={201: OpenApiTypes.OBJECT},
        summary="Create an appointment or a Frist",
        request=EventWriteSerializer,
    )
    def post(self, request):
        data = validated(EventWriteSerializer, request.data)
        event = services.create_event(principal(request), **data, source_origin=CalendarEvent.Source.API)
        return Response({"event": event_record(event)}, status=201)


@extend_schema(tags=["calendar"])
class EventDetailView(APIView):
    @extend_schema(
        operation_id="calendar_events_retrieve", responses={200: OpenApiTypes.OBJECT}, summary="One entry"
    )
    def get(self, request, event_id: int):
        return Response({"event": event_record(services.get_event(principal(request), event_id))})

    @extend_schema(
        operation_id="calendar_events_partial_update",
        responses={200: OpenApiTypes.OBJECT},
        summary="Change some fields (partial); optional expected_version",
        request=EventPatchSerializer,
    )
    def patch(self, request, event_id: int):
        data = validated(EventPatchSerializer, request.data)
        expected = data.pop("expected_version", None)
        event = services.update_event(principal(request), event_id, data, expected_version=expected)
        return Response({"event": event_record(event)})

    @extend_schema(operation_id="calendar_events_destroy", responses={204: None}, summary="Delete an entry")
    def delete(self, request, event_id: int):
        services.delete_event(principal(request), event_id)
        return Response(status=204)


@extend_schema(tags=["calendar"])
class DeadlineListView(APIView):
    @extend_schema(
        operation_id="calendar_deadlines_list",
        responses={200: OpenApiTypes.OBJECT},
        summary="Fristen by urgency (overdue of the last 30 days first)",
        parameters=[DeadlineFilterSerializer],
    )
    def get(self, request):
        f = validated(DeadlineFilterSerializer, request.query_params)
        deadlines = services.list_deadlines(
            principal(request), query=f.get("q") or None, client_id=f.get("client_id")
        )
        return Response({"deadlines": [event_record(e) for e in deadlines]})
