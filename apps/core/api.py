"""REST plumbing shared by every app: domain errors become JSON with their stable code."""

from __future__ import annotations

from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from apps.accounts.principal import Principal
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


def principal(request) -> Principal:
    """The acting principal of an authenticated API request (an API key acts as its creator)."""
    return Principal.for_user(request.user)


def validated(serializer_class, data) -> dict:
    """Parse input with a DRF serializer; bad input becomes a 400 with field errors."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def page(key: str, records: list, total: int, limit: int, offset: int) -> Response:
    """The paginated list shape every list endpoint answers with."""
    return Response({key: records, "total": total, "limit": limit, "offset": offset})
