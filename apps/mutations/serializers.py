"""Query validation and response shapes of the mutation event API (the shapes feed OpenAPI)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from apps.mutations.services import DEFAULT_LIMIT, MAX_LIMIT


class CursorQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0, required=False, default=0, help_text=_("Return events with an id greater than this.")
    )
    limit = serializers.IntegerField(
        min_value=1,
        max_value=MAX_LIMIT,
        required=False,
        default=DEFAULT_LIMIT,
        help_text=_("Maximum number of events; fewer means the client has caught up."),
    )


class StreamQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(min_value=0, required=False, allow_null=True)
    # The Last-Event-ID header an EventSource sends when it reconnects; it wins over ?after=.
    last_event_id = serializers.IntegerField(min_value=0, required=False, allow_null=True)


class MutationEventSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    topic = serializers.CharField()
    ui_actions = serializers.ListField(child=serializers.DictField())
    trigger_reload = serializers.BooleanField()
    refresh_topic = serializers.CharField(allow_blank=True)
    origin_tool = serializers.CharField(allow_blank=True)
    origin_run = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()


class MutationEventPageSerializer(serializers.Serializer):
    events = MutationEventSerializer(many=True)
    next_after = serializers.IntegerField(help_text=_("Pass as ?after= on the next request."))
