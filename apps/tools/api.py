"""REST surface of the tool framework: the catalog and `POST /api/v1/tools/execute`.

Identity comes only from the authenticated credential (an API key acts as its creator); identity
fields in the body (userId, session, principal …) are ignored by construction: the body is read
for `tool`, `arguments` and `idempotency_key` only.

The execute endpoint answers every outcome, bad requests included, in the tool-result envelope
(`contracts.ToolResultOut`), so it reads its body itself instead of through `endpoint(body=…)`.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

from django.conf import settings
from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse
from pydantic import ValidationError
from rest_framework.response import Response

from apps.accounts.principal import PrincipalError
from apps.core import caches, jsontext
from apps.core.errors import DomainError
from apps.core.surfaces.api import ApiView, dump, endpoint
from apps.tools import catalog, idempotency
from apps.tools import contracts as c
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from apps.tools.registry import Tool
from apps.tools.results import ToolResult

# Where each failure code lands in HTTP. Everything not listed: 400 (a handled domain failure).
STATUS_BY_CODE = {
    "unknown_tool": 404,
    "not_found": 404,
    "forbidden": 403,
    "approval_required": 202,  # staged: `output.staged_id`; the key's creator decides on the Freigaben page
    "approval_forbidden": 403,
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
    """The call's context. The credential's user row was read (and refused when disabled) while
    authenticating this request, so the dispatcher is told not to read its active flag again."""
    principal = request.principal
    principal.user  # noqa: B018 (resolves the lazy principal: a disabled account is refused here)
    scopes = getattr(request.auth, "scopes", None)  # an API key's (device tokens have none)
    return ToolContext(
        principal=principal,
        surface="api",
        scopes=frozenset(scopes) if scopes is not None else None,
        api_key=request.auth.prefix if scopes is not None else None,
        time_zone=request.headers.get("X-User-Timezone") or None,
        active_checked=True,
    )


def answer(result: ToolResult, http_status: int, headers: dict | None = None) -> Response:
    # The result's fields as they are: `as_dict` (dataclasses.asdict) deep-copies the output, a
    # page of records costing milliseconds, only for `dump` to read it once.
    envelope = {f.name: getattr(result, f.name) for f in _RESULT_FIELDS}
    return Response(dump(c.ToolResultOut, envelope), status=http_status, headers=headers)


_RESULT_FIELDS = dataclasses.fields(ToolResult)


def error(code: str, message: str, http_status: int) -> Response:
    return answer(ToolResult.failure(code, message), http_status)


# The catalog's JSON, per set of visible tools and media type. Which tools a caller sees (the
# rights: surface, scopes, installed modules, approval policy) is decided on every request; only
# the description of that set is kept: the Tool objects are immutable, and a registry change
# yields other objects, hence another key (the value holds them, so their ids stay unique).
_CATALOG_CACHE_SIZE = 64
_catalog_cache: dict[tuple[Any, ...], tuple[tuple[Tool, ...], bytes]] = {}
_catalog_lock = threading.Lock()


@caches.register
def forget_catalogs() -> None:
    with _catalog_lock:
        _catalog_cache.clear()


def _catalog_data(tools: tuple[Tool, ...]) -> dict[str, Any]:
    data: dict[str, Any] = dump(c.ToolCatalog, {"tools": [catalog.describe(t) for t in tools]})
    return data


class ToolCatalogView(ApiView):
    required_scopes = ["tools:execute"]

    @endpoint(output=c.ToolCatalog, operation_id="v1_tools_retrieve")
    def get(self, request):
        """Tools the caller may use, with their JSON schemas"""
        tools = tuple(catalog.visible_tools(context_for(request)))
        renderer = request.accepted_renderer
        if renderer.format != "json":  # the browsable API renders per request
            return _catalog_data(tools)
        key = (request.accepted_media_type, *(id(t) for t in tools))
        hit = _catalog_cache.get(key)
        if hit is None:
            content = renderer.render(_catalog_data(tools), request.accepted_media_type, {})
            with _catalog_lock:
                if len(_catalog_cache) >= _CATALOG_CACHE_SIZE:
                    _catalog_cache.clear()
                _catalog_cache[key] = hit = (tools, content)
        return HttpResponse(hit[1], content_type=renderer.media_type)


def _envelope(description: str) -> OpenApiResponse:
    return OpenApiResponse(c.ToolResultOut, description=description)


class ToolExecuteView(ApiView):
    required_scopes = ["tools:execute"]

    @endpoint(
        request={"application/json": c.ToolExecute},
        output=c.ToolResultOut,
        operation_id="v1_tools_execute_create",
        extra_responses={
            202: _envelope("The call waits for an approval (`approval_required`)."),
            400: _envelope(
                "Bad request (`invalid_json`, `json_too_deep`, `json_number_invalid`, `invalid_request`)"
                " or a handled tool failure."
            ),
            403: _envelope(
                "`forbidden`, `approval_forbidden`, `module_not_installed:<slug>`, `CLAPILOT_NO_USER_CONTEXT`."
            ),
            404: _envelope("`unknown_tool`."),
            409: _envelope("`idempotency_key_reused` or `idempotency_in_progress`."),
            413: _envelope("`payload_too_large`."),
            500: _envelope("`CLAPILOT_TOOL_EXECUTION_FAILED`, `CLAPILOT_TOOL_OUTPUT_SERIALIZATION_FAILED`."),
        },
    )
    def post(self, request):
        """Execute one tool as the authenticated user"""
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
            # NUL characters are left to the dispatcher: an unknown tool name is still audited.
            body = jsontext.loads(request.body or b"{}", allow_nul=True)
        except ValueError:  # JSONDecodeError, UnicodeDecodeError
            return error("invalid_json", _("The request body is not valid JSON."), 400)
        except DomainError as exc:  # json_too_deep, json_number_invalid
            return error(exc.code, exc.message, exc.http_status)
        call = _parse(body)
        if isinstance(call, Response):
            return call
        try:
            ctx = context_for(request)
        except PrincipalError:
            return error("forbidden", _("This account is disabled."), 403)
        if call.idempotency_key is None:
            result = dispatch(call.tool, call.arguments, ctx)
            return answer(result, http_status_for(result))
        return self._idempotent(request, call, ctx)

    def _idempotent(self, request, call: c.ToolExecute, ctx: ToolContext) -> Response:
        reservation = idempotency.reserve(request.user, call.idempotency_key, call.tool, call.arguments)
        if reservation.conflict == "reused":
            return error(
                "idempotency_key_reused", _("This idempotency key was already used for another call."), 409
            )
        if reservation.conflict == "in_progress":
            return error("idempotency_in_progress", _("The first call with this key is still running."), 409)
        if reservation.replay is not None:
            first = reservation.replay
            return Response(first.result, status=first.http_status, headers={"Idempotent-Replayed": "true"})
        result = dispatch(call.tool, call.arguments, ctx)
        code = http_status_for(result)
        idempotency.finish(reservation.record, result.as_dict(), code)
        return answer(result, code)


def _parse(body) -> c.ToolExecute | Response:
    """The call, or the envelope's `invalid_request` answer (identity fields are dropped)."""
    if not isinstance(body, dict):
        return error("invalid_request", _("Send a JSON object with “tool” and “arguments”."), 400)
    try:
        return c.ToolExecute.model_validate({k: body[k] for k in c.ToolExecute.model_fields if k in body})
    except ValidationError as exc:
        if any(e["loc"] and e["loc"][0] == "tool" for e in exc.errors()):
            return error("invalid_request", _("Send a JSON object with “tool” and “arguments”."), 400)
        return error("invalid_request", _("“idempotency_key” must be a string of 1–200 characters."), 400)
