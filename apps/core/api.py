"""REST plumbing shared by every app: domain errors become JSON with their stable code."""

from __future__ import annotations

from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from apps.core.errors import DomainError


def exception_handler(exc, context):
    """`DomainError` → `{"code", "message", "details"}` with the error's HTTP status; DRF's own
    errors keep DRF's shape plus a `code` so clients can always branch on `code`."""
    if isinstance(exc, DomainError):
        return Response(
            {"code": exc.code, "message": exc.message, "details": exc.details}, status=exc.http_status
        )
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict) and "code" not in response.data:
        codes = exc.get_codes() if hasattr(exc, "get_codes") else None
        response.data["code"] = codes if isinstance(codes, str) else "invalid_request"
    return response
