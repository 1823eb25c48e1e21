from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from apps.apikeys.models import DeviceToken
from apps.apikeys.services import MAX_NAME_LENGTH


class ObtainTokenSerializer(serializers.Serializer):
    email = serializers.CharField(max_length=254, help_text=_("The e-mail address the member signs in with."))
    password = serializers.CharField(
        max_length=1024, write_only=True, trim_whitespace=False, style={"input_type": "password"}
    )
    device_name = serializers.CharField(
        max_length=MAX_NAME_LENGTH, help_text=_("Shown in the member's device list, e.g. “Anna's iPhone”.")
    )


class IssuedTokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text=_("Send as `Authorization: Token <token>`. Shown only once."))
    id = serializers.IntegerField()
    device_name = serializers.CharField()


class DeviceTokenSerializer(serializers.ModelSerializer):
    current = serializers.SerializerMethodField(help_text=_("True for the token making this request."))

    class Meta:
        model = DeviceToken
        fields = ["id", "device_name", "prefix", "created_at", "last_used_at", "current"]
        read_only_fields = fields

    def get_current(self, obj: DeviceToken) -> bool:
        request = self.context.get("request")
        auth = getattr(request, "auth", None)
        return isinstance(auth, DeviceToken) and auth.pk == obj.pk


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    details = serializers.JSONField(allow_null=True)
