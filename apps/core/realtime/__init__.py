"""WebSocket routes declared by their apps (`DomainApp.websocket_urls`: a module with
`websocket_urlpatterns`, by default `<app>.routing`), and the one authenticator in front of them.

A socket is signed in by the session cookie (browsers), or by an `Authorization` header (mobile
and voice clients, which hold device tokens; integrations with API keys): `Token cld_…` or
`Bearer clp_…`. The schemes come from the apps that own the credentials, through the extension
point `core.websocket_credentials`: callables `(scheme, credential, api_key_scopes) -> user |
None` (None: not my scheme) that raise `CredentialRefused` for a bad one. An API key opens only
a socket whose consumer declares the scopes it needs (`api_key_scopes`), as REST views declare
`required_scopes`: deny by default.

A header credential wins over the cookie, and a request that carries one needs no `Origin`
(browsers cannot set headers on a WebSocket; the origin check guards the cookie)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from channels.db import database_sync_to_async
from django.urls import URLPattern, URLResolver
from django.utils.module_loading import import_string, module_has_submodule

from apps.core import plugins

POINT = "core.websocket_credentials"
CLOSE_UNAUTHENTICATED = 4401

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Any]]
Send = Callable[[Any], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]


class CredentialRefused(Exception):
    """A credential of a known scheme that does not open the socket (revoked, expired, lacking a
    scope): the socket is closed with 4401, never treated as anonymous."""


def websocket_modules() -> list[str]:
    modules = []
    for config in plugins.domain_apps():
        declared = config.websocket_urls
        if declared is None and module_has_submodule(config.module, "routing"):
            declared = f"{config.name}.routing"
        if declared:
            modules.append(declared)
    return modules


def authorization(scope: Scope) -> tuple[str, str] | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            parts = value.decode("latin-1").split()
            return (parts[0], parts[1]) if len(parts) == 2 else ("", "")
    return None


class CredentialAuth:
    """In front of one route's consumer: a header credential replaces the session's user."""

    def __init__(self, app: Asgi, api_key_scopes: tuple[str, ...]) -> None:
        self.app = app
        self.api_key_scopes = api_key_scopes
        self.consumer_class = getattr(app, "consumer_class", None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        presented = authorization(scope)
        if presented is not None:
            try:
                user = await database_sync_to_async(self.user_for)(*presented)
            except CredentialRefused:
                await receive()  # the client's connect
                await send({"type": "websocket.close", "code": CLOSE_UNAUTHENTICATED})
                return
            scope = {**scope, "user": user}
        await self.app(scope, receive, send)

    def user_for(self, scheme: str, credential: str) -> Any:
        for check in plugins.contributions(POINT):
            user = check(scheme, credential, self.api_key_scopes)
            if user is not None:
                return user
        raise CredentialRefused(scheme)


def _wrapped(patterns: list[Any]) -> list[Any]:
    routes: list[Any] = []
    for entry in patterns:
        if isinstance(entry, URLResolver):
            routes.append(entry)
        elif isinstance(entry, URLPattern):
            scopes = tuple(getattr(getattr(entry.callback, "consumer_class", None), "api_key_scopes", ()))
            auth = CredentialAuth(entry.callback, scopes)
            routes.append(URLPattern(entry.pattern, auth, entry.default_args, entry.name))
    return routes


def websocket_urlpatterns() -> list[Any]:
    """Every app's WebSocket routes, each behind the credential authenticator."""
    return [
        route
        for module in websocket_modules()
        for route in _wrapped(import_string(f"{module}.websocket_urlpatterns"))
    ]


class OriginOrCredential:
    """Channels' origin check for cookie sockets; a socket presenting a header credential and no
    Origin (a native client) passes."""

    def __init__(self, app: Asgi, validated: Asgi) -> None:
        self.app = app
        self.validated = validated

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {name for name, _ in scope.get("headers", ())}
        if b"authorization" in headers and b"origin" not in headers:
            await self.app(scope, receive, send)
        else:
            await self.validated(scope, receive, send)
