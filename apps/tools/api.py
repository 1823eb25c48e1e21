"""REST surface of the tool framework: the catalog and `POST /api/v1/tools/execute`.

Identity comes only from the authenticated credential (an API key acts as its creator); identity
fields in the body (userId, session, principal …) are ignored by construction: the body is read
for `tool`, `arguments` and `idempotency_key` only.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.principal import Principal, PrincipalError
from apps.tools import catalog, idempotency
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from apps.tools.results import ToolResult

# Where each failure code lands in HTTP. Everything not listed: 400 (a handled domain failure).
STATUS_BY_CODE = {
    "unknown_tool": 404,
    "not_found": 404,
    "forbidden": 403,
    "approval_required": 202,
    "CLAPILOT_NO_USER_CONTEXT": 403,
    "CLAPILOT_TOOL_EXECUTION_FAILED": 500,
    "CLAPILOT_TOOL_OUTPUT_SERIALIZATION_FAILED": 500,
}


def http_status_for(result: ToolResult) -> int:
    if result.ok:
        return 200
    code = result.code or "tool_error"
    if code.startswith("module_not_installed"):
        return 403
    return STATUS_BY_CODE.get(code, 400)


def context_for(request) -> ToolContext:
    scopes = getattr(request.auth, "scopes", None)
    return ToolContext(
        principal=Principal.for_user(request.user),
        surface="api",
        scopes=frozenset(scopes) if scopes is not None else None,
        time_zone=request.headers.get("X-User-Timezone") or None,
    )


def error(code: str, message: str, http_status: int) -> Response:
    return Response(ToolResult.failure(code, message).as_dict(), status=http_status)


ResultSchema = inline_serializer(
    "ToolResult",
    {
        "ok": serializers.BooleanField(),
        "output": serializers.JSONField(allow_null=True),
        "code": serializers.CharField(allow_null=True),
        "message": serializers.CharField(),
        "ui_actions": serializers.ListField(child=serializers.DictField()),
        "trigger_reload": serializers.BooleanField(),
        "refresh_topic": serializers.CharField(),
        "mutation_event_id": serializers.IntegerField(allow_null=True),
    },
)


class ToolCatalogView(APIView):
    required_scopes = ["tools:execute"]

    @extend_schema(
        responses=OpenApiTypes.OBJECT,
        summary="Tools the caller may use, with their JSON schemas",
        tags=["tools"],
    )
    def get(self, request):
        ctx = context_for(request)
        return Response({"tools": [catalog.describe(t) for t in catalog.visible_tools(ctx)]})


class ToolExecuteView(APIView):
    required_scopes = ["tools:execute"]

    @extend_schema(
        summary="Execute one tool as the authenticated user",
        tags=["tools"],
        request=inline_serializer(
            "ToolExecuteRequest",
            {
                "tool": serializers.CharField(),
                "arguments": serializers.DictField(required=False),
                "idempotency_key": serializers.CharField(required=False),
            },
        ),
        responses={
            200: ResultSchema,
            400: ResultSchema,
            403: ResultSchema,
            404: ResultSchema,
            409: OpenApiResponse(description="idempotency key conflict"),
            413: ResultSchema,
        },
    )
    def post(self, request):
        limit = settings.CLAPILOT_TOOL_PAYLOAD_MAX_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit:
            return error(
                "payload_too_large", _("The request is larger than %(n)d bytes.") % {"n": limit}, 413
            )
        try:
            body = json.loads(request.body or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            return error("invalid_json", _("The request body is not valid JSON."), 400)
        if not isinstance(body, dict) or not isinstance(body.get("tool"), str) or not body["tool"]:
            return error("invalid_request", _("Send a JSON object with “tool” and “arguments”."), 400)
        arguments = body.get("arguments", {})
        key = body.get("idempotency_key")
        if key is not None and (not isinstance(key, str) or not 1 <= len(key) <= 200):
            return error("invalid_request", _("“idempotency_key” must be a string of 1–200 characters."), 400)
        try:
            ctx = context_for(request)
        except PrincipalError:
            return error("forbidden", _("This account is disabled."), 403)
        if key is None:
            result = dispatch(body["tool"], arguments, ctx)
            return Response(result.as_dict(), status=http_status_for(result))
        return self._idempotent(request, key, body["tool"], arguments, ctx)

    def _idempotent(self, request, key: str, name: str, arguments, ctx: ToolContext) -> Response:
        reservation = idempotency.reserve(request.user, key, name, arguments)
        if reservation.conflict == "reused":
            return error(
                "idempotency_key_reused", _("This idempotency key was already used for another call."), 409
            )
        if reservation.conflict == "in_progress":
            return error("idempotency_in_progress", _("The first call with this key is still running."), 409)
        if reservation.replay is not None:
            first = reservation.replay
            return Response(first.result, status=first.http_status, headers={"Idempotent-Replayed": "true"})
        result = dispatch(name, arguments, ctx)
        code = http_status_for(result)
        idempotency.finish(reservation.record, result.as_dict(), code)
        return Response(result.as_dict(), status=code)
