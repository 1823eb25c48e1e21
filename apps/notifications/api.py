from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.principal import Principal
from apps.notifications import services
from apps.notifications.models import Notification


class NotificationSerializer(serializers.ModelSerializer):
    class Meta:
        model = Notification
        fields = ["id", "kind", "title", "body", "url", "data", "created_at", "read_at"]


class CursorSerializer(serializers.Serializer):
    after = serializers.IntegerField(min_value=0, default=0)
    limit = serializers.IntegerField(min_value=1, max_value=services.MAX_PAGE, default=50)


class NotificationListView(APIView):
    """Cursor-based and read-only: polling devices never mark anything read."""

    required_scopes = ["notifications:read"]

    @extend_schema(
        summary="Notifications after a cursor",
        tags=["notifications"],
        parameters=[OpenApiParameter("after", int), OpenApiParameter("limit", int)],
        responses=NotificationSerializer(many=True),
    )
    def get(self, request):
        cursor = CursorSerializer(data=request.query_params)
        if not cursor.is_valid():
            return Response(
                {"code": "invalid_request", "message": _("Invalid cursor."), "errors": cursor.errors}, 400
            )
        items = services.list_after(Principal.for_user(request.user), **cursor.validated_data)
        next_after = items[-1].pk if items else cursor.validated_data["after"]
        return Response(
            {"notifications": NotificationSerializer(items, many=True).data, "next_after": next_after}
        )
