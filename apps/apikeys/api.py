"""Device-token login for the member's own apps, and managing those tokens.

`POST /api/v1/auth/token` uses no cookie authentication at all, so it needs (and has) no CSRF
check; it is protected by the failed-login throttle instead. Domain errors (`errors.ApiKeyError`)
are raised and shaped by the project's exception handler: `{"code", "message", "details"}`.
"""

from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.apikeys import errors, services
from apps.apikeys.models import DeviceToken
from apps.apikeys.serializers import (
    DeviceTokenSerializer,
    ErrorSerializer,
    IssuedTokenSerializer,
    ObtainTokenSerializer,
)
from apps.apikeys.throttling import LoginFailureThrottle

TAG = "auth"


class ObtainDeviceTokenView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [LoginFailureThrottle]

    @extend_schema(
        tags=[TAG],
        operation_id="auth_token_create",
        summary="Sign in a device",
        description=(
            "Exchange e-mail and password for a device token (`Authorization: Token <token>`). "
            "The token is returned only in this response. Wrong credentials give one generic 400; "
            "repeated failures for the same e-mail from the same address give 429 with Retry-After."
        ),
        request=ObtainTokenSerializer,
        responses={
            201: IssuedTokenSerializer,
            400: OpenApiResponse(ErrorSerializer, description="Invalid input or wrong credentials."),
            429: OpenApiResponse(description="Too many failed logins; see Retry-After."),
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = ObtainTokenSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        user = authenticate(request._request, username=data["email"].strip(), password=data["password"])
        if user is None:
            LoginFailureThrottle().record_failure(request, self)
            raise errors.InvalidCredentials()
        token, plaintext = services.issue_device_token(user, data["device_name"])
        return Response(
            {"token": plaintext, "id": token.pk, "device_name": token.device_name},
            status=status.HTTP_201_CREATED,
            headers={"Cache-Control": "no-store"},
        )


@extend_schema_view(
    get=extend_schema(
        tags=[TAG],
        operation_id="auth_tokens_list",
        summary="List my devices",
        description="The caller's own active device tokens (never the secrets).",
    )
)
class DeviceTokenListView(generics.ListAPIView):
    serializer_class = DeviceTokenSerializer

    def get_queryset(self):
        return DeviceToken.objects.filter(user=self.request.user, revoked_at__isnull=True).order_by(
            "-created_at"
        )


class DeviceTokenDetailView(APIView):
    @extend_schema(
        tags=[TAG],
        operation_id="auth_tokens_destroy",
        summary="Sign out a device",
        description="Revoke one of the caller's own device tokens (another member's id gives 404).",
        request=None,
        responses={204: None, 404: OpenApiResponse(ErrorSerializer, description="No such device token.")},
    )
    def delete(self, request: Request, token_id: int) -> Response:
        services.revoke_device_token(request.user, token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
