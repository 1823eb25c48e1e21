"""Device-token login for the member's own apps, managing those tokens, and listing and revoking
API keys (typed endpoints, see `apps.core.surfaces.api.endpoint`).

`POST /api/v1/auth/token` uses no cookie authentication at all, so it needs (and has) no CSRF
check; it is protected by the failed-login throttle instead. Domain errors (`errors.ApiKeyError`)
are raised and shaped by the project's exception handler: `{"code", "message", "details"}`.
"""

from __future__ import annotations

import functools

from django.contrib.auth import authenticate
from drf_spectacular.utils import OpenApiResponse
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from apps.accounts import lockout
from apps.apikeys import contracts as c
from apps.apikeys import errors, services
from apps.apikeys.models import DeviceToken
from apps.apikeys.throttling import LoginFailureThrottle
from apps.core.contracts import ErrorOut
from apps.core.surfaces.api import ApiView, endpoint, listed, sliced


class ObtainDeviceTokenView(ApiView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [LoginFailureThrottle]

    @endpoint(
        body=c.ObtainToken,
        output=c.IssuedToken,
        status=201,
        operation_id="auth_token_create",
        extra_responses={
            400: OpenApiResponse(ErrorOut, description="Invalid input or wrong credentials."),
            429: OpenApiResponse(
                ErrorOut,
                description="Too many failed logins: `throttled` (this endpoint's failure limits) or "
                "`login_locked` (the web login is locked for this e-mail or address until the cool-off "
                "ends); see Retry-After.",
            ),
        },
        auth=[],
    )
    def post(self, request, body: c.ObtainToken):
        """Sign in a device

        Exchange e-mail and password for a device token (`Authorization: Token <token>`). The token is
        returned only in this response. Wrong credentials give one generic 400; repeated failures give
        429 `throttled` with Retry-After (counted per e-mail + address, per address and per e-mail,
        here only: they never lock the web login). While the web login is locked for this e-mail or
        address, 429 `login_locked` (the right password too, except from a device that signed in to
        this account before: it carries the device cookie this answer sets)."""
        if lockout.token_login_locked(request._request, body.email):  # the web logins' lockout
            return lockout.lockout_response(request._request)
        user = authenticate(request._request, username=body.email, password=body.password)
        if user is None:
            LoginFailureThrottle().record_failure(request, self)
            raise errors.InvalidCredentials()
        token, plaintext = services.issue_device_token(user, body.device_name)
        issued = c.IssuedToken(token=plaintext, id=token.pk, device_name=token.device_name)
        response = Response(issued.model_dump(mode="json"), status=201, headers={"Cache-Control": "no-store"})
        lockout.set_device_cookie(request._request, response, user.get_username())
        return response


class DeviceTokenListView(ApiView):
    @endpoint(query=c.DeviceTokenFilter, output=c.DeviceTokenPage, operation_id="auth_tokens_list")
    def get(self, request, query: c.DeviceTokenFilter):
        """List my devices

        The caller's own active device tokens (never the secrets)."""
        tokens = DeviceToken.objects.filter(user=request.user, revoked_at__isnull=True).order_by(
            "-created_at"
        )
        record = functools.partial(c.DeviceTokenOut.of, auth=request.auth)
        return listed("results", record, sliced(tokens, query), query)


class DeviceTokenDetailView(ApiView):
    @endpoint(
        output=None,
        status=204,
        operation_id="auth_tokens_destroy",
        extra_responses={404: OpenApiResponse(ErrorOut, description="No such device token.")},
    )
    def delete(self, request, token_id: int):
        """Sign out a device

        Revoke one of the caller's own device tokens (another member's id gives 404)."""
        services.revoke_device_token(request.user, token_id)


class ApiKeyListView(ApiView):
    @endpoint(query=c.ApiKeyFilter, output=c.ApiKeyPage, operation_id="auth_keys_list")
    def get(self, request, query: c.ApiKeyFilter):
        """List API keys

        An administrator sees every key of the instance, anyone else the keys they created (also
        after they stopped being an administrator); never the secrets. Keys are created on the
        Developer page, not over the API, and cannot use this endpoint themselves."""
        keys = services.visible_api_keys(request.principal)
        return listed("keys", c.ApiKeyOut.of, sliced(keys, query), query)


class ApiKeyDetailView(ApiView):
    @endpoint(
        output=None,
        status=204,
        operation_id="auth_keys_destroy",
        extra_responses={404: OpenApiResponse(ErrorOut, description="No such API key.")},
    )
    def delete(self, request, key_id: int):
        """Revoke an API key

        At once and for good: an administrator any key, its creator their own; another member's
        key gives 404. Revoking a revoked key again is harmless."""
        services.revoke_api_key(request.principal, key_id=key_id)
